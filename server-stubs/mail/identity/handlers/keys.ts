import type { components } from '../../../../generated/mail/types.gen.js';
import { mailHandlers, type MailDeps } from '../../context.js';
import type { MailPrincipal } from '../../auth.js';
import { withinQuota, planNames } from '../plans.js';
import type { ApiKeyRecord, IdentityStore } from '../store.js';
import { iso, pageOf } from '../../wire-format.js';
import { invalidRequest } from '../../../lib/failures.js';

type ListedKey = components['schemas']['ApiKeyListResponse']['data'][number];

/** A key as lists show it: never the raw key, only its prefix and last four characters. */
function listed(record: ApiKeyRecord): ListedKey {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    last_four: record.lastFour,
    allowed_account_id: record.allowedAccountId ?? null,
    scopes: record.kind === 'oauth' ? ((record.scopes ?? []) as ListedKey['scopes']) : [],
    source: record.kind === 'oauth' ? 'oauth' : 'dashboard',
    created_at: iso(record.createdAt)!,
    expires_at: iso(record.expiresAt),
    last_used_at: iso(record.lastUsedAt),
    revoked_at: iso(record.revokedAt),
  };
}

/** Revokes one of the caller's keys: 'missing' when the caller has no key with that id. */
function revokeOwn(identity: IdentityStore, principal: MailPrincipal, id: string): 'revoked' | 'missing' | 'seeded' {
  const record = identity.keyOf(principal.userId, id);
  // Internal keys are not the user's to manage (and are never listed).
  if (!record || record.kind === 'internal') return 'missing';
  if (identity.isSeededKey(record)) return 'seeded';
  identity.revokeKey(id);
  return 'revoked';
}

export function keyHandlers({ identity }: MailDeps) {
  const revoke = (principal: MailPrincipal, id: string, fail: (status: 403 | 404, code: undefined, message: string) => never) => {
    const outcome = revokeOwn(identity, principal, id);
    if (outcome === 'missing') fail(404, undefined, 'API key not found');
    if (outcome === 'seeded') fail(403, undefined, 'Seeded development keys cannot be revoked; create a key to try revocation');
    return { status: 200 as const, body: { success: true as const } };
  };
  return mailHandlers({
    listApiKeys: ({ principal, query }) => {
      const keys = identity.keysOf(principal.userId).filter((k) => k.kind !== 'internal');
      return { status: 200, body: { success: true, ...pageOf(keys.map(listed), query.page, query.limit) } };
    },

    createApiKey: ({ principal, body, fail }) => {
      const accountId = body.allowed_account_id ?? null;
      if (accountId !== null && identity.account(principal.userId, accountId) === undefined) {
        invalidRequest({ fieldErrors: { allowed_account_id: ['Account not found'] } });
      }
      const user = identity.user(principal.userId)!;
      if (!withinQuota(user.plan, 'api_keys', identity.activeKeys(user.id, 'dashboard').length)) {
        fail(403, undefined, `API key limit reached for your plan (${planNames[user.plan]})`);
      }
      const { record, raw } = identity.issueKey({ userId: user.id, name: body.name, kind: 'dashboard', scopes: null, allowedAccountId: accountId });
      return { status: 201, body: { success: true, data: { key: raw, ...listed(record) } } };
    },

    revokeApiKey: ({ principal, query, fail }) => revoke(principal, query.id, fail),
    revokeApiKeyFromDashboard: ({ principal, query, fail }) => revoke(principal, query.id, fail),
  });
}
