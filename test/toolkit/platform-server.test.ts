/**
 * `npm start`'s server: one port for every service, the development controls at /_stub
 * (CONVENTIONS §6), JSON everywhere, and a service that fails to start does not take the others down.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createManualClock } from '../../server-stubs/lib/clock.js';
import type { StubService } from '../../server-stubs/lib/service.js';
import seoService from '../../server-stubs/seo/app.js';
import { seoErrors } from '../../server-stubs/seo/errors.js';
import { startPlatformServer, type PlatformServer } from '../../server-stubs/server.js';

async function json(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  const text = await response.text();
  expect(response.headers.get('content-type') ?? '', `${url} answers JSON`).toMatch(/^application\/json/);
  return { status: response.status, body: JSON.parse(text) };
}

const seoKey = { authorization: 'Bearer seo_test_key' };

describe('development controls', () => {
  let platform: PlatformServer;
  let origin = '';
  const start = Date.parse('2026-01-15T09:30:00Z');

  beforeAll(async () => {
    platform = await startPlatformServer(0, '127.0.0.1', { clock: createManualClock(start) });
    origin = `http://127.0.0.1:${platform.port}`;
  });
  afterAll(() => platform.close());

  test('GET /_stub/clock tells the time every stub sees', async () => {
    expect(await json(`${origin}/_stub/clock`)).toEqual({ status: 200, body: { now: '2026-01-15T09:30:00.000Z', manual: true } });
  });

  test('POST /_stub/clock moves it forward by seconds or to an instant, never back', async () => {
    const move = (body: unknown) => json(`${origin}/_stub/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await move({ advanceSeconds: 3600 })).body.now).toBe('2026-01-15T10:30:00.000Z');
    expect((await move({ advanceSeconds: 0 })).body.now).toBe('2026-01-15T10:30:00.000Z');
    expect((await move({ set: '2026-02-01T00:00:00Z' })).body.now).toBe('2026-02-01T00:00:00.000Z');
    const back = await move({ set: '2026-01-01T00:00:00Z' });
    expect(back.status).toBe(400);
    expect(back.body.error).toMatch(/before/);
    expect((await move({ advanceSeconds: -5 })).status).toBe(400);
    expect((await move({ advanceSeconds: 'soon' })).status).toBe(400);
    expect((await move({ advanceSeconds: 3_153_600_000 })).status, 'a century at most, and never past year 9999').toBe(200);
    const past9999 = await move({ set: '+010000-01-01T00:00:00Z' });
    expect(past9999.status).toBe(400);
    expect((await json(`${origin}/_stub/clock`)).body.now).toBe('2126-01-08T00:00:00.000Z');
  });

  test('the clock stops at the last instant a date-time can name', () => {
    const clock = createManualClock(Date.parse('9999-12-31T23:59:58.999Z'));
    clock.advance(1000);
    expect(new Date(clock.now()).toISOString()).toBe('9999-12-31T23:59:59.999Z');
    expect(() => clock.advance(1)).toThrow(/9999/);
  });

  test('rate windows follow the stub clock', async () => {
    const create = () => fetch(`${origin}/seo/projects`, { method: 'POST', headers: { ...seoKey, 'content-type': 'application/json' }, body: '{"name":"p"}' });
    let last = 0;
    for (let i = 0; i < 31; i += 1) last = (await create()).status;
    expect(last).toBe(429);
    await fetch(`${origin}/_stub/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"advanceSeconds": 61}' });
    expect((await create()).status).toBe(201);
  });

  test('POST /_stub/reset puts every service back to its seeds, the clock where it is', async () => {
    const rpc = (method: string, params: unknown = {}) =>
      json(`${origin}/chain-rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const seededHeight = (await rpc('chain_getChainInfo')).body.result.height;
    await rpc('chain_mine', { count: 3 });
    expect((await rpc('chain_getChainInfo')).body.result.height).toBe(seededHeight + 3);
    const before = await json(`${origin}/seo/projects`, { headers: seoKey });
    expect(before.body.projects.length).toBeGreaterThan(1);
    const reset = await json(`${origin}/_stub/reset`, { method: 'POST' });
    expect(reset.status).toBe(200);
    expect(reset.body.reset).toEqual(expect.arrayContaining(['chain-rpc', 'seo', 'mail']));
    expect((await rpc('chain_getChainInfo')).body.result.height).toBe(seededHeight);
    const after = await json(`${origin}/seo/projects`, { headers: seoKey });
    expect(after.body.projects.map((p: { name: string }) => p.name)).toEqual(['My project']);
    expect((await json(`${origin}/_stub/clock`)).body.now).toBe('2126-01-08T00:01:01.000Z');
  });

  test("an issuer's OAuth metadata is also where RFC 8414 puts it for an issuer with a path", async () => {
    const under = await json(`${origin}/mail/.well-known/oauth-authorization-server`);
    const root = await json(`${origin}/.well-known/oauth-authorization-server/mail?x=1`);
    expect(root.status).toBe(200);
    expect(root.body).toEqual(under.body);
    expect(root.body.issuer).toBe(`${origin}/mail`);
    expect((await json(`${origin}/.well-known/oauth-authorization-server/nope`)).status).toBe(404);
  });

  test('outside every service the answer is JSON, never an HTML page', async () => {
    const res = await json(`${origin}/no/such/thing`);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatch(/No route/);
  });
});

describe('a service that fails to start', () => {
  test('is reported and answers 503; the others are served', async () => {
    const broken: StubService = {
      slug: 'broken',
      basePath: '/broken',
      title: 'Broken',
      credentials: [],
      create: () => {
        throw new Error('no handler module for getProjectSummary');
      },
    };
    // A load error quotes files where they lie on this machine; the answer names them from the repo.
    const here = process.cwd();
    const leaky: StubService = {
      slug: 'leaky',
      basePath: '/leaky',
      title: 'Leaky',
      credentials: [],
      errors: seoErrors,
      create: () => {
        throw new Error(`Cannot find module '${here}/server-stubs/leaky/handlers.ts' imported from /home/someone/elsewhere/app.ts`);
      },
    };
    const platform = await startPlatformServer(0, '127.0.0.1', { services: [broken, leaky, seoService as StubService] });
    try {
      const origin = `http://127.0.0.1:${platform.port}`;
      expect(platform.broken[0]).toEqual({ slug: 'broken', basePath: '/broken', error: 'no handler module for getProjectSummary' });
      expect(await json(`${origin}/broken/anything`)).toMatchObject({ status: 503, body: { error: expect.stringContaining('getProjectSummary'), code: 'SERVICE_UNAVAILABLE' } });
      const leaked = await json(`${origin}/leaky/anything`);
      expect(leaked).toMatchObject({ status: 503, body: { code: 'INTERNAL_ERROR' } });
      expect(leaked.body.error).toContain("'server-stubs/leaky/handlers.ts'");
      expect(leaked.body.error).toContain('from app.ts');
      expect(leaked.body.error).not.toMatch(/\/home\/|\/work\/|\/tmp\//);
      expect((await json(`${origin}/seo/projects`, { headers: seoKey })).status).toBe(200);
    } finally {
      await platform.close();
    }
  });
});

describe('a running service is handed its requests as app.use(basePath, router) would', () => {
  let platform: PlatformServer;
  let origin = '';
  let calls = 0;
  // A service whose router echoes what Express would have set, passes `/pass` on and fails `/fail`.
  const echo: StubService = {
    slug: 'echo',
    basePath: '/echo',
    title: 'Echo',
    credentials: [],
    create: () => ({
      router: (req, res, next) => {
        calls++;
        if (req.path === '/pass') return next();
        if (req.path === '/fail') return next(new Error('the handler broke'));
        if (req.path === '/throw') throw new Error('thrown');
        if (req.path === '/reject') return Promise.reject(new Error('rejected')) as never;
        res.json({ baseUrl: req.baseUrl, url: req.url, originalUrl: req.originalUrl, path: req.path, query: req.query, locals: typeof res.locals, same: req.res === res });
      },
    }),
  };

  beforeAll(async () => {
    platform = await startPlatformServer(0, '127.0.0.1', { services: [echo, seoService as StubService] });
    origin = `http://127.0.0.1:${platform.port}`;
  });
  afterAll(() => platform.close());

  test('base URL, the URL below it, the original URL, the query', async () => {
    expect(await json(`${origin}/echo/items/a1?sort=name`)).toEqual({
      status: 200,
      body: { baseUrl: '/echo', url: '/items/a1?sort=name', originalUrl: '/echo/items/a1?sort=name', path: '/items/a1', query: { sort: 'name' }, locals: 'object', same: true },
    });
    expect((await json(`${origin}/echo?x=1`)).body).toMatchObject({ url: '/?x=1', path: '/', query: { x: '1' } });
    expect((await json(`${origin}/echo`)).body).toMatchObject({ url: '/', path: '/' });
    // Another path that only starts with the base path is not the service's.
    expect(await json(`${origin}/echoes/x`)).toMatchObject({ status: 404, body: { error: 'No route GET /echoes/x' } });
  });

  test('a request the service passes on is the platform 404, and the service ran once', async () => {
    calls = 0;
    expect(await json(`${origin}/echo/pass`)).toMatchObject({ status: 404, body: { error: 'No route GET /echo/pass' } });
    expect(calls).toBe(1);
  });

  test('an error the service passes on, throws or rejects with is a 500 in JSON without its message, and the server lives on', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    for (const path of ['/fail', '/throw', '/reject']) expect(await json(`${origin}/echo${path}`), path).toEqual({ status: 500, body: { error: 'Internal error', code: 'INTERNAL' } });
    expect(log).toHaveBeenCalled();
    log.mockRestore();
  });

  test('a base path in other letter case still reaches the service, through the app', async () => {
    expect((await json(`${origin}/ECHO/items/b2`)).body).toMatchObject({ baseUrl: '/ECHO', path: '/items/b2' });
  });
});

/** Raw bytes to the server and what came back: for requests no HTTP client would send. */
function rawExchange(port: number, text: string): Promise<{ status: number; type: string; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let out = '';
    socket.on('data', (chunk) => (out += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = out.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), type: /content-type: ([^\r]+)/i.exec(head)?.[1] ?? '', body: body ? JSON.parse(body) : undefined });
    });
  });
}

describe("what the HTTP server refuses itself is answered in the service's error body", () => {
  let platform: PlatformServer;
  let origin = '';
  beforeAll(async () => {
    platform = await startPlatformServer(0, '127.0.0.1');
    origin = `http://127.0.0.1:${platform.port}`;
  });
  afterAll(() => platform.close());

  test('an unknown method, headers over 16 KB: the body of the service the target names, else the platform’s', async () => {
    expect(await rawExchange(platform.port, 'FOO /seo/projects HTTP/1.1\r\nHost: x\r\n\r\n')).toEqual({
      status: 400,
      type: 'application/json; charset=utf-8',
      body: { error: '"FOO" is not an HTTP method this server knows', code: 'VALIDATION_ERROR' },
    });
    const big = await rawExchange(platform.port, `GET /seo/projects HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big).toMatchObject({ status: 431, body: { code: 'VALIDATION_ERROR', error: expect.stringMatching(/16 KB/) } });
    const mail = await rawExchange(platform.port, 'FOO /mail/v1/contacts HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(mail.status).toBe(400);
    expect(mail.body).not.toHaveProperty('code', 'VALIDATION_ERROR');
    expect(await rawExchange(platform.port, 'FOO /nowhere HTTP/1.1\r\nHost: x\r\n\r\n')).toMatchObject({ status: 400, body: { code: 'VALIDATION', error: expect.any(String) } });
  });

  test("a service whose error body depends on the route: coder's OpenAI, Anthropic and own routes each in their body", async () => {
    const padding = `X-Big: ${'a'.repeat(20_000)}\r\n`;
    const openai = await rawExchange(platform.port, `POST /coder/v1/chat/completions HTTP/1.1\r\nHost: x\r\n${padding}\r\n`);
    expect(openai).toMatchObject({ status: 431, body: { error: { type: 'invalid_request_error', message: expect.stringMatching(/16 KB/), param: null, code: null } } });
    const anthropic = await rawExchange(platform.port, 'FOO /coder/v1/messages HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(anthropic).toMatchObject({ status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(/FOO/) } } });
    const own = await rawExchange(platform.port, 'FOO /coder/sessions HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(own).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/FOO/) } });
  });

  test('a body that is not the gzip it claims, and a body without a content type, say so', async () => {
    const post = (headers: Record<string, string>, body: string) => json(`${origin}/seo/projects`, { method: 'POST', headers: { ...seoKey, ...headers }, body });
    const gzip = await post({ 'content-type': 'application/json', 'content-encoding': 'gzip' }, '{"name":"a"}');
    expect(gzip).toEqual({ status: 400, body: { code: 'VALIDATION_ERROR', error: 'The body is not valid gzip data (Content-Encoding: gzip); send it encoded so, or without the header' } });
    const untyped = await post({ 'content-type': 'text/plain' }, '{"name":"a"}');
    expect(untyped).toEqual({ status: 400, body: { code: 'VALIDATION_ERROR', error: 'Content-Type text/plain is not accepted; POST /seo/projects takes application/json' } });
  });
});
