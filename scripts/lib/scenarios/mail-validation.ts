/** The validation part of the mail scenario: E-mail validation (balance, batches, credits). */
import type { MailScenarioPart } from './mail-fixture.js';

export const validationPart: MailScenarioPart = {
  calls: {},
  expectations: {},
};
