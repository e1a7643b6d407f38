/** The webhooks part of the mail scenario: webhook endpoints and deliveries. */
import type { MailScenarioPart } from './mail-fixture.js';

export const webhooksPart: MailScenarioPart = {
  calls: {},
  expectations: {},
};
