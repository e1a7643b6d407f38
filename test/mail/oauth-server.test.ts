/**
 * The mail service's OAuth 2.0 authorization server, rule by rule, through HTTP: metadata
 * (RFC 8414), registration (RFC 7591), authorize and consent, the token endpoint (RFC 6749, PKCE
 * S256), revocation (RFC 7009) and the tokens' use on /v1 routes. Time rules run on a manual clock.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  authorizeUrl,
  bearer,
  CALLBACK,
  call,
  consentFields,
  contract,
  decide,
  expectOAuthError,
  expectRefusalPage,
  pkce,
  postForm,
  postJson,
  register,
  SESSION,
  startMail,
  tokenFor,
  type MailStub,
} from './oauth-support.js';

let mail: MailStub;
let base = '';
beforeAll(async () => {
  mail = await startMail();
  base = mail.baseUrl;
});
afterAll(() => mail.close());

const REGISTER = { path: '/api/oauth/register', method: 'post' };
const AUTHORIZE = { path: '/api/oauth/authorize', method: 'get' };
const DECIDE = { path: '/api/oauth/authorize', method: 'post' };
const TOKEN = { path: '/api/oauth/token', method: 'post' };
const REVOKE = { path: '/api/oauth/revoke', method: 'post' };

describe('metadata (RFC 8414)', () => {
  test('the issuer and every endpoint follow the base URL the caller used', async () => {
    const viaIp = await call(`${base}/.well-known/oauth-authorization-server`);
    expect(viaIp.status).toBe(200);
    expect(contract.responseErrors('/.well-known/oauth-authorization-server', 'get', '200', viaIp.json)).toEqual([]);
    expect(viaIp.json.issuer).toBe(base);
    expect(viaIp.json.token_endpoint).toBe(`${base}/api/oauth/token`);
    expect(viaIp.json.code_challenge_methods_supported).toEqual(['S256']);
    const viaName = await call(`${base.replace('127.0.0.1', 'localhost')}/.well-known/oauth-authorization-server`);
    expect(viaName.json.issuer).toBe(base.replace('127.0.0.1', 'localhost'));
    expect(viaName.json.authorization_endpoint).toBe(`${base.replace('127.0.0.1', 'localhost')}/api/oauth/authorize`);
  });
});

describe('metadata rate limit (designed: 120 per 60 s per caller)', () => {
  test('the 121st request in a window answers 429 temporarily_unavailable with Retry-After; the next window is open', async () => {
    const own = await startMail();
    try {
      const url = `${own.baseUrl}/.well-known/oauth-authorization-server`;
      for (let i = 0; i < 120; i += 1) expect((await call(url)).status).toBe(200);
      const limited = await call(url);
      expectOAuthError(limited, 429, 'temporarily_unavailable', { path: '/.well-known/oauth-authorization-server', method: 'get' });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      own.clock.advance(60_000);
      expect((await call(url)).status).toBe(200);
    } finally {
      await own.close();
    }
  });
});

describe('registration (RFC 7591)', () => {
  test('issues dyn_ + 32 hex, applies the defaults, never a secret, and ignores unknown metadata', async () => {
    const answer = await postJson(`${base}/api/oauth/register`, { redirect_uris: [CALLBACK], software_id: 'ignored', client_name: 'Tool' });
    expect(answer.status, answer.text).toBe(201);
    expect(contract.responseErrors(REGISTER.path, 'post', '201', answer.json)).toEqual([]);
    expect(answer.json.client_id).toMatch(/^dyn_[0-9a-f]{32}$/);
    expect(answer.json).toMatchObject({ grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none', client_name: 'Tool' });
    expect(answer.json).not.toHaveProperty('client_secret');
    expect(answer.json).not.toHaveProperty('software_id');
    const other = await register(base);
    expect(other.client_id).not.toBe(answer.json.client_id);
    // Both published fields are always answered: a client that registered neither gets its id as its name and every scope.
    const bare = await postJson(`${base}/api/oauth/register`, { redirect_uris: [CALLBACK] });
    expect(contract.responseErrors(REGISTER.path, 'post', '201', bare.json)).toEqual([]);
    expect(bare.json).toMatchObject({ client_name: bare.json.client_id, scope: 'read write send send:transactional send:marketing contacts' });
  });

  test.each([
    ['https', 'https://crm.example.com/oauth/callback'],
    ['http on localhost', 'http://localhost:8080/cb'],
    ['http on 127.0.0.1', 'http://127.0.0.1/cb'],
  ])('accepts a %s redirect URI', async (_name, uri) => {
    const answer = await postJson(`${base}/api/oauth/register`, { redirect_uris: [uri] });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.json.redirect_uris).toEqual([uri]);
  });

  test.each([
    ['http for another host', ['http://crm.example.com/cb']],
    ['a fragment (RFC 6749 §3.1.2)', ['https://crm.example.com/cb#done']],
    ['a fragment on a loopback URI', ['http://127.0.0.1:8080/cb#x']],
    ['no redirect URI at all', undefined],
    ['an empty list', []],
    ['a relative URI', ['/callback']],
  ])('refuses %s with invalid_redirect_uri', async (_name, uris) => {
    const answer = await postJson(`${base}/api/oauth/register`, { client_name: 'X', ...(uris && { redirect_uris: uris }) });
    expectOAuthError(answer, 400, 'invalid_redirect_uri', REGISTER);
  });

  test.each([
    ['a logo_uri that is not HTTPS', { logo_uri: 'http://crm.example.com/logo.png' }],
    ['a client_uri that is not HTTPS', { client_uri: 'http://crm.example.com' }],
    ['another grant type', { grant_types: ['authorization_code', 'client_credentials'] }],
    ['another response type', { response_types: ['token'] }],
    ['an unsupported scope', { scope: 'read admin' }],
    ['a client secret authentication method', { token_endpoint_auth_method: 'client_secret_basic' }],
  ])('refuses %s with invalid_client_metadata', async (_name, metadata) => {
    const answer = await postJson(`${base}/api/oauth/register`, { redirect_uris: [CALLBACK], ...metadata });
    expectOAuthError(answer, 400, 'invalid_client_metadata', REGISTER);
  });

  test('a body that is not JSON is invalid_request', async () => {
    const answer = await call(`${base}/api/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"redirect_uris":' });
    expectOAuthError(answer, 400, 'invalid_request', REGISTER);
  });
});

describe('authorize', () => {
  test('shows a logged-in user the consent page: client name, logo, scopes, Approve and Deny, not frameable', async () => {
    const client = await register(base, { client_name: 'Example <CRM>', logo_uri: 'https://crm.example.com/logo.png', scope: 'read send' });
    const page = await call(authorizeUrl(base, { client_id: client.client_id, scope: 'read send', state: 'xyz' }), { headers: { cookie: `session=${SESSION}` } });
    expect(page.status, page.text).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('Example &lt;CRM&gt; wants to access your account');
    expect(page.text).toContain('<img src="https://crm.example.com/logo.png"');
    expect(page.text).toContain('<li>read</li><li>send</li>');
    expect(page.text).toMatch(/<button type="submit" name="decision" value="approve">Approve<\/button>/);
    expect(page.text).toMatch(/<button type="submit" name="decision" value="deny">Deny<\/button>/);
    expect(page.text).toContain('max@example.com');
    expect(page.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(consentFields(page.text)).toMatchObject({ client_id: client.client_id, redirect_uri: CALLBACK, scope: 'read send', state: 'xyz' });
  });

  test('the default scope is read', async () => {
    const client = await register(base);
    const page = await call(authorizeUrl(base, { client_id: client.client_id }), { headers: { cookie: `session=${SESSION}` } });
    expect(consentFields(page.text).scope).toBe('read');
  });

  test('a browser without a session is sent to the login page, which will bring it back here', async () => {
    const client = await register(base);
    const url = authorizeUrl(base, { client_id: client.client_id, state: 's1' });
    const answer = await call(url, { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(`${base}/api/auth/login`);
    const returnTo = location.searchParams.get('return_to')!;
    expect(returnTo.startsWith('/mail/api/oauth/authorize?')).toBe(true);
    expect(`${mail.origin}${returnTo}`).toBe(url);
  });

  test('a caller without a session that is not a browser gets 401, and an unknown session counts as none', async () => {
    const client = await register(base);
    expectOAuthError(await call(authorizeUrl(base, { client_id: client.client_id }), { headers: { accept: 'application/json' } }), 401, 'access_denied', AUTHORIZE);
    expectOAuthError(await call(authorizeUrl(base, { client_id: client.client_id }), { headers: { cookie: 'session=sess_forged' } }), 401, 'access_denied', AUTHORIZE);
  });

  test('an unknown client is refused with 400 and never redirected: a page for a browser, the OAuth body for an API caller', async () => {
    const url = authorizeUrl(base, { client_id: `dyn_${'0'.repeat(32)}` });
    expectRefusalPage(await call(url, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', cookie: `session=${SESSION}` } }), 'invalid_client');
    expectRefusalPage(await call(url, { headers: { accept: 'text/html' } }), 'invalid_client');
    const answer = await call(url, { headers: { accept: 'application/json', cookie: `session=${SESSION}` } });
    expectOAuthError(answer, 400, 'invalid_client', AUTHORIZE);
    expect(answer.headers.get('location')).toBeNull();
  });

  test.each([
    ['another path', 'http://127.0.0.1:53682/other'],
    ['a trailing slash', `${CALLBACK}/`],
    ['an added query', `${CALLBACK}?x=1`],
    ['another port', 'http://127.0.0.1:53683/callback'],
    ['localhost for 127.0.0.1', 'http://localhost:53682/callback'],
  ])('a redirect URI differing by %s is refused with 400 and never redirected', async (_name, redirectUri) => {
    const client = await register(base);
    const url = authorizeUrl(base, { client_id: client.client_id, redirect_uri: redirectUri });
    expectRefusalPage(await call(url, { headers: { accept: 'text/html', cookie: `session=${SESSION}` } }), 'invalid_request');
    const answer = await call(url, { headers: { cookie: `session=${SESSION}` } });
    expectOAuthError(answer, 400, 'invalid_request', AUTHORIZE);
    expect(answer.headers.get('location')).toBeNull();
  });

  test.each([
    ['response_type token', { response_type: 'token' }, 'invalid_request'],
    ['code_challenge_method plain', { code_challenge_method: 'plain', code_challenge: pkce().challenge }, 'invalid_request'],
    ['a malformed code_challenge', { code_challenge: 'short' }, 'invalid_request'],
    ['an unsupported scope', { scope: 'read admin' }, 'invalid_scope'],
  ])('refuses %s with 400', async (_name, params, error) => {
    const client = await register(base);
    const answer = await call(authorizeUrl(base, { client_id: client.client_id, ...params }), { headers: { cookie: `session=${SESSION}` } });
    expectOAuthError(answer, 400, error, AUTHORIZE);
    expect(answer.headers.get('location')).toBeNull();
  });

  test('a scope beyond the ones the client registered is refused', async () => {
    const client = await register(base, { scope: 'read' });
    const answer = await call(authorizeUrl(base, { client_id: client.client_id, scope: 'read send' }), { headers: { cookie: `session=${SESSION}` } });
    expectOAuthError(answer, 400, 'invalid_scope', AUTHORIZE);
  });
});

describe('consent decision', () => {
  test('approve redirects with a code and the state unchanged; deny with access_denied and the state', async () => {
    const client = await register(base);
    const state = 'a b&c=d/é';
    const approved = await decide(base, { client_id: client.client_id, state, code_challenge: pkce().challenge }, 'approve');
    expect(`${approved.origin}${approved.pathname}`).toBe(CALLBACK);
    expect(approved.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(approved.searchParams.get('state')).toBe(state);
    const denied = await decide(base, { client_id: client.client_id, state }, 'deny');
    expect([...denied.searchParams.keys()].sort()).toEqual(['error', 'state']);
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('state')).toBe(state);
  });

  test('without a state the callback carries none; a query of the redirect URI is kept', async () => {
    const withQuery = 'https://crm.example.com/cb?tenant=7';
    const client = await register(base, { redirect_uris: [withQuery] });
    const approved = await decide(base, { client_id: client.client_id, redirect_uri: withQuery }, 'approve');
    expect(approved.searchParams.has('state')).toBe(false);
    expect(approved.searchParams.get('tenant')).toBe('7');
  });

  test('a missing, wrong or other session\'s anti-forgery token issues nothing', async () => {
    const client = await register(base);
    const page = await call(authorizeUrl(base, { client_id: client.client_id }), { headers: { cookie: `session=${SESSION}` } });
    const fields = consentFields(page.text);
    const post = (token: string, session: string) =>
      postForm(`${base}/api/oauth/authorize`, { ...fields, csrf_token: token, decision: 'approve' }, { cookie: `session=${session}` });
    expectOAuthError(await post('forged', SESSION), 400, 'invalid_request', DECIDE);
    // The page the Pro user saw does not authorize the Max user's decision, nor the other way round.
    const proPage = await call(authorizeUrl(base, { client_id: client.client_id }), { headers: { cookie: 'session=sess_test_pro' } });
    expectOAuthError(await post(consentFields(proPage.text).csrf_token!, SESSION), 400, 'invalid_request', DECIDE);
    const missing = await postForm(`${base}/api/oauth/authorize`, { ...fields, csrf_token: undefined, decision: 'approve' }, { cookie: `session=${SESSION}` });
    expectOAuthError(missing, 400, 'invalid_request', DECIDE);
  });

  test('the decision needs the session', async () => {
    const client = await register(base);
    const page = await call(authorizeUrl(base, { client_id: client.client_id }), { headers: { cookie: `session=${SESSION}` } });
    const answer = await postForm(`${base}/api/oauth/authorize`, { ...consentFields(page.text), decision: 'approve' });
    expectOAuthError(answer, 401, 'access_denied', DECIDE);
  });

  test('client and redirect URI are checked again on the decision', async () => {
    const client = await register(base);
    const page = await call(authorizeUrl(base, { client_id: client.client_id }), { headers: { cookie: `session=${SESSION}` } });
    const fields = consentFields(page.text);
    const tampered = await postForm(`${base}/api/oauth/authorize`, { ...fields, redirect_uri: 'https://evil.example/cb', decision: 'approve' }, { cookie: `session=${SESSION}` });
    expectOAuthError(tampered, 400, 'invalid_request', DECIDE);
    expect(tampered.headers.get('location')).toBeNull();
  });
});

describe('token endpoint', () => {
  async function approvedCode(scope = 'read', withPkce = true) {
    const client = await register(base);
    const { verifier, challenge } = pkce();
    const callbackUrl = await decide(base, { client_id: client.client_id, scope, ...(withPkce && { code_challenge: challenge }) }, 'approve');
    return { client, verifier, challenge, code: callbackUrl.searchParams.get('code')! };
  }
  const exchange = (fields: Record<string, string | undefined>) => postForm(`${base}/api/oauth/token`, { grant_type: 'authorization_code', redirect_uri: CALLBACK, ...fields });

  test('a form exchange answers an msk_ token for 7776000 s with the granted scope, never cached', async () => {
    const { client, verifier, code } = await approvedCode('read send');
    const answer = await exchange({ code, client_id: client.client_id, code_verifier: verifier });
    expect(answer.status, answer.text).toBe(200);
    expect(contract.responseErrors(TOKEN.path, 'post', '200', answer.json)).toEqual([]);
    expect(answer.json).toMatchObject({ token_type: 'bearer', expires_in: 7776000, scope: 'read send' });
    expect(answer.json.access_token).toMatch(/^msk_/);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('pragma')).toBe('no-cache');
  });

  test('JSON is accepted with the same fields, and unknown parameters are ignored (RFC 6749 §3.2)', async () => {
    const { client, verifier, code } = await approvedCode();
    const answer = await postJson(`${base}/api/oauth/token`, {
      grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: client.client_id, code_verifier: verifier, resource: 'https://api.example.com', audience: 'x',
    });
    expect(answer.status, answer.text).toBe(200);
    const second = await approvedCode();
    const form = await exchange({ code: second.code, client_id: second.client.client_id, code_verifier: second.verifier, resource: 'https://api.example.com' });
    expect(form.status, form.text).toBe(200);
  });

  test('an empty code_verifier counts as omitted: fine without a challenge, refused with one', async () => {
    const plain = await approvedCode('read', false);
    expect((await exchange({ code: plain.code, client_id: plain.client.client_id, code_verifier: '' })).status).toBe(200);
    const pkced = await approvedCode();
    expectOAuthError(await exchange({ code: pkced.code, client_id: pkced.client.client_id, code_verifier: '' }), 400, 'invalid_grant', TOKEN);
  });

  test('PKCE S256: a wrong or missing verifier is invalid_grant, and so is a verifier without a challenge', async () => {
    const { client, challenge, code } = await approvedCode();
    expectOAuthError(await exchange({ code, client_id: client.client_id, code_verifier: pkce().verifier }), 400, 'invalid_grant', TOKEN);
    expectOAuthError(await exchange({ code, client_id: client.client_id }), 400, 'invalid_grant', TOKEN);
    // What the plain method would accept, the challenge itself, is no verifier under S256.
    expectOAuthError(await exchange({ code, client_id: client.client_id, code_verifier: challenge }), 400, 'invalid_grant', TOKEN);
    const downgrade = await approvedCode('read', false);
    expectOAuthError(await exchange({ code: downgrade.code, client_id: downgrade.client.client_id, code_verifier: pkce().verifier }), 400, 'invalid_grant', TOKEN);
  });

  test('redirect_uri and client_id must be the ones of the authorization request', async () => {
    const { client, verifier, code } = await approvedCode();
    const other = await register(base);
    expectOAuthError(await exchange({ code, client_id: client.client_id, code_verifier: verifier, redirect_uri: 'http://127.0.0.1:53682/other' }), 400, 'invalid_grant', TOKEN);
    expectOAuthError(await exchange({ code, client_id: other.client_id, code_verifier: verifier }), 400, 'invalid_client', TOKEN);
    expectOAuthError(await exchange({ code, client_id: `dyn_${'f'.repeat(32)}`, code_verifier: verifier }), 400, 'invalid_client', TOKEN);
    // None of the refusals used the code up.
    expect((await exchange({ code, client_id: client.client_id, code_verifier: verifier })).status).toBe(200);
  });

  test('a code lives 10 minutes', async () => {
    const fresh = await approvedCode();
    mail.clock.advance(10 * 60 * 1000 - 1000);
    expect((await exchange({ code: fresh.code, client_id: fresh.client.client_id, code_verifier: fresh.verifier })).status).toBe(200);
    const stale = await approvedCode();
    mail.clock.advance(10 * 60 * 1000);
    expectOAuthError(await exchange({ code: stale.code, client_id: stale.client.client_id, code_verifier: stale.verifier }), 400, 'invalid_grant', TOKEN);
  });

  test('a code is single-use: a second use is invalid_grant and revokes the token the first use issued', async () => {
    const { client, verifier, code } = await approvedCode('read');
    const first = await exchange({ code, client_id: client.client_id, code_verifier: verifier });
    expect(first.status).toBe(200);
    const token = first.json.access_token as string;
    expect((await call(`${base}/v1/plan-limits`, { headers: bearer(token) })).status).not.toBe(401);
    expectOAuthError(await exchange({ code, client_id: client.client_id, code_verifier: verifier }), 400, 'invalid_grant', TOKEN);
    expect((await call(`${base}/v1/plan-limits`, { headers: bearer(token) })).status).toBe(401);
  });

  test.each([
    ['another grant type', { grant_type: 'client_credentials', code: 'x', client_id: `dyn_${'a'.repeat(32)}` }, 'unsupported_grant_type'],
    ['no code', { client_id: `dyn_${'a'.repeat(32)}` }, 'invalid_request'],
    ['no client_id', { code: 'x' }, 'invalid_request'],
  ])('%s is refused', async (_name, fields, error) => {
    expectOAuthError(await exchange(fields), 400, error, TOKEN);
  });

  test('an unknown code of a known client is invalid_grant', async () => {
    const client = await register(base);
    expectOAuthError(await exchange({ code: 'never-issued', client_id: client.client_id }), 400, 'invalid_grant', TOKEN);
  });
});

describe('issued tokens', () => {
  test('work on /v1 routes within the granted scopes and get 403 naming the missing scope beyond them', async () => {
    const client = await register(base);
    const { access_token } = await tokenFor(base, { client_id: client.client_id, scope: 'read' });
    const read = await call(`${base}/v1/plan-limits`, { headers: bearer(access_token) });
    expect([401, 403]).not.toContain(read.status);
    const write = await postJson(`${base}/v1/aliases`, { alias: 'x@example.com', destination: 'y@example.com' }, bearer(access_token));
    expect(write.status, write.text).toBe(403);
    expect(write.json.error).toMatch(/write/);
  });

  test('expire after 90 days', async () => {
    const client = await register(base);
    const { access_token } = await tokenFor(base, { client_id: client.client_id });
    mail.clock.advance(7776000 * 1000 - 1000);
    expect([401, 403]).not.toContain((await call(`${base}/v1/plan-limits`, { headers: bearer(access_token) })).status);
    mail.clock.advance(1000);
    expect((await call(`${base}/v1/plan-limits`, { headers: bearer(access_token) })).status).toBe(401);
  });
});

describe('revocation (RFC 7009)', () => {
  test('answers 200 with an empty body and takes effect at once', async () => {
    const client = await register(base);
    const { access_token } = await tokenFor(base, { client_id: client.client_id });
    expect([401, 403]).not.toContain((await call(`${base}/v1/plan-limits`, { headers: bearer(access_token) })).status);
    const answer = await postForm(`${base}/api/oauth/revoke`, { token: access_token, token_type_hint: 'access_token', client_id: client.client_id });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('');
    expect((await call(`${base}/v1/plan-limits`, { headers: bearer(access_token) })).status).toBe(401);
    expect((await postForm(`${base}/api/oauth/revoke`, { token: access_token })).status).toBe(200);
  });

  test('answers 200 for an unknown token, ignores unknown parameters, and leaves dashboard keys alone', async () => {
    expect((await postForm(`${base}/api/oauth/revoke`, { token: 'msk_never_issued', extra: '1' })).status).toBe(200);
    expect((await postForm(`${base}/api/oauth/revoke`, { token: 'msk_test_pro' })).status).toBe(200);
    expect([401, 403]).not.toContain((await call(`${base}/v1/plan-limits`, { headers: bearer('msk_test_pro') })).status);
  });

  test('a missing token is invalid_request', async () => {
    expectOAuthError(await postForm(`${base}/api/oauth/revoke`, {}), 400, 'invalid_request', REVOKE);
  });
});

describe('development reset', () => {
  test('POST /_stub/reset forgets registered clients and their codes', async () => {
    const { default: mailService } = await import('../../server-stubs/mail/app.js');
    const { startPlatformServer } = await import('../../server-stubs/server.js');
    const platform = await startPlatformServer(0, '127.0.0.1', { services: [mailService] });
    try {
      const platformBase = `http://127.0.0.1:${platform.port}/mail`;
      const client = await register(platformBase);
      const { verifier, challenge } = pkce();
      const code = (await decide(platformBase, { client_id: client.client_id, code_challenge: challenge }, 'approve')).searchParams.get('code')!;
      const reset = await call(`http://127.0.0.1:${platform.port}/_stub/reset`, { method: 'POST' });
      expect(reset.status).toBe(200);
      const page = await call(authorizeUrl(platformBase, { client_id: client.client_id }), { headers: { cookie: `session=${SESSION}` } });
      expectOAuthError(page, 400, 'invalid_client', AUTHORIZE);
      const exchanged = await postForm(`${platformBase}/api/oauth/token`, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: client.client_id, code_verifier: verifier });
      expectOAuthError(exchanged, 400, 'invalid_client', TOKEN);
    } finally {
      await platform.close();
    }
  });
});
