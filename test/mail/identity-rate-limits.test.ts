/**
 * The designed per-family rate limits (`x-rate-limit`): past each, a 429 with an integer
 * `Retry-After` in the mail error body; the window reopens when the stub clock moves on. One family's
 * window does not close another's, nor another key's. Every operation that declares 429 reaches it.
 */
import { describe, expect, test } from 'vitest';
import { seededCredentials } from '../../scripts/lib/credentials.js';
import { exampleRequest } from '../../scripts/lib/example-request.js';
import { listOperations, operationAt } from '../../server-stubs/lib/openapi/document.js';
import { loadContract } from '../../server-stubs/lib/contract.js';
import mailService from '../../server-stubs/mail/app.js';
import { contract, mailForEachTest } from './identity-support.js';

const { document } = loadContract('mail');
const ruleOf = (path: string, method: string) => operationAt(document, path, method)?.['x-rate-limit'] as { requests: number; windowSeconds: number; bucket?: string };

const mail = mailForEachTest();

const calls: Array<[string, string, string, RequestInit]> = [
  ['key management', '/v1/keys', 'get', { headers: { authorization: 'Bearer msk_test_max' } }],
  ['plan and billing', '/v1/plan-limits', 'get', { headers: { authorization: 'Bearer msk_test_max' } }],
  ['login page', '/api/auth/login', 'get', {}],
  ['development login', '/api/auth/login', 'post', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'user_id=usr_pro' }],
  ['SSO exchange', '/api/auth/sso', 'post', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"token":"x"}' }],
  ['logout', '/api/auth/logout', 'post', { method: 'POST', headers: { cookie: 'session=sess_test_pro' } }],
];

describe.each(calls)('%s', (_family, path, method, init) => {
  test('past the limit: 429 with Retry-After, open again after the window', async () => {
    const rule = ruleOf(path, method);
    expect(rule.requests).toBeGreaterThan(0);
    const send = () => fetch(`${mail.baseUrl}${path}`, { redirect: 'manual', ...init });
    for (let i = 0; i < rule.requests; i++) {
      const response = await send();
      await response.arrayBuffer();
      expect(response.status).not.toBe(429);
    }
    const limited = await send();
    const body = await limited.json();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(rule.windowSeconds);
    expect(contract.responseErrors(path, method, 429, body)).toEqual([]);
    mail.clock.advance(rule.windowSeconds * 1000);
    const reopened = await send();
    await reopened.arrayBuffer();
    expect(reopened.status).not.toBe(429);
  });
});

test('the key-management family shares one window: listing spends what creating needs', async () => {
  const rule = ruleOf('/v1/keys', 'get');
  expect(ruleOf('/v1/keys', 'post').bucket).toBe(rule.bucket);
  for (let i = 0; i < rule.requests; i++) await (await fetch(`${mail.baseUrl}/v1/keys`, { headers: { authorization: 'Bearer msk_test_max' } })).arrayBuffer();
  const create = await fetch(`${mail.baseUrl}/v1/keys`, { method: 'POST', headers: { authorization: 'Bearer msk_test_max', 'content-type': 'application/json' }, body: '{"name":"late"}' });
  expect(create.status).toBe(429);
  // Another key has a window of its own.
  const other = await fetch(`${mail.baseUrl}/v1/keys`, { headers: { authorization: 'Bearer msk_test_pro' } });
  expect(other.status).toBe(200);
});

describe('every mail operation that declares 429 has a designed limit that reaches it', () => {
  const service = mailService;
  const limited = listOperations(document).filter((o) => o.op.responses?.['429']);

  test('each declares x-rate-limit', () => {
    expect(limited.filter((o) => !o.op['x-rate-limit']).map((o) => o.label)).toEqual([]);
  });

  test.each(limited.map((o) => [o.label, o] as const))('%s: 429 with an integer Retry-After past its limit', async (_label, operation) => {
    mail.app.reset();
    const rule = operation.op['x-rate-limit'] as { requests: number; windowSeconds: number };
    // The same request each time: its body is text, sent anew by each fetch.
    const request = exampleRequest(document, operation, seededCredentials(service, document));
    let status = 0;
    for (let i = 0; i <= rule.requests && status !== 429; i++) {
      const response = await fetch(`${mail.stub.origin}${mail.app.basePath}${request.url}`, { ...request.init, redirect: 'manual' });
      status = response.status;
      if (status === 429) expect(response.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      await response.arrayBuffer();
    }
    expect(status).toBe(429);
    mail.clock.advance(rule.windowSeconds * 1000);
  });
});
