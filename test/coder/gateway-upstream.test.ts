/**
 * `claude-*` models go to the vendor upstream (DECISIONS coder-1): a server this test starts on
 * 127.0.0.1 plays the vendor, so every byte the gateway passes on can be compared. Every answer it
 * gives, refusals included, reaches the client unchanged (DECISIONS coder-9); the gateway answers
 * 502 or 504 only when it gets no HTTP answer.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { anthropic, contract, contractProblems, KEY, raw, startCoder, type CoderStub } from './support.js';
import { operationAt } from '../../server-stubs/lib/openapi/document.js';

const upstreamMessage = {
  id: 'msg_upstream_1',
  type: 'message',
  role: 'assistant',
  content: [{ type: 'text', text: 'Hello from the vendor' }],
  model: 'claude-sonnet-4-5',
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 9, output_tokens: 5, cache_read_input_tokens: 0 },
};

const upstreamStream = [
  ['message_start', { type: 'message_start', message: { ...upstreamMessage, content: [], stop_reason: null, usage: { input_tokens: 9, output_tokens: 1 } } }],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello from ' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'the vendor' } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }],
  ['message_stop', { type: 'message_stop' }],
]
  .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  .join('');

const vendorError = (type: string, message: string) => JSON.stringify({ type: 'error', error: { type, message } });

/** The vendor's refusals, by model: each must reach the client as it is (DECISIONS coder-9). */
const refusals: Record<string, { status: number; headers?: Record<string, string>; body: string }> = {
  'claude-limited': { status: 429, headers: { 'retry-after': '17', 'anthropic-ratelimit-requests-remaining': '0' }, body: vendorError('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit.') },
  // Limited on the first call only, with a wait short enough for a test: the SDK's retry succeeds.
  'claude-limited-once': { status: 429, headers: { 'retry-after': '0.001' }, body: vendorError('rate_limit_error', 'slow down') },
  'claude-overloaded': { status: 529, headers: { 'x-should-retry': 'true' }, body: vendorError('overloaded_error', 'Overloaded') },
  'claude-forbidden': { status: 403, body: vendorError('permission_error', 'Your API key does not have permission to use the specified resource.') },
  'claude-large': { status: 413, body: vendorError('request_too_large', 'Request exceeds the maximum allowed number of bytes.') },
  'claude-broken': { status: 500, body: vendorError('api_error', 'boom') },
  'claude-teapot': { status: 418, headers: { 'x-vendor': 'teapot' }, body: vendorError('api_error', 'I am a teapot') },
};

interface Seen {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** The vendor: a JSON or streamed answer by the request's `stream`, an error or no answer at all by its model. */
async function startVendor() {
  const seen: Seen[] = [];
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      const parsed = JSON.parse(body) as { model: string; stream?: boolean };
      if (req.url !== '/v1/messages') return void res.writeHead(404).end();
      const refusal = refusals[parsed.model];
      if (refusal && !(parsed.model === 'claude-limited-once' && seen.filter((s) => s.body.includes('claude-limited-once')).length > 1)) {
        return void res.writeHead(refusal.status, { 'content-type': 'application/json', 'request-id': `req_${refusal.status}`, ...refusal.headers }).end(refusal.body);
      }
      if (parsed.model === 'claude-slow') return void hanging.push(res);
      if (req.headers['x-api-key'] === 'sk-ant-bad') return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}');
      if (parsed.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': 'req_vendor_2' });
        res.end(upstreamStream);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'private, max-age=0', 'request-id': 'req_vendor_1', 'anthropic-ratelimit-requests-remaining': '99' });
      res.end(JSON.stringify(upstreamMessage));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('claude-* models forwarded upstream', () => {
  let vendor: Awaited<ReturnType<typeof startVendor>>;
  let coder: CoderStub;
  beforeAll(async () => {
    vendor = await startVendor();
    coder = await startCoder({ upstreamUrl: vendor.url, allowLoopback: true, upstreamTimeoutMs: 300 });
  });
  afterAll(async () => {
    await coder.close();
    await vendor.close();
  });

  test('JSON: the upstream answer byte for byte with its cache headers; the caller token (any, not a gateway key) as x-api-key; version passed', async () => {
    const res = await raw(coder.baseUrl, 'POST', '/v1/messages', {
      key: 'sk-ant-caller',
      headers: { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'tools-2024' },
      body: { model: 'claude-sonnet-4-5', max_tokens: 10, temperature: 0.2, metadata: { user_id: 'u1' }, messages: [{ role: 'user', content: 'Hi' }] },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify(upstreamMessage));
    expect({ cache: res.headers.get('cache-control'), id: res.headers.get('request-id'), rl: res.headers.get('anthropic-ratelimit-requests-remaining') }).toEqual({
      cache: 'private, max-age=0',
      id: 'req_vendor_1',
      rl: '99',
    });
    const call = vendor.seen.at(-1)!;
    expect({ key: call.headers['x-api-key'], version: call.headers['anthropic-version'], beta: call.headers['anthropic-beta'], auth: call.headers.authorization }).toEqual({
      key: 'sk-ant-caller',
      version: '2023-06-01',
      beta: 'tools-2024',
      auth: undefined,
    });
    // The request goes as the client wrote it: fields the gateway does not model included.
    expect(JSON.parse(call.body)).toMatchObject({ temperature: 0.2, metadata: { user_id: 'u1' }, max_tokens: 10 });
  });

  test('the official SDK (x-api-key) gets the vendor message; a stream passes through byte for byte and accumulates', async () => {
    const client = anthropic(coder.baseUrl, { apiKey: 'sk-ant-caller' });
    const message = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
    expect(message).toEqual(upstreamMessage);
    const final = await client.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }).finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'Hello from the vendor' }]);
    const wire = await raw(coder.baseUrl, 'POST', '/v1/messages', { key: 'sk-ant-caller', body: { model: 'claude-sonnet-4-5', stream: true, messages: [{ role: 'user', content: 'Hi' }] } });
    expect(wire.text).toBe(upstreamStream);
    expect({ type: wire.headers.get('content-type'), cache: wire.headers.get('cache-control'), id: wire.headers.get('request-id') }).toEqual({
      type: 'text/event-stream; charset=utf-8',
      cache: 'no-cache',
      id: 'req_vendor_2',
    });
  });

  test('the vendor\'s 401 passes through as it is', async () => {
    await expect(anthropic(coder.baseUrl, { apiKey: 'sk-ant-bad' }).messages.create({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] })).rejects.toMatchObject({
      status: 401,
      error: { error: { message: 'invalid x-api-key' } },
    });
  });

  test('every refusal of the upstream (429, 529, 403, 413, 500, any other) reaches the client unchanged: status, headers, body', async () => {
    for (const [model, refusal] of Object.entries(refusals)) {
      if (model === 'claude-limited-once') continue;
      const res = await raw(coder.baseUrl, 'POST', '/v1/messages', { key: 'sk-ant-caller', body: { model, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] } });
      expect({ model, status: res.status, text: res.text, requestId: res.headers.get('request-id') }).toEqual({ model, status: refusal.status, text: refusal.body, requestId: `req_${refusal.status}` });
      for (const [name, value] of Object.entries(refusal.headers ?? {})) expect({ model, name, value: res.headers.get(name) }).toEqual({ model, name, value });
      // Declared on the operation (G-2): 403, 413, 429, 500 and 529 by number, any other as `default`.
      const declared = Object.keys(operationAt(contract.document, '/v1/messages', 'post')?.responses ?? {});
      const key = declared.includes(String(refusal.status)) ? String(refusal.status) : 'default';
      expect({ model, key }).toEqual({ model, key: refusal.status === 418 ? 'default' : String(refusal.status) });
      expect(declared).toContain(key);
      expect(contract.responseErrors('/v1/messages', 'post', key, res.body)).toEqual([]);
    }
  });

  test("the official SDK gets the vendor's typed errors with the upstream's headers, and retries as the upstream's retry-after says", async () => {
    const client = anthropic(coder.baseUrl, { apiKey: 'sk-ant-caller' });
    const create = (model: string, sdk = client) => sdk.messages.create({ model, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
    const expected: Array<[string, new (...args: never[]) => Error, number]> = [
      ['claude-limited', Anthropic.RateLimitError, 429],
      ['claude-overloaded', Anthropic.OverloadedError, 529],
      ['claude-forbidden', Anthropic.PermissionDeniedError, 403],
      ['claude-large', Anthropic.ContentTooLargeError, 413],
      ['claude-broken', Anthropic.InternalServerError, 500],
    ];
    for (const [model, type, status] of expected) {
      const error = await create(model).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect({ model, typed: error instanceof type }).toEqual({ model, typed: true });
      expect(error).toMatchObject({ status, requestID: `req_${status}`, error: JSON.parse(refusals[model]!.body) });
    }
    const limited = (await create('claude-limited').catch((e: unknown) => e)) as InstanceType<typeof Anthropic.RateLimitError>;
    expect(limited.headers.get('retry-after')).toBe('17');

    // With retries, the SDK waits the upstream's retry-after (1 ms here) and the second call succeeds.
    const calls = () => vendor.seen.filter((s) => s.body.includes('claude-limited-once')).length;
    const before = calls();
    const message = await create('claude-limited-once', new Anthropic({ baseURL: coder.baseUrl, apiKey: 'sk-ant-caller', authToken: null, maxRetries: 1 }));
    expect({ calls: calls() - before, text: message.content }).toEqual({ calls: 2, text: upstreamMessage.content });
  });

  test('slower than the timeout is 504', async () => {
    const slow = await raw(coder.baseUrl, 'POST', '/v1/messages', { body: { model: 'claude-slow', messages: [] } });
    expect({ status: slow.status, body: slow.body }).toEqual({ status: 504, body: { type: 'error', error: { type: 'api_error', message: 'The upstream did not answer within 300 ms' } } });
    expect(contractProblems('/v1/messages', 'post', slow)).toEqual([]);
  });

  test('X-Session-Id records a forwarded exchange, JSON and streamed', async () => {
    for (const stream of [false, true]) {
      await raw(coder.baseUrl, 'POST', '/v1/messages', { headers: { 'X-Session-Id': `fwd-${stream}` }, body: { model: 'claude-sonnet-4-5', stream, messages: [{ role: 'user', content: 'Hi' }] } });
      const read = await raw(coder.baseUrl, 'GET', `/sessions/fwd-${stream}`);
      expect(read.body.messages.map((m: { content: string }) => m.content)).toEqual(['Hi', 'Hello from the vendor']);
    }
  });
});

describe('upstream unavailable', () => {
  test('none configured: 502 naming the setting', async () => {
    const coder = await startCoder();
    try {
      const res = await raw(coder.baseUrl, 'POST', '/v1/messages', { key: 'sk-ant-any', body: { model: 'claude-sonnet-4-5', messages: [] } });
      expect(res.status).toBe(502);
      expect(res.body.error.message).toContain('CODER_UPSTREAM_URL');
      await expect(anthropic(coder.baseUrl, { apiKey: 'sk-ant-any' }).messages.create({ model: 'claude-sonnet-4-5', max_tokens: 1, messages: [] })).rejects.toBeInstanceOf(Anthropic.InternalServerError);
    } finally {
      await coder.close();
    }
  });

  test('loopback without the switch is refused by the SSRF guard (502); a closed port is unreachable (502)', async () => {
    const vendor = await startVendor();
    const guarded = await startCoder({ upstreamUrl: vendor.url, allowLoopback: false });
    const closed = await startCoder({ upstreamUrl: 'http://127.0.0.1:9', allowLoopback: true });
    try {
      const refused = await raw(guarded.baseUrl, 'POST', '/v1/messages', { body: { model: 'claude-sonnet-4-5', messages: [] } });
      expect({ status: refused.status, guard: refused.body.error.message.includes('SSRF guard') }).toEqual({ status: 502, guard: true });
      expect(vendor.seen).toHaveLength(0);
      const unreachable = await raw(closed.baseUrl, 'POST', '/v1/messages', { body: { model: 'claude-sonnet-4-5', messages: [] } });
      expect(unreachable.status).toBe(502);
      expect(unreachable.body.error.message).toContain('unreachable');
    } finally {
      await Promise.all([guarded.close(), closed.close(), vendor.close()]);
    }
  });

  test('an upstream that answers something that is not HTTP is 502', async () => {
    const sockets = new Set<net.Socket>();
    const garbage = net.createServer((socket) => {
      sockets.add(socket);
      socket.end('this is not HTTP\r\n\r\n');
    });
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    const coder = await startCoder({ upstreamUrl: `http://127.0.0.1:${(garbage.address() as AddressInfo).port}`, allowLoopback: true });
    try {
      const res = await raw(coder.baseUrl, 'POST', '/v1/messages', { body: { model: 'claude-sonnet-4-5', messages: [] } });
      expect({ status: res.status, type: res.body.error.type, notHttp: res.body.error.message.includes('did not answer in HTTP') }).toEqual({ status: 502, type: 'api_error', notHttp: true });
      expect(contractProblems('/v1/messages', 'post', res)).toEqual([]);
    } finally {
      await coder.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => garbage.close(() => resolve()));
    }
  });

  test('the vendor prefix is configurable', async () => {
    const coder = await startCoder({ vendorPrefix: 'vendor-' });
    try {
      expect((await raw(coder.baseUrl, 'POST', '/v1/messages', { body: { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'x' }] } })).status).toBe(200);
      expect((await raw(coder.baseUrl, 'POST', '/v1/messages', { key: KEY, body: { model: 'vendor-x', messages: [] } })).status).toBe(502);
    } finally {
      await coder.close();
    }
  });
});
