import type { MailClient } from '../../../generated/mail/client.gen.js';
import type { ScenarioContext, ScenarioPart } from './scenario.js';

/** What every part of the mail scenario works on: the service, the caller's key, a dashboard session of the same user. */
export interface MailFixture {
  ctx: ScenarioContext;
  /** the caller's API key (the context's credentials) */
  api: MailClient;
  /** the same user's dashboard session, signed in through the development login */
  dashboard: MailClient;
  /** the `session` cookie value behind `dashboard` */
  session: string;
  /** what each part's setup made, by name */
  made: Record<string, string>;
}

export type MailScenarioPart = ScenarioPart<MailFixture>;
