import type { Request } from 'express';
import { bearerToken, type Principal, type SecurityHandler } from '../lib/auth.js';
import { ApiError } from '../lib/errors.js';
import type { StubCredential } from '../lib/service.js';
import type { ApiKeyRecord, IdentityStore, MailUser, Plan } from './identity/store.js';
import { postalPublicKey, verifyPostalSignature } from './providers/postal-signature.js';
import { postalTestPublicKey } from './providers/postal-test-keys.js';

export type { Plan } from './identity/store.js';

export interface MailPrincipal extends Principal {
  userId: string;
  plan: Plan;
  /** the kind of API key, `session` for a logged-in user, `provider` for a webhook sender */
  via: ApiKeyRecord['kind'] | 'session' | 'provider';
  /** granted scopes of an OAuth token; empty for unscoped keys and sessions */
  scopes: string[];
  keyId?: string;
  allowedAccountId?: string | null;
}

const plans = { free: 'Free', pro: 'Pro', max: 'Max' } as const satisfies Record<Plan, string>;

/**
 * Seeded keys and sessions (CONVENTIONS §6, DECISIONS mail-1) for the start banner and the tests;
 * the identity store holds the same seeds and decides. Each user is a tenant of its own.
 */
export const mailCredentials = [
  ...(['max', 'pro', 'free'] as const).flatMap((plan) => [
    { label: `API key (${plans[plan]} plan)`, scheme: 'apiKey', value: `msk_test_${plan}`, userId: `usr_${plan}`, plan, tenant: `usr_${plan}` },
    { label: `Session (${plans[plan]} plan)`, scheme: 'sessionCookie', value: `sess_test_${plan}`, userId: `usr_${plan}`, plan, tenant: `usr_${plan}` },
  ]),
  { label: 'API key (revoked)', scheme: 'apiKey', value: 'msk_test_revoked', userId: 'usr_free', plan: 'free', valid: false },
  // Seeded in the OAuth store (identity/store.ts); listed here so the banner, the mock and the tools know it.
  { label: 'OAuth token (Max user, scope send)', scheme: 'oauth2', value: 'msk_test_oauth_send', userId: 'usr_max', plan: 'max', tenant: 'usr_max' },
] as const satisfies ReadonlyArray<StubCredential & { userId: string; plan: Plan }>;

export interface ProviderSecrets {
  fbl: string;
  inbound: string;
  internal: string;
  /** source addresses the mail-server-B webhook accepts */
  postalAllowlist: string[];
  /** the public key mail server B signs with (PEM or base64 SPKI) */
  postalPublicKey: string;
}

export function providerSecretsFromEnv(env: NodeJS.ProcessEnv = process.env): ProviderSecrets {
  return {
    fbl: env.FBL_WEBHOOK_SECRET ?? 'fbl_test_secret',
    inbound: env.INBOUND_WEBHOOK_SECRET ?? 'inbound_test_secret',
    internal: env.INTERNAL_SECRET ?? 'internal_test_secret',
    postalAllowlist: (env.POSTAL_ALLOWED_IPS ?? '127.0.0.1,::1,::ffff:127.0.0.1').split(',').map((s) => s.trim()),
    postalPublicKey: env.POSTAL_PUBLIC_KEY ?? postalTestPublicKey,
  };
}

const unauthenticated = (message: string) => new ApiError(401, undefined, message);

declare module 'express-serve-static-core' {
  interface Request {
    /** scopes each refused `oauth2` alternative asked for, to name them all in the 403 */
    missingScopes?: string[][];
    /** how telling the refusal in `authFailure` is (see `refuse`) */
    authStrength?: number;
  }
}

/**
 * The validator runs every security alternative of an operation and fails with the last refusal
 * recorded; alternatives refuse at different strengths, so the most telling one is kept: a scope
 * refusal (403, naming the scopes) over a key that may not use the route (403) over "who are you" (401).
 */
function refuse(req: Request, error: ApiError, strength: 1 | 2 | 3): never {
  if (strength >= (req.authStrength ?? 0)) {
    req.authFailure = error;
    req.authStrength = strength;
  }
  throw Object.assign(new Error(error.message), { status: req.authFailure!.status });
}

function principalOf(user: MailUser, key: ApiKeyRecord): MailPrincipal {
  return {
    id: `key:${key.id}`,
    userId: user.id,
    plan: user.plan,
    via: key.kind,
    scopes: key.kind === 'oauth' ? [...(key.scopes ?? [])] : [],
    keyId: key.id,
    allowedAccountId: key.allowedAccountId ?? null,
  };
}

/** The key behind `Authorization: Bearer msk_...`, or a 401: wrong product, unknown, revoked, expired. */
function resolveKey(req: Request, identity: IdentityStore): { user: MailUser; key: ApiKeyRecord } {
  const token = bearerToken(req);
  if (!token) refuse(req, unauthenticated('Missing or invalid Authorization header'), 1);
  // Keys are bound to this product: another product's key is unknown here.
  if (!token.startsWith('msk_')) refuse(req, unauthenticated('Invalid API key'), 1);
  const key = identity.findKey(token);
  if (!key) refuse(req, unauthenticated('Invalid API key'), 1);
  if (key.revokedAt) refuse(req, unauthenticated('API key has been revoked'), 1);
  if (key.expiresAt != null && key.expiresAt <= identity.clock.now()) refuse(req, unauthenticated('API key has expired'), 1);
  const user = identity.user(key.userId);
  if (!user) refuse(req, unauthenticated('Invalid API key'), 1);
  return { user, key };
}

/**
 * One handler per security scheme of the mail contract. Dashboard (and internal) keys pass
 * `apiKey` and every `oauth2` alternative, being unscoped; an OAuth token passes only an `oauth2`
 * alternative whose scopes it was granted, and is refused with 403 naming the missing scopes.
 */
export function mailSecurity(secrets: ProviderSecrets, identity: IdentityStore): Record<string, SecurityHandler> {
  const accept = (req: Request, user: MailUser, key: ApiKeyRecord) => {
    identity.touchKey(key);
    req.principal = principalOf(user, key);
    return true;
  };
  const apiKey: SecurityHandler = (req) => {
    const { user, key } = resolveKey(req, identity);
    if (key.kind === 'oauth') refuse(req, new ApiError(403, undefined, 'Insufficient scope: OAuth tokens are limited to the routes of their granted scopes'), 2);
    return accept(req, user, key);
  };
  const oauth2: SecurityHandler = (req, scopes) => {
    const { user, key } = resolveKey(req, identity);
    if (key.kind !== 'oauth' || scopes.every((s) => key.scopes?.includes(s))) return accept(req, user, key);
    const missing = (req.missingScopes ??= []);
    missing.push(scopes.filter((s) => !key.scopes?.includes(s)));
    const named = missing.map((m) => m.join(' and ')).join(' or ');
    return refuse(req, new ApiError(403, undefined, `Insufficient scope: this route needs the scope ${named}`), 3);
  };
  // Parsed once, so a malformed POSTAL_PUBLIC_KEY stops the stub at start rather than at the first event.
  const postalKey = postalPublicKey(secrets.postalPublicKey);
  const secretHeader = (header: string, secret: () => string): SecurityHandler => (req) => {
    if (req.get(header) !== secret()) refuse(req, unauthenticated(`Invalid ${header}`), 1);
    req.principal = { id: header, userId: 'provider', plan: 'max', via: 'provider', scopes: [] } satisfies MailPrincipal;
    return true;
  };
  return {
    apiKey,
    oauth2,
    sessionCookie: (req) => {
      const value = String(req.cookies?.session ?? '');
      const user = value ? identity.sessionUser(value) : undefined;
      if (!user) {
        const message = !value && bearerToken(req) ? 'Not authenticated: this route takes the dashboard session cookie, not an API key'
          : 'Not authenticated';
        refuse(req, unauthenticated(message), 1);
      }
      req.principal = { id: `session:${user.id}`, userId: user.id, plan: user.plan, via: 'session', scopes: [] } satisfies MailPrincipal;
      return true;
    },
    fblSecretHeader: secretHeader('X-Webhook-Secret', () => secrets.fbl),
    fblBearer: (req) => {
      if (bearerToken(req) !== secrets.fbl) refuse(req, unauthenticated('Invalid feedback-loop secret'), 1);
      req.principal = { id: 'fbl', userId: 'provider', plan: 'max', via: 'provider', scopes: [] } satisfies MailPrincipal;
      return true;
    },
    inboundSecret: secretHeader('x-inbound-secret', () => secrets.inbound),
    internalSecret: secretHeader('x-internal-secret', () => secrets.internal),
    postalSignature: (req) => {
      if (!secrets.postalAllowlist.includes(req.socket.remoteAddress ?? '')) refuse(req, new ApiError(403, undefined, 'Source address not allowed'), 2);
      const signature = req.get('X-Postal-Signature');
      if (!signature) refuse(req, unauthenticated('Missing X-Postal-Signature'), 1);
      // The exact bytes are kept for this operation (the router's `rawBody` option); re-serialized JSON would not verify.
      if (!req.rawBody || !verifyPostalSignature(req.rawBody, signature, postalKey)) refuse(req, unauthenticated('Invalid signature'), 1);
      req.principal = { id: 'mailserver-b', userId: 'provider', plan: 'max', via: 'provider', scopes: [] } satisfies MailPrincipal;
      return true;
    },
  };
}
