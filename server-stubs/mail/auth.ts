import { bearerToken, fail, type Principal, type SecurityHandler } from '../lib/auth.js';
import { ApiError } from '../lib/errors.js';

export type Plan = 'free' | 'pro' | 'max';

export interface MailPrincipal extends Principal {
  userId: string;
  plan: Plan;
  /** `dashboard` keys have no scopes; `oauth` tokens are limited to `scopes`; `session` is a logged-in user. */
  via: 'dashboard' | 'oauth' | 'session' | 'provider';
  scopes: string[];
}

interface KeyRecord {
  userId: string;
  plan: Plan;
  source: 'dashboard' | 'oauth';
  scopes: string[];
  revoked: boolean;
}

/** Seeded credentials (CONVENTIONS §6). */
export const seededKeys: Record<string, KeyRecord> = {
  msk_test_free: { userId: 'usr_free', plan: 'free', source: 'dashboard', scopes: [], revoked: false },
  msk_test_pro: { userId: 'usr_pro', plan: 'pro', source: 'dashboard', scopes: [], revoked: false },
  msk_test_max: { userId: 'usr_max', plan: 'max', source: 'dashboard', scopes: [], revoked: false },
  msk_test_revoked: { userId: 'usr_free', plan: 'free', source: 'dashboard', scopes: [], revoked: true },
};

export const seededSessions: Record<string, { userId: string; plan: Plan }> = {
  sess_test_free: { userId: 'usr_free', plan: 'free' },
  sess_test_pro: { userId: 'usr_pro', plan: 'pro' },
  sess_test_max: { userId: 'usr_max', plan: 'max' },
};

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
export function mailSecurity(keys: Record<string, KeyRecord>, secrets: ProviderSecrets): Record<string, SecurityHandler> {
  const keyFor = (req: Parameters<SecurityHandler>[0]): [string, KeyRecord] => {
    const token = bearerToken(req);
    if (!token) fail(req, unauthenticated('Missing or invalid Authorization header'));
    const key = keys[token];
    if (!key) fail(req, unauthenticated('Invalid API key'));
    if (key.revoked) fail(req, unauthenticated('API key has been revoked'));
    return [token, key];
  };
  const principal = (token: string, key: KeyRecord): MailPrincipal => ({
    id: token,
    userId: key.userId,
    plan: key.plan,
    via: key.source,
    scopes: key.scopes,
  });
  const secretHeader = (header: string, secret: () => string): SecurityHandler => (req) => {
    if (req.get(header) !== secret()) fail(req, unauthenticated(`Invalid ${header}`));
    req.principal = { id: header, userId: 'provider', plan: 'max', via: 'provider', scopes: [] } satisfies MailPrincipal;
    return true;
  };
  return {
    apiKey: (req) => {
      const [token, key] = keyFor(req);
      if (key.source !== 'dashboard') fail(req, new ApiError(403, undefined, 'Insufficient scope'));
      req.principal = principal(token, key);
      return true;
    },
    oauth2: (req, scopes) => {
      const [token, key] = keyFor(req);
      if (key.source === 'oauth' && !scopes.every((s) => key.scopes.includes(s))) fail(req, new ApiError(403, undefined, 'Insufficient scope'));
      req.principal = principal(token, key);
      return true;
    },
    sessionCookie: (req) => {
      const session = seededSessions[String(req.cookies?.session ?? '')];
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
