/** The providers part of the mail scenario: provider and internal webhooks. */
import type { MailScenarioPart } from './mail-fixture.js';

export const providersPart: MailScenarioPart = {
  calls: {},
  expectations: {},
};
