/**
 * The designed per-family rate limits (`x-rate-limit`): past each, a 429 with an integer
 * `Retry-After` in the mail error body; the window reopens when the stub clock moves on. One family's
 * window does not close another's, nor another key's. Every operation that declares 429 reaches it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { seededCredentials } from '../../scripts/lib/credentials.js';
import { exampleRequest } from '../../scripts/lib/example-request.js';
import { createSender, type Sender } from '../../scripts/lib/fuzz/wire.js';
import { listOperations, operationAt } from '../../server-stubs/lib/openapi/document.js';
import { loadContract } from '../../server-stubs/lib/contract.js';
import mailService from '../../server-stubs/mail/app.js';
import { contract, mailForEachTest } from './identity-support.js';
import { sendOnKeepAlive, type KeepAliveCall } from '../helpers/keep-alive.js';

const { document } = loadContract('mail');
const ruleOf = (path: string, method: string) => operationAt(document, path, method)?.['x-rate-limit'] as { requests: number; windowSeconds: number; bucket?: string };

const mail = mailForEachTest();

/** The client: keep-alive node:http (the windows take about 9,600 requests here). */
let sender: Sender;
beforeAll(() => {
  sender = createSender(mail.stub.origin, { concurrency: 1, timeoutMs: 60_000 });
});
afterAll(() => sender?.close());

const send = (path: string, call: KeepAliveCall = {}) => sendOnKeepAlive(sender, mail.app.basePath, path, call, 'rate window');

const calls: Array<[string, string, string, KeepAliveCall]> = [
  ['key management', '/v1/keys', 'get', { headers: { authorization: 'Bearer msk_test_max' } }],
  ['plan and billing', '/v1/plan-limits', 'get', { headers: { authorization: 'Bearer msk_test_max' } }],
  ['login page', '/api/auth/login', 'get', {}],
  ['development login', '/api/auth/login', 'post', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'user_id=usr_pro' }],
  ['SSO exchange', '/api/auth/sso', 'post', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"token":"x"}' }],
  ['logout', '/api/auth/logout', 'post', { method: 'POST', headers: { cookie: 'session=sess_test_pro' } }],
];

describe.each(calls)('%s', (_family, path, method, call) => {
  test('past the limit: 429 with Retry-After, open again after the window', async () => {
    const rule = ruleOf(path, method);
    expect(rule.requests).toBeGreaterThan(0);
    for (let i = 0; i < rule.requests; i++) expect((await send(path, call)).status).not.toBe(429);
    const limited = await send(path, call);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(rule.windowSeconds);
    expect(contract.responseErrors(path, method, 429, JSON.parse(limited.body))).toEqual([]);
    mail.clock.advance(rule.windowSeconds * 1000);
    expect((await send(path, call)).status).not.toBe(429);
  });
});

test('the key-management family shares one window: listing spends what creating needs', async () => {
  const rule = ruleOf('/v1/keys', 'get');
  expect(ruleOf('/v1/keys', 'post').bucket).toBe(rule.bucket);
  for (let i = 0; i < rule.requests; i++) await send('/v1/keys', { headers: { authorization: 'Bearer msk_test_max' } });
  const create = await send('/v1/keys', { method: 'POST', headers: { authorization: 'Bearer msk_test_max', 'content-type': 'application/json' }, body: '{"name":"late"}' });
  expect(create.status).toBe(429);
  // Another key has a window of its own.
  const other = await send('/v1/keys', { headers: { authorization: 'Bearer msk_test_pro' } });
  expect(other.status).toBe(200);
});

/**
 * Every other operation's window is filled by test/toolkit/conformance.test.ts on `npm start`'s
 * server, with the same example request, and there must close on its 429 with an integer
 * Retry-After. It skips the aliases (`x-alias-of`), whose windows are their twins': those are filled here.
 */
describe('every mail operation that declares 429 has a designed limit that reaches it', () => {
  const service = mailService;
  const limited = listOperations(document).filter((o) => o.op.responses?.['429']);
  const aliases = limited.filter((o) => typeof o.op['x-alias-of'] === 'string');

  test('each declares x-rate-limit', () => {
    expect(limited.filter((o) => !o.op['x-rate-limit']).map((o) => o.label)).toEqual([]);
  });

  test.each(aliases.map((o) => [o.label, o] as const))('%s (an alias): 429 with an integer Retry-After past its limit', async (_label, operation) => {
    mail.app.reset();
    const rule = operation.op['x-rate-limit'] as { requests: number; windowSeconds: number };
    // The same request each time: built once, its body text.
    const request = exampleRequest(document, operation, seededCredentials(service, document));
    expect(request.init.body == null || typeof request.init.body === 'string', 'a body the sender sends as it is').toBe(true);
    const call = { method: request.init.method, headers: request.init.headers as Record<string, string>, body: request.init.body as string | undefined };
    let status = 0;
    for (let i = 0; i <= rule.requests && status !== 429; i++) {
      const answer = await send(request.url, call);
      status = answer.status;
      if (status === 429) expect(answer.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
    }
    expect(status).toBe(429);
    mail.clock.advance(rule.windowSeconds * 1000);
  });
});
