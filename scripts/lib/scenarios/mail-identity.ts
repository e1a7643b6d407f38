/**
 * The identity part of the mail scenario: API keys, accounts, plan and billing, sign-in and
 * sign-out, with the refusals their handlers decide (key limit, scopes, seeded fixtures, unknown
 * ids, tokens that do not verify).
 */
import assert from 'node:assert/strict';
import { SignJWT, importJWK } from 'jose';
import { createMailClient } from '../../../generated/mail/client.gen.js';
import { developmentSsoAudience, developmentSsoIssuer, developmentSsoSigningKey } from '../../../server-stubs/mail/identity/sso.js';
import { notJson, sendOnly, unknownId, type MailFixture, type MailScenarioPart } from './mail-fixture.js';
import { outcomeOf, required, type ScenarioContext, transportOf } from './scenario.js';

/** An OAuth token of the seeded Max user granted only `send` (DECISIONS mail-1 seeds, designed). */

const anonymous = (f: MailFixture) => createMailClient({ baseUrl: f.ctx.baseUrl, fetch: transportOf(f.ctx) });

/** A token of the development identity provider (its published test key), as a provider would sign it. */
export async function developmentSsoToken(claims: { email: string; name?: string }, now = Date.now()): Promise<string> {
  const key = await importJWK(developmentSsoSigningKey, 'ES256');
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: developmentSsoSigningKey.kid })
    .setIssuer(developmentSsoIssuer)
    .setAudience(developmentSsoAudience)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(now / 1000) + 600)
    .sign(key);
}

/** Signs in through the development login and answers the `session` cookie value. */
export async function devLogin(ctx: ScenarioContext, userId: string, returnTo?: string): Promise<{ response: Response; session?: string }> {
  const form = new URLSearchParams({ user_id: userId, ...(returnTo && { return_to: returnTo }) });
  const response = await transportOf(ctx)(`${ctx.baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
    redirect: 'manual',
  });
  await response.body?.cancel();
  const session = /(?:^|,\s*)session=([^;,]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
  return { response, session };
}

async function newKey(f: MailFixture, name: string, via: 'api' | 'dashboard' = 'api'): Promise<string> {
  return required(`create the key "${name}"`, await f[via].POST('/v1/keys', { body: { name } }), 201).data.id;
}

async function newAccount(f: MailFixture, name: string): Promise<string> {
  return required(`create the account "${name}"`, await f.dashboard.POST('/accounts', { body: { name, email: 'sender@example.com' } }), 201).data.id;
}


/** The server's time for a token's expiry: the stubs' clock (`GET /_stub/clock`) may be ahead of real time; elsewhere real time. */
async function serverNow(f: MailFixture): Promise<number> {
  const response = await fetch(`${new URL(f.ctx.baseUrl).origin}/_stub/clock`).catch(() => undefined);
  const state = response?.ok ? ((await response.json()) as { now?: string }) : undefined;
  if (response && !response.ok) await response.body?.cancel();
  return Date.parse(state?.now ?? '') || Date.now();
}

export const mailIdentityPart: MailScenarioPart = {
  async setup(f) {
    f.made.listedKey = await newKey(f, 'Scenario listed key');
    f.made.account = await newAccount(f, 'Scenario sender');
  },

  calls: {
    listApiKeys: async ({ api }) => outcomeOf(await api.GET('/v1/keys', { params: { query: { page: 1, limit: 100 } } })),
    createApiKey: async ({ api, made }) => outcomeOf(await api.POST('/v1/keys', { body: { name: 'Restricted scenario key', allowed_account_id: made.account! } })),
    revokeApiKey: async (f) => {
      const id = await newKey(f, 'To revoke');
      return outcomeOf(await f.api.DELETE('/v1/keys', { params: { query: { id } } }));
    },
    revokeApiKeyFromDashboard: async (f) => {
      const id = await newKey(f, 'To revoke from the dashboard', 'dashboard');
      return outcomeOf(await f.dashboard.DELETE('/api/v1/keys', { params: { query: { id } } }));
    },
    listAccounts: async ({ dashboard }) => outcomeOf(await dashboard.GET('/accounts', { params: { query: { page: 1, limit: 100 } } })),
    createAccount: async ({ dashboard }) => outcomeOf(await dashboard.POST('/accounts', { body: { name: 'Created sender', email: 'created@example.com' } })),
    updateAccount: async ({ dashboard, made }) => outcomeOf(await dashboard.PATCH('/accounts', { params: { query: { id: made.account! } }, body: { name: 'Renamed sender' } })),
    deleteAccount: async (f) => {
      const id = await newAccount(f, 'To delete');
      return outcomeOf(await f.dashboard.DELETE('/accounts', { params: { query: { id } } }));
    },
    getPlanLimits: async ({ api }) => outcomeOf(await api.GET('/v1/plan-limits')),
    getSubscription: async ({ api }) => outcomeOf(await api.GET('/billing/subscription')),
    createCheckoutSession: async ({ api }) =>
      outcomeOf(await api.POST('/billing/checkout', { body: { plan: 'pro', success_url: 'https://app.example.com/billing/done', cancel_url: 'https://app.example.com/billing' } })),
    // HTML: the page itself is checked by the identity tests; here its status.
    showLoginPage: async ({ ctx }) => {
      const response = await transportOf(ctx)(`${ctx.baseUrl}/api/auth/login?return_to=${encodeURIComponent('/mail/api/auth/login')}`);
      await response.body?.cancel();
      return { status: response.status };
    },
    logInAsUser: async ({ ctx }) => ({ status: (await devLogin(ctx, 'usr_pro')).response.status }),
    exchangeSsoToken: async (f) => {
      const token = await developmentSsoToken({ email: 'max@example.com' }, await serverNow(f));
      return outcomeOf(await anonymous(f).POST('/api/auth/sso', { body: { token } }));
    },
    logOut: async (f) => {
      const { session } = await devLogin(f.ctx, 'usr_pro');
      return outcomeOf(await createMailClient({ baseUrl: f.ctx.baseUrl, headers: { cookie: `session=${session}` }, fetch: transportOf(f.ctx) }).POST('/api/auth/logout'));
    },
  },

  expectations: {
    listApiKeys: (b, f) => {
      assert.ok(b.data.some((k: { id: string }) => k.id === f.made.listedKey), 'the list holds the key created');
      assert.ok(b.data.every((k: Record<string, unknown>) => !('key' in k)), 'a list never shows the raw key');
    },
    createApiKey: (b, f) => {
      assert.match(b.data.key, /^msk_/);
      assert.ok(b.data.key.startsWith(b.data.prefix) && b.data.key.endsWith(b.data.last_four), 'prefix and last_four are the raw key\'s');
      assert.deepEqual({ source: b.data.source, scopes: b.data.scopes, allowed: b.data.allowed_account_id }, { source: 'dashboard', scopes: [], allowed: f.made.account });
    },
    revokeApiKey: (b) => assert.deepEqual(b, { success: true }),
    revokeApiKeyFromDashboard: (b) => assert.deepEqual(b, { success: true }),
    listAccounts: (b, f) => assert.ok(b.data.some((a: { id: string }) => a.id === f.made.account), 'the list holds the account created'),
    createAccount: (b) => assert.deepEqual({ name: b.data.name, email: b.data.email }, { name: 'Created sender', email: 'created@example.com' }),
    updateAccount: (b, f) => assert.deepEqual({ id: b.data.id, name: b.data.name }, { id: f.made.account, name: 'Renamed sender' }),
    deleteAccount: (b) => assert.deepEqual(b, { success: true }),
    getPlanLimits: (b) => {
      assert.equal(b.data.plan, 'max');
      assert.equal(b.data.features.whatsapp, true);
    },
    getSubscription: (b) => assert.equal(b.data.plan, 'max'),
    createCheckoutSession: (b) => assert.match(b.data.checkout_url, /^https:\/\//),
    exchangeSsoToken: (b) => assert.equal(b.data.user.email, 'max@example.com'),
    logOut: (b) => assert.deepEqual(b, { success: true }),
  },

  refusals: [
    {
      id: 'createApiKey',
      status: 403,
      why: 'a key beyond the plan\'s active-key limit is refused (Free: 2)',
      call: async (f) => {
        const { session } = await devLogin(f.ctx, 'usr_free');
        const free = createMailClient({ baseUrl: f.ctx.baseUrl, headers: { cookie: `session=${session}` }, fetch: transportOf(f.ctx) });
        let result = await free.POST('/v1/keys', { body: { name: 'Up to the limit' } });
        for (let i = 0; i < 25 && result.response.status === 201; i++) result = await free.POST('/v1/keys', { body: { name: 'Up to the limit' } });
        return outcomeOf(result);
      },
    },
    { id: 'createApiKey', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/keys', f.ctx.headers) },
    { id: 'listApiKeys', status: 400, why: 'a page size over 100', call: async (f) => outcomeOf(await f.api.GET('/v1/keys', { params: { query: { limit: 101 } } })) },
    { id: 'listAccounts', status: 400, why: 'a page size over 100', call: async (f) => outcomeOf(await f.dashboard.GET('/accounts', { params: { query: { limit: 101 } } })) },
    { id: 'listApiKeys', status: 403, why: 'an OAuth token manages no keys', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/keys')) },
    { id: 'revokeApiKey', status: 403, why: 'an OAuth token manages no keys', call: async (f) => outcomeOf(await sendOnly(f).DELETE('/v1/keys', { params: { query: { id: unknownId } } })) },
    { id: 'revokeApiKey', status: 404, why: 'the user has no key with that id', call: async (f) => outcomeOf(await f.api.DELETE('/v1/keys', { params: { query: { id: unknownId } } })) },
    {
      id: 'revokeApiKeyFromDashboard',
      status: 403,
      why: 'an OAuth token manages no keys',
      call: async (f) => outcomeOf(await sendOnly(f).DELETE('/api/v1/keys', { params: { query: { id: unknownId } } })),
    },
    {
      id: 'revokeApiKeyFromDashboard',
      status: 404,
      why: 'the user has no key with that id',
      call: async (f) => outcomeOf(await f.dashboard.DELETE('/api/v1/keys', { params: { query: { id: unknownId } } })),
    },
    { id: 'updateAccount', status: 404, why: 'no account with that id', call: async (f) => outcomeOf(await f.dashboard.PATCH('/accounts', { params: { query: { id: unknownId } }, body: { name: 'Nobody' } })) },
    { id: 'deleteAccount', status: 404, why: 'no account with that id', call: async (f) => outcomeOf(await f.dashboard.DELETE('/accounts', { params: { query: { id: unknownId } } })) },
    { id: 'getPlanLimits', status: 403, why: 'a token without the read scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/plan-limits')) },
    { id: 'getSubscription', status: 403, why: 'a token without the read scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/billing/subscription')) },
    {
      id: 'createCheckoutSession',
      status: 403,
      why: 'a token without the write scope',
      call: async (f) =>
        outcomeOf(await sendOnly(f).POST('/billing/checkout', { body: { plan: 'max', success_url: 'https://app.example.com/done', cancel_url: 'https://app.example.com/billing' } })),
    },
    { id: 'createCheckoutSession', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/billing/checkout', f.ctx.headers) },
    {
      id: 'showLoginPage',
      status: 400,
      why: 'return_to must be a relative path (no open redirect)',
      call: async (f) => {
        const response = await transportOf(f.ctx)(`${f.ctx.baseUrl}/api/auth/login?return_to=${encodeURIComponent('//evil.example/')}`);
        return { status: response.status, body: await response.json() };
      },
    },
    {
      id: 'logInAsUser',
      status: 400,
      why: 'an unknown user',
      call: async (f) => {
        const response = await transportOf(f.ctx)(`${f.ctx.baseUrl}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'user_id=usr_nobody', redirect: 'manual' });
        return { status: response.status, body: await response.json() };
      },
    },
    { id: 'exchangeSsoToken', status: 400, why: 'a token that does not verify', call: async (f) => outcomeOf(await anonymous(f).POST('/api/auth/sso', { body: { token: 'not.a.jwt' } })) },
    { id: 'exchangeSsoToken', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/api/auth/sso', {}) },
  ],
};
