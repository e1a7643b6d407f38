/**
 * The OAuth part of the mail scenario: the authorization code flow with PKCE S256, as a public
 * client and a dashboard user live it (the session the mail scenario signed in with; else
 * MAIL_SESSION or the seeded `sess_test_max`, CONVENTIONS §6): metadata, registration, the consent page,
 * the approval, the code exchange and revocation, then the documented refusals.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { ScenarioSetupError, type ScenarioContext, type ServiceScenario, transportOf } from './scenario.js';
import type { operations } from '../../../generated/mail/types.gen.js';

/** What the mail scenario's parts share (the coder scenario's shape): where the service is, and what each part made. */
export interface MailPartFixture {
  ctx: ScenarioContext;
  /** the dashboard session the mail scenario signed in with, when it did */
  session?: string;
  made: Record<string, string>;
}

export interface MailOAuthPart extends Pick<ServiceScenario<MailPartFixture, operations>, 'calls' | 'expectations' | 'refusals'> {
  setup(fixture: MailPartFixture): Promise<void>;
}

const sessionOf = (f: MailPartFixture) => f.session ?? process.env.MAIL_SESSION ?? 'sess_test_max';
// Never contacted: the callback is read from the Location header.
const callbackUri = 'http://127.0.0.1:53682/callback';
const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');
const state = 'scenario-state';

/** A call of its own: the OAuth routes take no API key, and the consent step the session instead. */
async function send(fixture: MailPartFixture, method: string, path: string, options: { json?: unknown; form?: Record<string, string>; headers?: Record<string, string> } = {}) {
  const headers = new Headers(options.headers ?? {});
  let body: string | undefined;
  if (options.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(options.json);
  } else if (options.form !== undefined) {
    headers.set('content-type', 'application/x-www-form-urlencoded');
    body = new URLSearchParams(options.form).toString();
  }
  const response = await transportOf(fixture.ctx)(`${fixture.ctx.baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  const json = (response.headers.get('content-type') ?? '').includes('json') && text ? (JSON.parse(text) as unknown) : undefined;
  return { status: response.status, body: json, text, location: response.headers.get('location') ?? '' };
}

const authorizeQuery = (clientId: string) =>
  `/api/oauth/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: callbackUri, response_type: 'code', scope: 'read send', state, code_challenge: challenge, code_challenge_method: 'S256' })}`;

const hiddenField = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';

export const oauthPart: MailOAuthPart = {
  async setup(fixture) {
    const registered = await send(fixture, 'POST', '/api/oauth/register', { json: { client_name: 'Scenario App', redirect_uris: [callbackUri], scope: 'read send' } });
    const clientId = (registered.body as { client_id?: string } | undefined)?.client_id;
    if (registered.status !== 201 || !clientId) throw new ScenarioSetupError(`register an OAuth client: expected 201, got ${registered.status} ${registered.text.slice(0, 200)}`);
    fixture.made.oauthClientId = clientId;
  },
  calls: {
    getOAuthServerMetadata: (f) => send(f, 'GET', '/.well-known/oauth-authorization-server'),
    registerOAuthClient: (f) => send(f, 'POST', '/api/oauth/register', { json: { client_name: 'Scenario CLI', redirect_uris: ['http://localhost:53682/cb'] } }),
    authorizeOAuthClient: async (f) => {
      const page = await send(f, 'GET', authorizeQuery(f.made.oauthClientId!), { headers: { cookie: `session=${sessionOf(f)}`, accept: 'text/html' } });
      f.made.consentPage = page.text;
      return { status: page.status };
    },
    decideOAuthConsent: async (f) => {
      const html = f.made.consentPage ?? '';
      const fields = ['client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'csrf_token'];
      const form = Object.fromEntries(fields.map((name) => [name, hiddenField(html, name).replace(/&amp;/g, '&')]));
      const answer = await send(f, 'POST', '/api/oauth/authorize', { form: { ...form, decision: 'approve' }, headers: { cookie: `session=${sessionOf(f)}` } });
      f.made.oauthCallback = answer.location;
      return { status: answer.status };
    },
    exchangeOAuthToken: async (f) => {
      const callback = new URL(f.made.oauthCallback || 'http://invalid/');
      assert.equal(`${callback.origin}${callback.pathname}`, callbackUri, 'the approval redirects to the registered redirect URI');
      assert.equal(callback.searchParams.get('state'), state, 'the approval returns the state unchanged');
      const code = callback.searchParams.get('code') ?? '';
      f.made.oauthCode = code;
      const answer = await send(f, 'POST', '/api/oauth/token', {
        // Form-encoded, with a parameter the server does not know (RFC 6749 §3.2: ignored).
        form: { grant_type: 'authorization_code', code, redirect_uri: callbackUri, client_id: f.made.oauthClientId!, code_verifier: verifier, resource: 'https://api.example.com' },
      });
      f.made.oauthToken = (answer.body as { access_token?: string } | undefined)?.access_token ?? '';
      return { status: answer.status, body: answer.body };
    },
    revokeOAuthToken: (f) => send(f, 'POST', '/api/oauth/revoke', { form: { token: f.made.oauthToken ?? '' } }),
  },
  expectations: {
    getOAuthServerMetadata: (body, f) => {
      assert.equal(body.issuer, f.ctx.baseUrl, 'the issuer is the base URL the service was reached at');
      assert.equal(body.registration_endpoint, `${f.ctx.baseUrl}/api/oauth/register`);
    },
    registerOAuthClient: (body) => {
      assert.match(body.client_id, /^dyn_[0-9a-f]{32}$/);
      assert.deepEqual(body.grant_types, ['authorization_code'], 'the default grant type');
      assert.equal(body.token_endpoint_auth_method, 'none');
    },
    authorizeOAuthClient: (_body, f) => {
      const html = f.made.consentPage ?? '';
      assert.match(html, /Scenario App wants to access your account/, 'the consent page names the client');
      assert.match(html, /value="approve"/);
      assert.match(html, /value="deny"/);
      assert.ok(hiddenField(html, 'csrf_token'), 'the consent form carries an anti-forgery token');
    },
    exchangeOAuthToken: (body) => {
      assert.match(body.access_token, /^msk_/);
      assert.equal(body.expires_in, 7776000);
      assert.equal(body.scope, 'read send', 'the granted scope');
    },
  },
  refusals: [
    {
      id: 'authorizeOAuthClient',
      status: 302,
      why: 'a browser without a session is sent to the login page',
      call: async (f) => ({ status: (await send(f, 'GET', authorizeQuery(f.made.oauthClientId!), { headers: { accept: 'text/html' } })).status }),
    },
    {
      id: 'authorizeOAuthClient',
      status: 401,
      why: 'a caller without a session that is not a browser',
      call: (f) => send(f, 'GET', authorizeQuery(f.made.oauthClientId!), { headers: { accept: 'application/json' } }),
    },
    {
      id: 'authorizeOAuthClient',
      status: 400,
      why: 'a redirect URI that is not an exact match is refused, not redirected to',
      call: (f) => send(f, 'GET', authorizeQuery(f.made.oauthClientId!).replace(encodeURIComponent(callbackUri), encodeURIComponent(`${callbackUri}/`)), { headers: { cookie: `session=${sessionOf(f)}` } }),
    },
    {
      id: 'decideOAuthConsent',
      status: 400,
      why: 'a consent decision without the page\'s anti-forgery token issues nothing',
      call: (f) =>
        send(f, 'POST', '/api/oauth/authorize', {
          form: { client_id: f.made.oauthClientId!, redirect_uri: callbackUri, scope: 'read', decision: 'approve', csrf_token: 'forged' },
          headers: { cookie: `session=${sessionOf(f)}` },
        }),
    },
    {
      id: 'exchangeOAuthToken',
      status: 400,
      why: 'an authorization code is usable once',
      call: (f) => send(f, 'POST', '/api/oauth/token', { form: { grant_type: 'authorization_code', code: f.made.oauthCode ?? '', redirect_uri: callbackUri, client_id: f.made.oauthClientId!, code_verifier: verifier } }),
    },
    {
      id: 'registerOAuthClient',
      status: 400,
      why: 'a redirect URI with a fragment (RFC 6749 §3.1.2)',
      call: (f) => send(f, 'POST', '/api/oauth/register', { json: { redirect_uris: ['https://app.example.com/cb#frag'] } }),
    },
    {
      id: 'revokeOAuthToken',
      status: 400,
      why: 'a revocation without a token',
      call: (f) => send(f, 'POST', '/api/oauth/revoke', { form: {} }),
    },
  ],
};
