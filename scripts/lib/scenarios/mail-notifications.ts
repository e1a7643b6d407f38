/** The notifications part of the mail scenario: in-app notifications and referrals. */
import type { MailScenarioPart } from './mail-fixture.js';

export const notificationsPart: MailScenarioPart = {
  calls: {},
  expectations: {},
};
