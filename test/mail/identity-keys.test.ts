/**
 * API keys through HTTP (document 000 "Authentication"): the `msk_` prefix and product binding,
 * revocation at once, the raw key shown once, the plan's active-key limit, key management with a
 * key or a session, OAuth tokens limited to their scopes, and `allowed_account_id`.
 */
import { describe, expect, test } from 'vitest';
import { planQuotas } from '../../server-stubs/mail/identity/plans.js';
import { IdentityStore, oauthTokenTtlSeconds } from '../../server-stubs/mail/identity/store.js';
import { createManualClock } from '../../server-stubs/lib/clock.js';
import { StateStore } from '../../server-stubs/lib/store.js';
import { answered, mailForEachTest } from './identity-support.js';

const mail = mailForEachTest();

describe('which keys authenticate', () => {
  test.each([
    ['no Authorization header', {}, 'Missing or invalid Authorization header'],
    ['a key of another product', { authorization: 'Bearer seo_test_key' }, 'Invalid API key'],
    ['an msk_ key nobody issued', { authorization: 'Bearer msk_never_issued_0000' }, 'Invalid API key'],
    ['the seeded revoked key', { authorization: 'Bearer msk_test_revoked' }, 'API key has been revoked'],
  ])('%s: 401', async (_name, headers, message) => {
    const response = await fetch(`${mail.baseUrl}/v1/plan-limits`, { headers });
    const body = await response.json();
    expect(response.status).toBe(401);
    expect(body).toEqual({ success: false, error: message });
    expect(mail.app.identity.findKey('seo_test_key')).toBeUndefined();
  });

  test('a key of this product reaches the operation', async () => {
    answered(await mail.key('msk_test_pro').GET('/v1/plan-limits'), 200, '/v1/plan-limits', 'get');
  });
});

describe('key management', () => {
  test('the raw key is returned once at creation and works; lists show only the prefix and last four', async () => {
    const created = answered(await mail.key('msk_test_max').POST('/v1/keys', { body: { name: 'Server' } }), 201, '/v1/keys', 'post');
    const raw: string = created.data.key;
    expect(raw).toMatch(/^msk_[0-9a-f]{48}$/);
    expect(created.data).toMatchObject({ name: 'Server', source: 'dashboard', scopes: [], prefix: raw.slice(0, created.data.prefix.length), last_four: raw.slice(-4), revoked_at: null, expires_at: null });
    answered(await mail.key(raw).GET('/v1/plan-limits'), 200, '/v1/plan-limits', 'get');

    const list = answered(await mail.key('msk_test_max').GET('/v1/keys', { params: { query: { limit: 100 } } }), 200, '/v1/keys', 'get');
    const listed = list.data.find((k: { id: string }) => k.id === created.data.id);
    expect(listed).toMatchObject({ prefix: created.data.prefix, last_four: raw.slice(-4), last_used_at: expect.any(String) });
    expect(JSON.stringify(list)).not.toContain(raw);
    expect(list.data.every((k: object) => !('key' in k))).toBe(true);
  });

  test('a deleted key gets 401 on its next call, and stays listed with revoked_at', async () => {
    const created = answered(await mail.key('msk_test_max').POST('/v1/keys', { body: { name: 'Short-lived' } }), 201, '/v1/keys', 'post');
    answered(await mail.key(created.data.key).GET('/billing/subscription'), 200, '/billing/subscription', 'get');
    answered(await mail.key('msk_test_max').DELETE('/v1/keys', { params: { query: { id: created.data.id } } }), 200, '/v1/keys', 'delete');
    const after = answered(await mail.key(created.data.key).GET('/billing/subscription'), 401, '/billing/subscription', 'get');
    expect(after.error).toBe('API key has been revoked');
    // Revoking again answers success again.
    answered(await mail.key('msk_test_max').DELETE('/v1/keys', { params: { query: { id: created.data.id } } }), 200, '/v1/keys', 'delete');
    const list = answered(await mail.key('msk_test_max').GET('/v1/keys'), 200, '/v1/keys', 'get');
    expect(list.data.find((k: { id: string }) => k.id === created.data.id).revoked_at).toEqual(expect.any(String));
  });

  test('DELETE /api/v1/keys?id= revokes too, with a session', async () => {
    const created = answered(await mail.session('sess_test_pro').POST('/v1/keys', { body: { name: 'From the dashboard' } }), 201, '/v1/keys', 'post');
    answered(await mail.session('sess_test_pro').DELETE('/api/v1/keys', { params: { query: { id: created.data.id } } }), 200, '/api/v1/keys', 'delete');
    answered(await mail.key(created.data.key).GET('/v1/plan-limits'), 401, '/v1/plan-limits', 'get');
  });

  test("another user's key is not found: 404, and it keeps working", async () => {
    const theirs = answered(await mail.key('msk_test_pro').POST('/v1/keys', { body: { name: 'Pro key' } }), 201, '/v1/keys', 'post');
    answered(await mail.key('msk_test_max').DELETE('/v1/keys', { params: { query: { id: theirs.data.id } } }), 404, '/v1/keys', 'delete');
    answered(await mail.session('sess_test_max').DELETE('/api/v1/keys', { params: { query: { id: theirs.data.id } } }), 404, '/api/v1/keys', 'delete');
    answered(await mail.key(theirs.data.key).GET('/v1/plan-limits'), 200, '/v1/plan-limits', 'get');
  });

  test('the seeded keys are fixtures: revoking one answers 403 and it keeps working', async () => {
    const list = answered(await mail.key('msk_test_free').GET('/v1/keys'), 200, '/v1/keys', 'get');
    const seeded = list.data.find((k: { prefix: string; revoked_at: string | null }) => k.prefix.startsWith('msk_test_fre'));
    answered(await mail.key('msk_test_free').DELETE('/v1/keys', { params: { query: { id: seeded.id } } }), 403, '/v1/keys', 'delete');
    answered(await mail.key('msk_test_free').GET('/v1/plan-limits'), 200, '/v1/plan-limits', 'get');
  });

  test.each([
    ['free', 'msk_test_free', 1],
    ['pro', 'msk_test_pro', 1],
    ['max', 'msk_test_max', 1],
  ] as const)("the %s plan's active-key limit: creating one beyond it answers 403; revoking one frees a place", async (plan, key, seededActive) => {
    const limit = planQuotas[plan].api_keys!;
    const ids: string[] = [];
    for (let i = seededActive; i < limit; i++) ids.push(answered(await mail.key(key).POST('/v1/keys', { body: { name: `Key ${i}` } }), 201, '/v1/keys', 'post').data.id);
    const refused = answered(await mail.key(key).POST('/v1/keys', { body: { name: 'One too many' } }), 403, '/v1/keys', 'post');
    expect(refused.error).toMatch(/limit/);
    const limits = answered(await mail.key(key).GET('/v1/plan-limits'), 200, '/v1/plan-limits', 'get');
    expect(limits.data.usage.api_keys).toBe(limit);
    answered(await mail.key(key).DELETE('/v1/keys', { params: { query: { id: ids[0]! } } }), 200, '/v1/keys', 'delete');
    answered(await mail.key(key).POST('/v1/keys', { body: { name: 'In the freed place' } }), 201, '/v1/keys', 'post');
  });

  test('the limits are those of DECISIONS mail-1: Free 2, Pro 5, Max 20', () => {
    expect([planQuotas.free.api_keys, planQuotas.pro.api_keys, planQuotas.max.api_keys]).toEqual([2, 5, 20]);
  });
});

describe('allowed_account_id', () => {
  test("a key restricted to one of the user's accounts carries the restriction", async () => {
    const accounts = answered(await mail.session('sess_test_max').GET('/accounts'), 200, '/accounts', 'get');
    const accountId = accounts.data[0].id;
    const created = answered(await mail.key('msk_test_max').POST('/v1/keys', { body: { name: 'Support desk', allowed_account_id: accountId } }), 201, '/v1/keys', 'post');
    expect(created.data.allowed_account_id).toBe(accountId);
    expect(mail.app.identity.findKey(created.data.key)?.allowedAccountId).toBe(accountId);
  });

  test("an account of another user, or none, answers 400 naming the field", async () => {
    const theirs = answered(await mail.session('sess_test_pro').GET('/accounts'), 200, '/accounts', 'get').data[0].id;
    for (const id of [theirs, '0f0e0d0c-0b0a-4909-8807-060504030201']) {
      const refused = answered(await mail.key('msk_test_max').POST('/v1/keys', { body: { name: 'Nope', allowed_account_id: id } }), 400, '/v1/keys', 'post');
      expect(refused.details.fieldErrors.allowed_account_id).toEqual(['Account not found']);
    }
  });
});

describe('OAuth tokens are limited to their granted scopes', () => {
  const token = 'msk_test_oauth_send'; // seeded: the Max user's token granted only `send`

  test('beyond the scopes: 403 naming the missing scope', async () => {
    const limits = answered(await mail.key(token).GET('/v1/plan-limits'), 403, '/v1/plan-limits', 'get');
    expect(limits.error).toMatch(/scope read\b/);
    const checkout = answered(
      await mail.key(token).POST('/billing/checkout', { body: { plan: 'max', success_url: 'https://app.example.com/ok', cancel_url: 'https://app.example.com/no' } }),
      403,
      '/billing/checkout',
      'post',
    );
    expect(checkout.error).toMatch(/scope write\b/);
  });

  test('no scope grants key management: 403', async () => {
    const refused = answered(await mail.key(token).GET('/v1/keys'), 403, '/v1/keys', 'get');
    expect(refused.error).toMatch(/Insufficient scope/);
    answered(await mail.key(token).POST('/v1/keys', { body: { name: 'Escalation' } }), 403, '/v1/keys', 'post');
  });

  test('within the scopes the token passes authentication (the send itself lands with part 3)', async () => {
    const response = await fetch(`${mail.baseUrl}/v1/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ from: { email: 'max@example.com' }, to: [{ email: 'ada@example.com' }], subject: 'Hi', text: 'Hi' }),
    });
    expect([401, 403]).not.toContain(response.status);
  });

  test('a token issued through the store carries its scopes and expires after 90 days', async () => {
    const { raw } = mail.app.identity.issueKey({ userId: 'usr_pro', name: 'CRM', kind: 'oauth', scopes: ['read'], ttlSeconds: oauthTokenTtlSeconds });
    const listed = answered(await mail.key('msk_test_pro').GET('/v1/keys'), 200, '/v1/keys', 'get').data.find((k: { source: string }) => k.source === 'oauth');
    expect(listed).toMatchObject({ scopes: ['read'], expires_at: new Date(mail.clock.now() + oauthTokenTtlSeconds * 1000).toISOString() });
    answered(await mail.key(raw).GET('/v1/plan-limits'), 200, '/v1/plan-limits', 'get');
    mail.clock.advance(oauthTokenTtlSeconds * 1000 - 1);
    answered(await mail.key(raw).GET('/v1/plan-limits'), 200, '/v1/plan-limits', 'get');
    mail.clock.advance(1);
    const expired = answered(await mail.key(raw).GET('/v1/plan-limits'), 401, '/v1/plan-limits', 'get');
    expect(expired.error).toBe('API key has expired');
  });

  test('revoking a grant revokes every token issued from it, at once', async () => {
    const a = mail.app.identity.issueKey({ userId: 'usr_max', name: 'CRM', kind: 'oauth', scopes: ['read'], grantId: 'code-1' });
    const b = mail.app.identity.issueKey({ userId: 'usr_max', name: 'CRM', kind: 'oauth', scopes: ['read'], grantId: 'code-2' });
    mail.app.identity.revokeGrant('code-1');
    answered(await mail.key(a.raw).GET('/v1/plan-limits'), 401, '/v1/plan-limits', 'get');
    answered(await mail.key(b.raw).GET('/v1/plan-limits'), 200, '/v1/plan-limits', 'get');
  });
});

describe('act-as-user', () => {
  // No route issues internal keys: the store itself refuses the scope anywhere else.
  test('only internal keys may hold it', () => {
    const store = new IdentityStore(new StateStore(createManualClock()));
    expect(() => store.issueKey({ userId: 'usr_max', name: 'x', kind: 'oauth', scopes: ['act-as-user'] })).toThrow(/internal/);
    expect(() => store.issueKey({ userId: 'usr_max', name: 'x', kind: 'dashboard', scopes: ['act-as-user'] })).toThrow(/internal/);
    expect(store.issueKey({ userId: 'usr_max', name: 'x', kind: 'internal', scopes: ['act-as-user'] }).record.scopes).toEqual(['act-as-user']);
  });

  test('internal keys are not listed and cannot be revoked through key management', async () => {
    const { record } = mail.app.identity.issueKey({ userId: 'usr_max', name: 'Internal', kind: 'internal', scopes: ['act-as-user'] });
    const list = answered(await mail.key('msk_test_max').GET('/v1/keys', { params: { query: { limit: 100 } } }), 200, '/v1/keys', 'get');
    expect(list.data.map((k: { id: string }) => k.id)).not.toContain(record.id);
    answered(await mail.key('msk_test_max').DELETE('/v1/keys', { params: { query: { id: record.id } } }), 404, '/v1/keys', 'delete');
  });
});
