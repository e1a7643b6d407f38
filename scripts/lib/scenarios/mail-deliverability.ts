/** The deliverability part of the mail scenario: DMARC monitoring and sending domains (DNS checked through the stub's resolver). */
import type { MailScenarioPart } from './mail-fixture.js';

export const deliverabilityPart: MailScenarioPart = {
  calls: {},
  expectations: {},
};
