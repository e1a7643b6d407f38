/**
 * The stub framework on a fixture contract, through HTTP: the error path, the tolerant reader,
 * browsers, the handler model (typed failures, defaults, headers, raw bodies, passthrough, streams)
 * and development that never dies. Each service's own tests cover its behaviour; this file covers
 * what every service inherits.
 */
import { createHmac } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { bearerKeys } from '../../server-stubs/lib/auth.js';
import { createManualClock } from '../../server-stubs/lib/clock.js';
import type { ErrorMapper } from '../../server-stubs/lib/errors.js';
import type { Fail, HandlerContext } from '../../server-stubs/lib/handlers.js';
import { parseEventStream } from '../../server-stubs/lib/sse.js';
import { createServiceRouter } from '../../server-stubs/lib/service-router.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';
import { asDocument } from '../helpers/fixture-document.js';

const error = { $ref: '#/components/schemas/Error' };
const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: error } } });
const item = { type: 'object', additionalProperties: false, required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string' } } };
const json = (schema: unknown) => ({ 'application/json': { schema } });

/** A small contract with one operation per framework feature. */
const fixture = asDocument({
  openapi: '3.1.0',
  info: { title: 'Fixture', version: '1.0.0' },
  servers: [{ url: 'http://localhost/fx' }],
  security: [{ bearerAuth: [] }],
  components: {
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
    schemas: { Error: { type: 'object', additionalProperties: false, required: ['error', 'kind'], properties: { error: { type: 'string' }, kind: { type: 'string' } } } },
  },
  paths: {
    '/items': {
      get: {
        operationId: 'listItems',
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 } },
          { name: 'x-trace', in: 'header', schema: { type: 'string' } },
        ],
        responses: {
          200: { description: 'ok', headers: { 'X-Total': { schema: { type: 'string' } } }, content: json({ type: 'object', additionalProperties: false, required: ['limit'], properties: { limit: { type: 'integer' }, trace: { type: 'string' } } }) },
          400: errorResponse('bad'),
          401: errorResponse('unauthenticated'),
        },
      },
      post: {
        operationId: 'createItem',
        requestBody: {
          required: true,
          content: json({
            type: 'object',
            additionalProperties: false,
            required: ['name'],
            properties: {
              name: { type: 'string', maxLength: 20 },
              shape: {
                oneOf: [
                  { type: 'object', additionalProperties: false, required: ['radius'], properties: { radius: { type: 'number' } } },
                  { type: 'object', additionalProperties: false, required: ['side'], properties: { side: { type: 'number' } } },
                ],
              },
              // exactly one of `code` and `label`: each branch forbids the other with a false schema
              tag: {
                oneOf: [
                  { type: 'object', required: ['code'], properties: { code: { type: 'string' }, label: false } },
                  { type: 'object', required: ['label'], properties: { label: { type: 'string' }, code: false } },
                ],
              },
            },
          }),
        },
        responses: { 201: { description: 'created', content: json(item) }, 400: errorResponse('bad'), 401: errorResponse('unauthenticated') },
      },
    },
    '/items/{id}': {
      get: {
        operationId: 'getItem',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { 200: { description: 'ok', content: json(item) }, 400: errorResponse('bad'), 401: errorResponse('unauthenticated'), 404: errorResponse('missing') },
      },
    },
    '/stream': {
      get: {
        operationId: 'streamTicks',
        responses: {
          202: {
            description: 'ticks',
            content: {
              'text/event-stream': {
                schema: { type: 'object', required: ['event', 'data'], properties: { event: { const: 'tick' }, data: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } } },
              },
            },
          },
          401: errorResponse('unauthenticated'),
        },
      },
    },
    '/signed': {
      post: {
        operationId: 'receiveSigned',
        security: [],
        parameters: [{ name: 'X-Signature', in: 'header', required: true, schema: { type: 'string' } }],
        requestBody: { required: true, content: json({ type: 'object' }) },
        responses: { 204: { description: 'accepted' }, 400: errorResponse('bad') },
      },
    },
    '/proxy': {
      post: {
        operationId: 'proxyUpstream',
        requestBody: { required: true, content: json({ type: 'object' }) },
        responses: { 200: { description: 'the upstream answer', content: json({ type: 'object' }) }, 400: errorResponse('bad'), 401: errorResponse('unauthenticated') },
      },
    },
    '/later': {
      get: { operationId: 'notYetBuilt', responses: { 200: { description: 'ok', content: json(item) }, 401: errorResponse('unauthenticated') } },
    },
  },
});

const fixtureErrors: ErrorMapper = (failure) => ({ status: failure.status, body: { error: failure.message, kind: failure.kind } });

// Handlers as a service writes them, with the context typed by hand (a real service gets these
// types from its generated `operations`).
type Ctx = Omit<HandlerContext<Record<string, never>, { id: string }>, 'body' | 'query' | 'headers' | 'params'> & {
  body: { name: string };
  query: { limit?: number };
  headers: IncomingHttpHeaders;
  params: { id: string };
};
const items = new Map([['a1', { id: 'a1', name: 'first' }]]);
let upstreamUrl = '';
let brokenBody = false;

const handlers = {
  listItems: ({ query, headers }: Ctx) => ({ status: 200, headers: { 'X-Total': String(items.size) }, body: { limit: query.limit, ...(headers['x-trace'] && { trace: headers['x-trace'] }) } }),
  createItem: ({ body }: Ctx) => ({ status: 201, body: { id: 'new', name: body.name, ...(brokenBody && { secret: 'leak' }) } }),
  getItem: ({ params, fail }: Ctx & { fail: Fail<404> }) => {
    if (params.id === 'teapot') (fail as unknown as Fail<number>)(418, undefined, 'I am a teapot');
    return { status: 200, body: items.get(params.id) ?? fail(404, undefined, 'No such item') };
  },
  streamTicks: () => ({
    status: 202,
    stream: (events: { send(frame: unknown): void; end(): void }) => {
      events.send({ event: 'tick', data: { n: 1 } });
      events.send({ event: 'tick', data: { n: 'two' } }); // off the contract: not written, stream ends
      events.send({ event: 'tick', data: { n: 3 } });
      events.end();
    },
  }),
  receiveSigned: ({ rawBody, headers, fail }: Ctx & { fail: Fail<400> }) => {
    const expected = createHmac('sha256', 'shh').update(rawBody!).digest('hex');
    if (headers['x-signature'] !== expected) fail(400, undefined, 'Bad signature');
    return { status: 204 };
  },
  proxyUpstream: async ({ rawBody }: Ctx) => ({ passthrough: await fetch(upstreamUrl, { method: 'POST', body: rawBody?.toString(), headers: { 'content-type': 'application/json' } }) }),
};

let stub: RunningStub;
let upstream: http.Server;

function start(extra: Partial<Parameters<typeof createServiceRouter>[0]> = {}) {
  return createServiceRouter({
    slug: 'fx',
    document: fixture,
    handlers: handlers as never,
    rawBody: ['receiveSigned', 'proxyUpstream'] as never,
    security: { bearerAuth: bearerKeys((token) => (token === 'good' ? { id: token } : undefined)) },
    errors: fixtureErrors,
    clock: createManualClock(),
    ...extra,
  });
}

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      res.writeHead(207, { 'content-type': 'application/json', 'x-upstream': 'yes' });
      res.write(`{"echo":${text},`);
      setTimeout(() => res.end('"chunked":true}'), 20);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  stub = await serveStub(start(), '/fx');
});

afterAll(async () => {
  await stub.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

async function call(path: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
  const response = await fetch(`${stub.baseUrl}${path}`, { ...init, headers: { authorization: 'Bearer good', ...init.headers } });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, text, body };
}

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  call(path, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

describe('one error path, in the service body, with a declared status', () => {
  test.each([
    ['invalid JSON', () => post('/items', '{"name":')],
    ['a non-finite number in the body (1e309)', () => post('/items', '{"name": "x", "shape": {"radius": 1e309}}')],
    ['a charset the parser cannot read', () => post('/items', '{"name":"x"}', { 'content-type': 'application/json; charset=latin9' })],
    ['a form with more than 1000 fields', () => call('/items', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: Array.from({ length: 1100 }, (_, i) => `f${i}=1`).join('&') })],
    ['a body over 5 MB', () => post('/items', `{"name":"${'x'.repeat(6 * 2 ** 20)}"}`)],
    ['Infinity in an integer query parameter', () => call('/items?limit=Infinity')],
    ['1e309 in an integer query parameter', () => call('/items?limit=1e309')],
    ['-Infinity in an integer query parameter', () => call('/items?limit=-Infinity')],
  ])('%s: 400 in the service body (413 and 415 fold into 400 where undeclared)', async (_case, send) => {
    const res = await send();
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body as object).sort()).toEqual(['error', 'kind']);
    expect(res.text).not.toMatch(/<html|\n\s+at |\/work\/|node_modules/i);
  });

  test('a non-finite number is named where it is, at any depth; big finite numbers and exponents pass', async () => {
    const deep = await post('/items', '{"name": "x", "shape": {"radius": 1.5e400}}');
    expect(deep.status).toBe(400);
    expect(deep.text).toContain('body.shape.radius is not a finite number');
    const negative = await post('/items', '{"name": "x", "shape": {"radius": -1e309}}');
    expect(negative.text).toContain('body.shape.radius is not a finite number');
    const fine = await post('/items', `{"name": "x", "shape": {"radius": 1e300}, "tags": ["1e999"], "note": "${'9'.repeat(400)}"}`);
    expect(fine.status).toBe(201);
  });

  test('prototype keys in the query and the body are plain fields, never a crash', async () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty']) {
      const list = await call(`/items?${name}=1&${name}[x]=2`);
      expect(list.status, name).toBe(200);
      const created = await post('/items', `{"name": "ok", "${name}": {"polluted": true}}`);
      expect(created.status, name).toBe(201);
      expect(created.body, name).toEqual({ id: 'new', name: 'ok' });
      const wrong = await post('/items', `{"name": 5, "${name}": 1}`);
      expect(wrong.status, name).toBe(400);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('a conditional GET is answered in full, never an undeclared 304', async () => {
    const first = await fetch(`${stub.baseUrl}/items/a1`, { headers: { authorization: 'Bearer good' } });
    const tag = first.headers.get('etag') ?? '*';
    const conditions: Array<Record<string, string>> = [{ 'if-none-match': tag }, { 'if-none-match': '*' }, { 'if-modified-since': new Date(Date.now() + 86_400_000).toUTCString() }];
    for (const headers of conditions) {
      const res = await call('/items/a1', { headers });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: 'a1', name: 'first' });
    }
  });

  test('an unknown route under the base path is a 404 in the service body', async () => {
    const res = await call('/nothing/here');
    expect(res).toMatchObject({ status: 404, body: { kind: 'not_found' } });
  });

  test('a handler failing with a status its operation does not declare: 500 in the body, no stack, and the log says why', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const res = await call('/items/teapot');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: expect.stringContaining('418'), kind: 'internal' });
    expect(res.text).not.toMatch(/\n\s+at |\/work\//);
    expect(log).toHaveBeenCalled();
    log.mockRestore();
  });

  test('a handler returning a field the contract does not have: 500 naming the field', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    brokenBody = true;
    try {
      const res = await post('/items', '{"name": "ok"}');
      expect(res.status).toBe(500);
      const { error } = res.body as { error: string };
      expect(error).toMatch(/Response does not match the contract/);
      expect(error).toMatch(/secret/);
    } finally {
      brokenBody = false;
      log.mockRestore();
    }
  });

  test('fail() only takes the statuses the operation declares (tsc)', () => {
    const fail = (() => {
      throw new Error('unused');
    }) as Fail<400 | 401 | 404>;
    const takes404: (f: Fail<404>) => void = () => {};
    takes404(fail);
    // @ts-expect-error 418 is not declared
    const wrong: Fail<418> = fail;
    expect(wrong).toBe(fail);
  });
});

describe('the tolerant reader (DECISIONS G-1)', () => {
  test('unknown query parameters and headers are ignored', async () => {
    const res = await call('/items?_=123&utm_source=x', { headers: { 'x-unknown': '1' } });
    expect(res).toMatchObject({ status: 200, body: { limit: 10 } });
  });

  test('unknown body properties are dropped, in oneOf branches too; known ones still validated', async () => {
    const res = await post('/items', '{"name": "ok", "extra": 1, "shape": {"side": 2, "colour": "red"}}');
    expect(res.status).toBe(201);
    const wrong = await post('/items', '{"name": "ok", "extra": 1, "shape": {"side": "two"}}');
    expect(wrong.status).toBe(400);
  });

  test('a branch that forbids a field with a false schema is not chosen for a value carrying it: 400, not a crash', async () => {
    expect((await post('/items', '{"name": "ok", "tag": {"code": "a"}}')).status).toBe(201);
    expect((await post('/items', '{"name": "ok", "tag": {"label": "b"}}')).status).toBe(201);
    const both = await post('/items', '{"name": "ok", "tag": {"code": "a", "label": "b"}}');
    expect(both.status).toBe(400);
  });
});

describe('the handler model', () => {
  test('defaults are applied before the handler; declared headers reach it', async () => {
    const res = await call('/items', { headers: { 'x-trace': 't-1' } });
    expect(res).toMatchObject({ status: 200, body: { limit: 10, trace: 't-1' } });
    expect(res.headers.get('x-total')).toBe('1');
  });

  test('raw body: the exact bytes reach a handler that opted in (an HMAC check)', async () => {
    const text = '{ "b": 2,   "a": 1 }';
    const good = createHmac('sha256', 'shh').update(text).digest('hex');
    expect((await call('/signed', { method: 'POST', body: text, headers: { 'content-type': 'application/json', 'x-signature': good } })).status).toBe(204);
    expect((await call('/signed', { method: 'POST', body: text.replace('2', '3'), headers: { 'content-type': 'application/json', 'x-signature': good } })).status).toBe(400);
  });

  test('passthrough: the upstream status, headers and streamed body arrive unchanged', async () => {
    const res = await post('/proxy', '{"q": 1}');
    expect(res.status).toBe(207);
    expect(res.headers.get('x-upstream')).toBe('yes');
    expect(res.body).toEqual({ echo: { q: 1 }, chunked: true });
  });

  test("streams: the stream's status is honoured, and a frame off the contract is not written", async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const res = await call('/stream');
    expect(res.status).toBe(202);
    expect(parseEventStream(res.text).frames).toEqual([{ event: 'tick', data: { n: 1 } }]);
    expect(log.mock.calls.flat().join(' ')).toMatch(/frame off the contract/);
    log.mockRestore();
  });
});

describe('development never dies', () => {
  test('an operation without a handler answers 501 in the service body, naming itself', async () => {
    const res = await call('/later');
    expect(res).toMatchObject({ status: 501, body: { kind: 'not_implemented', error: expect.stringContaining('notYetBuilt') } });
  });

  test('a handler for an operation the contract does not have fails at start', () => {
    expect(() => start({ handlers: { ...handlers, removedLastWeek: () => ({ status: 200 }) } as never })).toThrow(/removedLastWeek/);
  });
});

describe('browsers (DECISIONS G-3)', () => {
  test('HEAD works wherever GET does, without a body', async () => {
    const res = await call('/items', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
  });

  test('a known path with an unknown method: 405 with Allow', async () => {
    const res = await call('/items', { method: 'PUT' });
    expect(res).toMatchObject({ status: 405, body: { kind: 'method_not_allowed' } });
    expect(res.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
  });

  test('a preflight is answered before auth, with CORS headers; answers carry them too', async () => {
    const preflight = await fetch(`${stub.baseUrl}/items`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
    const answer = await call('/items', { headers: { origin: 'https://app.example' } });
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(answer.headers.get('access-control-expose-headers')).toMatch(/X-Total/);
    expect(answer.headers.get('vary')).toMatch(/Origin/);
    // A client that is not a page sends no Origin: no CORS headers, and the answer still varies by Origin for caches.
    const plain = await call('/items');
    expect([...plain.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    expect(plain.headers.get('vary')).toMatch(/Origin/);
  });

  test('origins can be limited', async () => {
    const limited = await serveStub(start({ corsOrigins: ['https://only.example'] }), '/fx');
    try {
      const other = await fetch(`${limited.baseUrl}/items`, { headers: { origin: 'https://evil.example', authorization: 'Bearer good' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      const allowed = await fetch(`${limited.baseUrl}/items`, { headers: { origin: 'https://only.example', authorization: 'Bearer good' } });
      expect(allowed.headers.get('access-control-allow-origin')).toBe('https://only.example');
    } finally {
      await limited.close();
    }
  });
});
