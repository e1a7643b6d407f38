/**
 * Sessions through HTTP: which routes take a session and which an API key, the development login
 * page and its form, the SSO token exchange (a JWT verified with `jose` against the provider's key
 * set, served here on 127.0.0.1), and logout.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { developmentSsoToken } from '../../scripts/lib/scenarios/mail-identity.js';
import { answered, contract, devLogin, startMail, type MailStub } from './identity-support.js';

const issuer = 'https://idp.test.example';
const audience = 'mail-tests';

let idp: http.Server;
let jwksUrl: string;
let signingKey: CryptoKey;
let strangerKey: CryptoKey;
let mail: MailStub;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  signingKey = pair.privateKey;
  strangerKey = (await generateKeyPair('ES256')).privateKey;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'idp-1', alg: 'ES256', use: 'sig' };
  idp = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/.well-known/jwks.json`;
  mail = await startMail({ sso: { jwks: jwksUrl, issuer, audience } });
});
afterAll(async () => {
  await mail?.close();
  idp?.closeAllConnections();
  await new Promise<void>((resolve) => idp?.close(() => resolve()));
});
beforeEach(() => mail.app.reset());

async function token(claims: Record<string, unknown>, options: { key?: CryptoKey; iss?: string; aud?: string; expiresIn?: number } = {}) {
  const now = Math.floor(mail.clock.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: 'idp-1' })
    .setIssuer(options.iss ?? issuer)
    .setAudience(options.aud ?? audience)
    .setIssuedAt(now)
    .setExpirationTime(now + (options.expiresIn ?? 300))
    .sign(options.key ?? signingKey);
}

const cookieValue = (response: Response) => /(?:^|,\s*)session=([^;,]*)/.exec(response.headers.get('set-cookie') ?? '')?.[1];

describe('route families', () => {
  test('a session route refuses an API key: 401', async () => {
    const refused = answered(await mail.key('msk_test_max').GET('/accounts'), 401, '/accounts', 'get');
    expect(refused.error).toMatch(/session/);
  });

  test('an API-key route refuses a bare session: 401', async () => {
    answered(await mail.session('sess_test_max').GET('/v1/plan-limits'), 401, '/v1/plan-limits', 'get');
    answered(await mail.session('sess_test_max').POST('/billing/checkout', { body: { plan: 'pro', success_url: 'https://a.example/ok', cancel_url: 'https://a.example/no' } }), 401, '/billing/checkout', 'post');
  });

  test('key management takes either', async () => {
    answered(await mail.session('sess_test_max').GET('/v1/keys'), 200, '/v1/keys', 'get');
    answered(await mail.key('msk_test_max').GET('/v1/keys'), 200, '/v1/keys', 'get');
  });
});

describe('development login', () => {
  test('the page lists the seeded users and carries return_to into its form', async () => {
    const returnTo = '/mail/api/oauth/authorize?client_id=dyn_00000000000000000000000000000000&response_type=code';
    const response = await fetch(`${mail.baseUrl}/api/auth/login?return_to=${encodeURIComponent(returnTo)}`);
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    for (const user of ['usr_free', 'usr_pro', 'usr_max']) expect(html).toContain(`value="${user}"`);
    expect(html).toContain('action="/mail/api/auth/login"');
    expect(html).toContain(`name="return_to" value="${returnTo.replace(/&/g, '&amp;')}"`);
    expect(html).not.toContain('Signed in as');
  });

  test('with a session the page says who is signed in', async () => {
    const html = await (await fetch(`${mail.baseUrl}/api/auth/login`, { headers: { cookie: 'session=sess_test_pro' } })).text();
    expect(html).toContain('Signed in as Pro User');
  });

  test('signing in sets the session cookie and sends the browser back to return_to', async () => {
    const { response, session } = await devLogin(mail.baseUrl, 'usr_free', '/mail/accounts?x=1');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/mail/accounts?x=1');
    expect(response.headers.get('set-cookie')).toMatch(/^session=sess_[0-9a-f]+; Path=\/; HttpOnly; SameSite=Lax$/);
    const accounts = answered(await mail.session(session!).GET('/accounts'), 200, '/accounts', 'get');
    expect(accounts.data[0].email).toBe('free@example.com');
  });

  test('without return_to the browser goes to the login page', async () => {
    const { response } = await devLogin(mail.baseUrl, 'usr_max');
    expect(response.headers.get('location')).toBe('/mail/api/auth/login');
  });

  test.each(['//evil.example/', 'https://evil.example/', '/\\evil.example', 'relative/path'])('return_to %s is refused: 400, never a redirect elsewhere', async (returnTo) => {
    const page = await fetch(`${mail.baseUrl}/api/auth/login?return_to=${encodeURIComponent(returnTo)}`);
    expect(page.status).toBe(400);
    const { response, text } = await devLogin(mail.baseUrl, 'usr_max', returnTo);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(contract.responseErrors('/api/auth/login', 'post', 400, JSON.parse(text))).toEqual([]);
  });

  test('an unknown user: 400 naming the field', async () => {
    const { response, text } = await devLogin(mail.baseUrl, 'usr_nobody');
    expect(response.status).toBe(400);
    expect(JSON.parse(text).details.fieldErrors.user_id).toEqual(['Unknown user']);
  });
});

describe('SSO token exchange', () => {
  test('a token the provider signed creates a session for the user of its email', async () => {
    const result = await mail.anonymous().POST('/api/auth/sso', { body: { token: await token({ email: 'pro@example.com' }) } });
    const body = answered(result, 200, '/api/auth/sso', 'post');
    expect(body.data.user).toEqual({ id: 'usr_pro', email: 'pro@example.com', name: 'Pro User', plan: 'pro' });
    const session = cookieValue(result.response)!;
    answered(await mail.session(session).GET('/accounts'), 200, '/accounts', 'get');
  });

  test('a first sign-in creates the user on the Free plan', async () => {
    const result = await mail.anonymous().POST('/api/auth/sso', { body: { token: await token({ email: 'new@example.org', name: 'New Person' }) } });
    const body = answered(result, 200, '/api/auth/sso', 'post');
    expect(body.data.user).toMatchObject({ email: 'new@example.org', name: 'New Person', plan: 'free' });
    const accounts = answered(await mail.session(cookieValue(result.response)!).GET('/accounts'), 200, '/accounts', 'get');
    expect(accounts.data).toEqual([expect.objectContaining({ email: 'new@example.org', is_default: true })]);
  });

  test('a first sign-in through a referral link records a pending referral of the code owner; a returning user records none', async () => {
    const code = mail.app.referrals.codeOf('usr_max')!;
    answered(await mail.anonymous().POST('/api/auth/sso', { body: { token: await token({ email: 'referred@example.org' }), referral_code: code } }), 200, '/api/auth/sso', 'post');
    answered(await mail.anonymous().POST('/api/auth/sso', { body: { token: await token({ email: 'pro@example.com' }), referral_code: code } }), 200, '/api/auth/sso', 'post');
    const referred = answered(await mail.session('sess_test_max').GET('/referrals'), 200, '/referrals', 'get').data.referrals.filter((r: { status: string }) => r.status === 'pending');
    expect(referred.map((r: { refereeEmail: string }) => r.refereeEmail)).toEqual(['referred@example.org', expect.any(String)]); // and the seeded one
  });

  test.each([
    ['signed by another key', () => token({ email: 'max@example.com' }, { key: strangerKey }), /signature/],
    ['from another issuer', () => token({ email: 'max@example.com' }, { iss: 'https://other.example' }), /iss/],
    ['for another audience', () => token({ email: 'max@example.com' }, { aud: 'other' }), /aud/],
    ['without an email claim', () => token({ sub: 'u1' }), /email/],
    ['not a JWT at all', async () => 'not.a.jwt', /Invalid SSO token/],
  ])('a token %s: 400 and no session', async (_name, make, message) => {
    const result = await mail.anonymous().POST('/api/auth/sso', { body: { token: await make() } });
    const body = answered(result, 400, '/api/auth/sso', 'post');
    expect(body.error).toMatch(message);
    expect(result.response.headers.get('set-cookie')).toBeNull();
  });

  test('an expired token: 400 (on the stub clock)', async () => {
    const minted = await token({ email: 'max@example.com' }, { expiresIn: 60 });
    mail.clock.advance(61_000);
    const body = answered(await mail.anonymous().POST('/api/auth/sso', { body: { token: minted } }), 400, '/api/auth/sso', 'post');
    expect(body.error).toMatch(/exp/);
  });

  test('without configuration the development provider is trusted, and a real provider replaces it', async () => {
    const dev = await startMail();
    try {
      const devToken = await developmentSsoToken({ email: 'max@example.com' }, dev.clock.now());
      answered(await dev.anonymous().POST('/api/auth/sso', { body: { token: devToken } }), 200, '/api/auth/sso', 'post');
      // The stub configured with a provider's key set does not take the development key.
      answered(await mail.anonymous().POST('/api/auth/sso', { body: { token: await developmentSsoToken({ email: 'max@example.com' }, mail.clock.now()) } }), 400, '/api/auth/sso', 'post');
    } finally {
      await dev.close();
    }
  });
});

describe('logout', () => {
  test('ends the session at once and clears the cookie', async () => {
    const { session } = await devLogin(mail.baseUrl, 'usr_max');
    answered(await mail.session(session!).GET('/accounts'), 200, '/accounts', 'get');
    const result = await mail.session(session!).POST('/api/auth/logout');
    answered(result, 200, '/api/auth/logout', 'post');
    expect(result.response.headers.get('set-cookie')).toMatch(/^session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0$/);
    answered(await mail.session(session!).GET('/accounts'), 401, '/accounts', 'get');
    answered(await mail.session(session!).POST('/api/auth/logout'), 401, '/api/auth/logout', 'post');
  });

  test('the seeded sessions are fixtures: logout clears the cookie but they stay valid', async () => {
    answered(await mail.session('sess_test_free').POST('/api/auth/logout'), 200, '/api/auth/logout', 'post');
    answered(await mail.session('sess_test_free').GET('/accounts'), 200, '/accounts', 'get');
  });
});
