/** The segments part of the mail scenario: Segments (dashboard CRUD, preview, refresh, static members, the members route). */
import type { MailScenarioPart } from './mail-fixture.js';

export const segmentsPart: MailScenarioPart = {
  calls: {},
  expectations: {},
};
