/**
 * The whole OAuth flow as a third-party application lives it: a maintained client library
 * (oauth4webapi) discovers the server, registers, builds the authorization request with PKCE S256
 * and exchanges the code; a real browser (Debian's chromium, driven by playwright-core) signs in on
 * the development login page and clicks Approve on the consent page, then, once more, Deny.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import type { Browser, BrowserContext } from 'playwright-core';
import { chromiumAvailable, launchChromium } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bearer, call, startMail, type MailStub } from './oauth-support.js';


const insecure = { [oauth.allowInsecureRequests]: true };

describe.skipIf(!chromiumAvailable)('OAuth flow: oauth4webapi and a browser on the consent page', () => {
  let mail: MailStub;
  let app: http.Server;
  let callbackUri = '';
  let browser: Browser;
  let context: BrowserContext;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;

  beforeAll(async () => {
    mail = await startMail();
    // The application's redirect target: it only has to answer, the test reads the URL the browser reached.
    app = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>callback</title><p>done</p>'));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    callbackUri = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`;
    browser = await launchChromium();
    context = await browser.newContext();

    // The metadata lives at {issuer}/.well-known/oauth-authorization-server (the contract's path),
    // so the library checks the answer of that URL against the issuer it expects.
    const issuer = new URL(mail.baseUrl);
    as = await oauth.processDiscoveryResponse(issuer, await fetch(`${mail.baseUrl}/.well-known/oauth-authorization-server`));
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { client_name: 'Flow Test App', redirect_uris: [callbackUri], scope: 'read send', token_endpoint_auth_method: 'none' }, insecure),
    );
    client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' };
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => app?.close(() => resolve()));
    await mail?.close();
  });

  async function authorizationRequest(scope: string) {
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.searchParams.set('client_id', client.client_id);
    url.searchParams.set('redirect_uri', callbackUri);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', scope);
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
    url.searchParams.set('code_challenge_method', 'S256');
    return { url, codeVerifier, state };
  }

  test('Approve: sign in, consent, the code becomes a scoped msk_ token that works until revoked', async () => {
    const { url, codeVerifier, state } = await authorizationRequest('read send');
    const tab = await context.newPage();
    await tab.goto(url.toString());
    // No session yet: the login page, which brings the browser back to the authorization request.
    expect(new URL(tab.url()).pathname).toBe('/mail/api/auth/login');
    await tab.getByRole('button', { name: /Max User/ }).click();
    await tab.waitForURL((at) => at.pathname === '/mail/api/oauth/authorize');
    await expect.poll(() => tab.textContent('h1')).toBe('Flow Test App wants to access your account');
    expect(await tab.locator('#scopes li').allTextContents()).toEqual(['read', 'send']);
    await tab.getByRole('button', { name: 'Approve' }).click();
    await tab.waitForURL((at) => at.toString().startsWith(callbackUri));
    const callbackUrl = new URL(tab.url());
    await tab.close();

    const params = oauth.validateAuthResponse(as, client, callbackUrl, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, callbackUri, codeVerifier, insecure);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(tokens.access_token).toMatch(/^msk_/);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(7776000);
    expect(tokens.scope).toBe('read send');

    const limits = await call(`${mail.baseUrl}/v1/plan-limits`, { headers: bearer(tokens.access_token) });
    expect([401, 403]).not.toContain(limits.status);
    const beyond = await call(`${mail.baseUrl}/v1/aliases`, { method: 'POST', headers: { ...bearer(tokens.access_token), 'content-type': 'application/json' }, body: '{}' });
    expect(beyond.status).toBe(403);

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), tokens.access_token, insecure));
    expect((await call(`${mail.baseUrl}/v1/plan-limits`, { headers: bearer(tokens.access_token) })).status).toBe(401);
  }, 60_000);

  test('Deny: the callback carries access_denied and the state, and no code', async () => {
    const { url, state } = await authorizationRequest('read');
    const tab = await context.newPage();
    await tab.goto(url.toString());
    // Signed in by the first test: straight to the consent page.
    expect(new URL(tab.url()).pathname).toBe('/mail/api/oauth/authorize');
    await tab.getByRole('button', { name: 'Deny' }).click();
    await tab.waitForURL((at) => at.toString().startsWith(callbackUri));
    const callbackUrl = new URL(tab.url());
    await tab.close();

    expect(callbackUrl.searchParams.get('code')).toBeNull();
    expect(callbackUrl.searchParams.get('state')).toBe(state);
    let refused: unknown;
    try {
      oauth.validateAuthResponse(as, client, callbackUrl, state);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(oauth.AuthorizationResponseError);
    expect((refused as oauth.AuthorizationResponseError).error).toBe('access_denied');
  }, 60_000);
});
