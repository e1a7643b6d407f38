/**
 * The gate in front of every mail operation: it authenticates with the contract's schemes,
 * validates against the contract, and answers every failure in the route family's published body.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMailApp } from '../../server-stubs/mail/app.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';
import { contractChecker } from '../../scripts/lib/contract-checker.js';
import { operationAt } from '../../server-stubs/lib/openapi/document.js';

const contract = contractChecker('mail');
let stub: RunningStub;

beforeAll(async () => {
  const app = createMailApp({ secrets: { fbl: 'fbl-secret', inbound: 'inbound-secret', internal: 'internal-secret' } });
  stub = await serveStub(app, app.basePath);
});
afterAll(async () => {
  await stub?.close();
});

async function call(path: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
  const response = await fetch(`${stub.baseUrl}${path}`, init);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

describe('mail stub: API keys', () => {
  test('no key: 401 in the mail error body', async () => {
    const { status, body } = await call('/v1/contacts');
    expect(status).toBe(401);
    expect(body).toEqual({ success: false, error: 'Missing or invalid Authorization header' });
    expect(contract.responseErrors('/v1/contacts', 'get', '401', body)).toEqual([]);
  });

  test('a revoked key: 401 at once', async () => {
    const { status, body } = await call('/v1/contacts', { headers: { authorization: 'Bearer msk_test_revoked' } });
    expect(status).toBe(401);
    expect(body.error).toBe('API key has been revoked');
  });

  test("another product's key: 401", async () => {
    const { status } = await call('/v1/contacts', { headers: { authorization: 'Bearer seo_test_key' } });
    expect(status).toBe(401);
  });

  test('a valid key reaches the operation', async () => {
    const { status, body } = await call('/v1/automations', { headers: { authorization: 'Bearer msk_test_free' } });
    expect(status).toBe(200);
    expect(contract.responseErrors('/v1/automations', 'get', '200', body)).toEqual([]);
  });
});

describe('mail stub: sessions', () => {
  test('a session route refuses an API key', async () => {
    const { status, body } = await call('/api/segments', { headers: { authorization: 'Bearer msk_test_max' } });
    expect(status).toBe(401);
    expect(body.error).toMatch(/session/);
    expect(contract.responseErrors('/api/segments', 'get', '401', body)).toEqual([]);
  });

  test('an unknown session: 401 Not authenticated', async () => {
    const { status, body } = await call('/api/segments', { headers: { cookie: 'session=sess_expired' } });
    expect(status).toBe(401);
    expect(body).toEqual({ success: false, error: 'Not authenticated' });
  });

  test('a session route accepts the session cookie', async () => {
    const { status } = await call('/api/segments', { headers: { cookie: 'theme=dark; session=sess_test_pro' } });
    expect(status).toBe(200);
  });

  test('key management accepts the session cookie too', async () => {
    const { status } = await call('/v1/keys', { headers: { cookie: 'session=sess_test_free' } });
    expect(status).toBe(200);
  });
});

describe('mail stub: contract validation in the published body', () => {
  const key = { authorization: 'Bearer msk_test_max' };

  test('a body that breaks the contract: 400 Validation failed with details.fieldErrors', async () => {
    const { status, body } = await call('/v1/send', json({ from: { email: 'hello@example.com' }, to: [], subject: 'Hi', text: 'Hi' }, key));
    expect(status).toBe(400);
    expect(body.error).toBe('Validation failed');
    expect(Object.keys(body.details.fieldErrors)).toContain('to');
    expect(contract.responseErrors('/v1/send', 'post', '400', body)).toEqual([]);
  });

  test('a body that is not JSON: 400 Invalid JSON body', async () => {
    const { status, body } = await call('/v1/send', { method: 'POST', headers: { 'content-type': 'application/json', ...key }, body: '{"from":' });
    expect(status).toBe(400);
    expect(body).toEqual({ success: false, error: 'Invalid JSON body' });
  });

  test('a body that is not application/json: 415', async () => {
    const { status, body } = await call('/v1/validate', { method: 'POST', headers: { 'content-type': 'text/plain', ...key }, body: 'ada@example.com' });
    expect(status).toBe(415);
    expect(body).toEqual({ success: false, error: 'Content-Type must be application/json' });
  });
});

describe('mail stub: OAuth routes answer in the RFC 6749 form', () => {
  test('a token request without grant_type: 400 invalid_request', async () => {
    const { status, body } = await call('/api/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ code: 'abc', redirect_uri: 'https://crm.example.com/cb', client_id: 'dyn_0123456789abcdef0123456789abcdef' }).toString(),
    });
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_request');
    expect(typeof body.error_description).toBe('string');
    expect(contract.responseErrors('/api/oauth/token', 'post', '400', body)).toEqual([]);
  });

  test('the consent decision without a session: 401 access_denied', async () => {
    const { status, body } = await call('/api/oauth/authorize', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=approve' });
    expect(status).toBe(401);
    expect(body.error).toBe('access_denied');
  });
});

describe('mail stub: provider secrets', () => {
  test('the feedback loop takes its secret as a header or as a bearer token', async () => {
    // Past the secret, the body is read: this one is no report (400), which a wrong secret never learns (401).
    const report = (headers: Record<string, string>) => call('/webhooks/fbl', { method: 'POST', headers: { 'content-type': 'text/plain', ...headers }, body: 'raw ARF report' });
    expect((await report({ 'x-webhook-secret': 'fbl-secret' })).status).toBe(400);
    expect((await report({ authorization: 'Bearer fbl-secret' })).status).toBe(400);
    expect((await report({ 'x-webhook-secret': 'wrong' })).status).toBe(401);
  });

  test('the internal webhook needs x-internal-secret', async () => {
    const body = { emailId: '7d9f8b6a-1c2e-4f3a-9b8c-0d1e2f3a4b5c', targetLanguage: 'de' };
    expect((await call('/webhooks/auto-translate', json(body, { 'x-internal-secret': 'wrong' }))).status).toBe(401);
    expect((await call('/webhooks/auto-translate', json(body, { 'x-internal-secret': 'internal-secret' }))).status).toBe(404); // past the secret: no such email
  });

  test('the health check of the feedback loop needs nothing', async () => {
    expect((await call('/webhooks/fbl')).status).toBe(200);
  });
});

describe('mail stub: hostile and sloppy input stays in the contract', () => {
  const key = { authorization: 'Bearer msk_test_max' };

  test.each(['toString', '__proto__', 'constructor', 'valueOf', 'hasOwnProperty'])('a query parameter named %s is ignored, not a 500', async (name) => {
    const { status, body } = await call(`/v1/webhooks?${name}=1`, { headers: key });
    expect(status).toBe(200);
    expect(contract.responseErrors('/v1/webhooks', 'get', '200', body)).toEqual([]);
  });

  test.each(['toString', '__proto__', 'constructor'])('a field named %s with a validation error is reported as a field', async (name) => {
    const { status, body } = await call('/v1/contacts', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...key },
      body: `{"email": 5, "${name}": 1}`,
    });
    expect(status).toBe(400);
    expect(body.error).toBe('Validation failed');
    expect(Object.keys(body.details.fieldErrors)).toContain('email');
  });

  test.each(['limit=1e309', 'limit=Infinity', 'page=-Infinity'])('%s: 400, not a pass of the bounds', async (query) => {
    const { status, body } = await call(`/v1/contacts?${query}`, { headers: key });
    expect(status).toBe(400);
    expect(body.error).toBe('Validation failed');
  });

  test('90,000 rule groups where 50 are allowed: refused at once, not after minutes of validation', async () => {
    const group = '{"operator":"OR","rules":[null]}';
    const { status, body } = await call('/api/segments/5eed5eed-5eed-4eed-8eed-37386ae04337/preview', {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: 'session=sess_test_max' },
      body: `{"filter_criteria":{"operator":"OR","rules":[${Array(90_000).fill(group).join(',')}]}}`,
    });
    expect(status).toBe(400);
    expect(body.details.fieldErrors['filter_criteria.rules']).toEqual(['must NOT have more than 50 items']);
  });

  test('an unknown query parameter is ignored (DECISIONS G-1)', async () => {
    expect((await call('/v1/contacts?_=123&utm_source=x', { headers: key })).status).toBe(200);
  });

  test('invalid JSON on an OAuth route: 400 in the OAuth form', async () => {
    const { status, body } = await call('/api/oauth/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":' });
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_request');
    expect(contract.responseErrors('/api/oauth/token', 'post', '400', body)).toEqual([]);
  });

  test('an unsupported charset on a form-only OAuth route: a declared status in the OAuth form', async () => {
    const { status, body } = await call('/api/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded; charset=latin9' }, body: 'grant_type=authorization_code' });
    expect(Object.keys(operationAt(contract.document, '/api/oauth/token', 'post')?.responses ?? {})).toContain(String(status));
    expect(body.error).toBe('invalid_request');
    expect(body.error_description).not.toMatch(/application\/json/);
  });

  test('a wrong content type where the operation does not declare 415: 400, not an undeclared 415', async () => {
    const operation = operationAt(contract.document, '/referrals/claim', 'post');
    expect(Object.keys(operation?.responses ?? {})).not.toContain('415');
    const { status, body } = await call('/referrals/claim', { method: 'POST', headers: { 'content-type': 'text/plain', cookie: 'session=sess_test_max', ...key }, body: 'name=x' });
    expect(status).toBe(400);
    expect(body.success).toBe(false);
  });

  test('HEAD where GET exists, 405 with Allow on another method', async () => {
    const head = await fetch(`${stub.baseUrl}/v1/contacts`, { method: 'HEAD', headers: key });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const put = await call('/v1/send', { method: 'PUT', headers: key });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toMatch(/POST/);
    expect(put.body.success).toBe(false);
  });
});
