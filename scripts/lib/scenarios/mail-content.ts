/** The content part of the mail scenario: templates, WhatsApp and push. */
import type { MailScenarioPart } from './mail-fixture.js';

export const contentPart: MailScenarioPart = {
  calls: {},
  expectations: {},
};
