import { bearerToken, fail, type Principal, type SecurityHandler } from '../lib/auth.js';
import { ApiError } from '../lib/errors.js';
import type { StubCredential } from '../lib/service.js';

export type Plan = 'free' | 'pro' | 'max';

export interface MailPrincipal extends Principal {
  userId: string;
  plan: Plan;
  /** `dashboard` keys have no scopes; `session` is a logged-in user; `provider` a webhook sender. */
  via: 'dashboard' | 'session' | 'provider';
  scopes: string[];
}

const plans = { free: 'Free', pro: 'Pro', max: 'Max' } as const satisfies Record<Plan, string>;

/**
 * Seeded keys and sessions (CONVENTIONS §6, DECISIONS mail-1), one list for auth, the start banner
 * and the tests. Only dashboard keys are seeded: OAuth tokens are issued by the OAuth flow.
 */
export const mailCredentials = [
  ...(['max', 'pro', 'free'] as const).flatMap((plan) => [
    { label: `API key (${plans[plan]} plan)`, scheme: 'apiKey', value: `msk_test_${plan}`, userId: `usr_${plan}`, plan },
    { label: `Session (${plans[plan]} plan)`, scheme: 'sessionCookie', value: `sess_test_${plan}`, userId: `usr_${plan}`, plan },
  ]),
  { label: 'API key (revoked)', scheme: 'apiKey', value: 'msk_test_revoked', userId: 'usr_free', plan: 'free', valid: false },
] as const satisfies ReadonlyArray<StubCredential & { userId: string; plan: Plan }>;

type SeededCredential = (typeof mailCredentials)[number];

const seeded = (scheme: string) =>
  new Map<string, SeededCredential>(mailCredentials.filter((c) => c.scheme === scheme).map((c) => [c.value, c]));
const seededKeys = seeded('apiKey');
const seededSessions = seeded('sessionCookie');

export interface ProviderSecrets {
  fbl: string;
  inbound: string;
  internal: string;
  /** source addresses the mail-server-B webhook accepts */
  postalAllowlist: string[];
}

export function providerSecretsFromEnv(env: NodeJS.ProcessEnv = process.env): ProviderSecrets {
  return {
    fbl: env.FBL_WEBHOOK_SECRET ?? 'fbl_test_secret',
    inbound: env.INBOUND_WEBHOOK_SECRET ?? 'inbound_test_secret',
    internal: env.INTERNAL_SECRET ?? 'internal_test_secret',
    postalAllowlist: (env.POSTAL_ALLOWED_IPS ?? '127.0.0.1,::1,::ffff:127.0.0.1').split(',').map((s) => s.trim()),
  };
}

const unauthenticated = (message: string) => new ApiError(401, undefined, message);

/**
 * One handler per security scheme of the mail contract. The validator runs every alternative an
 * operation lists and passes if one does: a dashboard key passes `apiKey`; an OAuth token passes
 * `oauth2` only with a listed scope, and is refused with 403 otherwise.
 */
export function mailSecurity(secrets: ProviderSecrets): Record<string, SecurityHandler> {
  const dashboardKey: SecurityHandler = (req) => {
    const token = bearerToken(req);
    if (!token) fail(req, unauthenticated('Missing or invalid Authorization header'));
    const key = seededKeys.get(token);
    if (!key) fail(req, unauthenticated('Invalid API key'));
    if ('valid' in key && key.valid === false) fail(req, unauthenticated('API key has been revoked'));
    req.principal = { id: token, userId: key.userId, plan: key.plan, via: 'dashboard', scopes: [] } satisfies MailPrincipal;
    return true;
  };
  const secretHeader = (header: string, secret: () => string): SecurityHandler => (req) => {
    if (req.get(header) !== secret()) fail(req, unauthenticated(`Invalid ${header}`));
    req.principal = { id: header, userId: 'provider', plan: 'max', via: 'provider', scopes: [] } satisfies MailPrincipal;
    return true;
  };
  return {
    apiKey: dashboardKey,
    // Dashboard keys are unscoped, so they pass every scope; issued OAuth tokens land with the OAuth flow.
    oauth2: dashboardKey,
    sessionCookie: (req) => {
      const session = seededSessions.get(String(req.cookies?.session ?? ''));
      if (!session) fail(req, unauthenticated('Not authenticated'));
      req.principal = { id: `session:${session.userId}`, userId: session.userId, plan: session.plan, via: 'session', scopes: [] } satisfies MailPrincipal;
      return true;
    },
    fblSecretHeader: secretHeader('X-Webhook-Secret', () => secrets.fbl),
    fblBearer: (req) => {
      if (bearerToken(req) !== secrets.fbl) fail(req, unauthenticated('Invalid feedback-loop secret'));
      req.principal = { id: 'fbl', userId: 'provider', plan: 'max', via: 'provider', scopes: [] } satisfies MailPrincipal;
      return true;
    },
    inboundSecret: secretHeader('x-inbound-secret', () => secrets.inbound),
    internalSecret: secretHeader('x-internal-secret', () => secrets.internal),
    postalSignature: (req) => {
      if (!secrets.postalAllowlist.includes(req.socket.remoteAddress ?? '')) fail(req, new ApiError(403, undefined, 'Source address not allowed'));
      // The signature itself is checked with the provider-webhook behaviour; here it must be present.
      if (!req.get('X-Postal-Signature')) fail(req, unauthenticated('Missing X-Postal-Signature'));
      req.principal = { id: 'mailserver-b', userId: 'provider', plan: 'max', via: 'provider', scopes: [] } satisfies MailPrincipal;
      return true;
    },
  };
}
