/**
 * The mail scenario, in parts kept by the code they exercise: identity (keys, sessions, accounts,
 * plan and billing) and the OAuth authorization server. All parts work on one fixture: where the
 * service is, the caller's key, a dashboard session of the same user.
 */
import { createMailClient, type MailClient } from '../../../generated/mail/client.gen.js';
import { ScenarioSetupError, type ScenarioContext, type ServiceScenario } from './scenario.js';
import { devLogin, mailIdentityPart } from './mail-identity.js';
import { oauthPart } from './mail-oauth.js';

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

/** One part of the mail scenario: its own setup, calls, expectations and refusals. */
export interface MailScenarioPart extends Pick<ServiceScenario<MailFixture>, 'calls' | 'expectations' | 'refusals' | 'underSwitch'> {
  setup?(fixture: MailFixture): Promise<void>;
}

/** The seeded user behind the context's default key (`msk_test_max`, CONVENTIONS §6). */
export const scenarioUser = 'usr_max';

const parts: MailScenarioPart[] = [mailIdentityPart, oauthPart];

export const mailScenario: ServiceScenario<MailFixture> = {
  async setup(ctx) {
    const login = await devLogin(ctx, scenarioUser);
    if (login.response.status !== 303 || !login.session) throw new ScenarioSetupError(`sign in as ${scenarioUser}: expected 303 with a session cookie, got ${login.response.status}`);
    const fixture: MailFixture = {
      ctx,
      api: createMailClient({ baseUrl: ctx.baseUrl, headers: ctx.headers }),
      dashboard: createMailClient({ baseUrl: ctx.baseUrl, headers: { cookie: `session=${login.session}` } }),
      session: login.session,
      made: {},
    };
    for (const part of parts) await part.setup?.(fixture);
    return fixture;
  },
  calls: Object.assign({}, ...parts.map((p) => p.calls)),
  expectations: Object.assign({}, ...parts.map((p) => p.expectations)),
  refusals: parts.flatMap((p) => p.refusals ?? []),
  underSwitch: parts.flatMap((p) => p.underSwitch ?? []),
};
