/**
 * The mail scenario, in parts kept by the code they exercise: identity (keys, sessions, accounts,
 * plan and billing) and the OAuth authorization server. All parts work on one fixture: where the
 * service is, the caller's key, a dashboard session of the same user. Audience (contacts, segments)
 * deliverability (validation, DMARC monitoring, sending domains) and sending follow.
 */
import { createMailClient } from '../../../generated/mail/client.gen.js';
import { composeScenario, patientFetch, ScenarioSetupError } from './scenario.js';
import type { operations } from '../../../generated/mail/types.gen.js';
import type { MailFixture } from './mail-fixture.js';
import { devLogin, mailIdentityPart } from './mail-identity.js';
import { audiencePart } from './mail-audience.js';
import { deliverabilityPart } from './mail-deliverability.js';
import { segmentsPart } from './mail-segments.js';
import { sendingPart } from './mail-sending.js';
import { campaignsPart } from './mail-campaigns.js';
import { analyticsPart } from './mail-analytics.js';
import { automationsPart } from './mail-automations.js';
import { notificationsPart } from './mail-notifications.js';
import { providersPart } from './mail-providers.js';
import { webhooksPart } from './mail-webhooks.js';
import { contentPart } from './mail-content.js';
import { infrastructurePart } from './mail-infrastructure.js';
import { validationPart } from './mail-validation.js';
import { oauthPart } from './mail-oauth.js';

/** The seeded user behind the context's default key (`msk_test_max`, CONVENTIONS §6). */
export const scenarioUser = 'usr_max';

export const mailScenario = composeScenario<MailFixture, operations>(async (ctx) => {
  const login = await devLogin(ctx, scenarioUser);
  if (login.response.status !== 303 || !login.session) throw new ScenarioSetupError(`sign in as ${scenarioUser}: expected 303 with a session cookie, got ${login.response.status}`);
  return {
    ctx,
    api: createMailClient({ baseUrl: ctx.baseUrl, headers: ctx.headers, fetch: patientFetch(ctx) }),
    dashboard: createMailClient({ baseUrl: ctx.baseUrl, headers: { cookie: `session=${login.session}` }, fetch: patientFetch(ctx) }),
    session: login.session,
    made: {},
  };
}, [mailIdentityPart, oauthPart, audiencePart, segmentsPart, validationPart, deliverabilityPart, sendingPart, campaignsPart, analyticsPart, automationsPart, contentPart, infrastructurePart, webhooksPart, providersPart, notificationsPart]);

/** The service's scenario, found by its file name (index.ts). */
export default mailScenario;
