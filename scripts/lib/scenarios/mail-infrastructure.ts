/** The infrastructure part of the mail scenario: aliases, dedicated IPs, inbound routes and AI subject lines. */
import type { MailScenarioPart } from './mail-fixture.js';

export const infrastructurePart: MailScenarioPart = {
  calls: {},
  expectations: {},
};
