/**
 * `npm run proxy`: the validating proxy in front of a backend, here the seo stub itself (which keeps
 * the contract) and a deliberately broken seo backend (wrong status, missing field, extra field,
 * off-contract stream frame, nothing listening).
 */
import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createValidatingProxy, VIOLATIONS_HEADER } from '../../server-stubs/lib/proxy.js';
import { seoErrors } from '../../server-stubs/seo/errors.js';
import { createSeoApp } from '../../server-stubs/seo/app.js';
import { parseEventStream } from '../../server-stubs/lib/sse.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';

const key = { authorization: 'Bearer seo_test_key' };
const project = { id: '0b6f5c9e-3c1a-4e5b-9a7d-2f1e8c4d6a01', name: 'P', domain: null };

async function listen(app: express.Express): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** A seo backend that breaks the contract in one way per route. */
function brokenBackend() {
  const app = express();
  app.get('/seo/projects', (_req, res) => res.status(418).json({ error: 'teapot', code: 'INTERNAL_ERROR' }));
  app.get('/seo/projects/:id', (_req, res) => res.json({ project: { id: project.id, name: 'P' } })); // domain missing
  app.patch('/seo/projects/:id', (_req, res) => res.json({ project: { ...project, secret: 'x' } })); // extra field
  app.get('/seo/crawl/:jobId/stream', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: progress\ndata: {"status":{"bogus":true}}\n\n');
    res.end('event: complete\ndata: {"status":{}}\n\n');
  });
  return app;
}

let stub: RunningStub;
let broken: Awaited<ReturnType<typeof listen>>;
const logs: string[] = [];

async function proxyTo(upstream: string, strict = false) {
  const app = express();
  app.use('/seo', createValidatingProxy({ slug: 'seo', upstream, errors: seoErrors, strict, log: (line) => logs.push(line) }));
  return listen(app);
}

beforeAll(async () => {
  const seo = createSeoApp();
  stub = await serveStub(seo, seo.basePath);
  broken = await listen(brokenBackend());
});
afterAll(async () => {
  await stub.close();
  await broken.close();
});

describe('in front of a backend that keeps the contract', () => {
  test('answers pass unchanged, with no violations', async () => {
    const proxy = await proxyTo(stub.baseUrl);
    try {
      const created = await fetch(`${proxy.url}/seo/projects`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: '{"name":"Through the proxy"}' });
      expect(created.status).toBe(201);
      expect(created.headers.get(VIOLATIONS_HEADER)).toBeNull();
      expect(((await created.json()) as { project: { name: string } }).project.name).toBe('Through the proxy');
    } finally {
      await proxy.close();
    }
  });

  test("a request off the contract is reported, and the backend's own answer passes", async () => {
    const proxy = await proxyTo(stub.baseUrl);
    try {
      const res = await fetch(`${proxy.url}/seo/projects`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: '{"name": 5}' });
      expect(res.status).toBe(400);
      expect(res.headers.get(VIOLATIONS_HEADER)).toMatch(/^request: body\.name must be string/);
    } finally {
      await proxy.close();
    }
  });
});

describe('in front of a broken backend', () => {
  test.each([
    ['an undeclared status', 'GET', '/seo/projects', /status 418 is not declared/],
    ['a missing field', 'GET', `/seo/projects/${project.id}`, /must have required property 'domain'/],
    ['an extra field', 'PATCH', `/seo/projects/${project.id}`, /must NOT have additional properties/],
  ])('%s is named in the header and the log; the answer passes', async (_case, method, path, problem) => {
    const proxy = await proxyTo(`${broken.url}/seo`);
    try {
      const body = method === 'PATCH' ? '{"name":"x"}' : undefined;
      const res = await fetch(`${proxy.url}${path}`, { method, headers: { ...key, 'content-type': 'application/json' }, body });
      expect(res.headers.get(VIOLATIONS_HEADER)).toMatch(problem);
      expect(logs.join('\n')).toMatch(problem);
    } finally {
      await proxy.close();
    }
  });

  test('--strict: a request off the contract is answered in the service body naming each field, as the stub would', async () => {
    const proxy = await proxyTo(`${broken.url}/seo`, true);
    const direct = await fetch(`${stub.baseUrl}/projects`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: '{"name": 5}' });
    try {
      const res = await fetch(`${proxy.url}/seo/projects`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: '{"name": 5}' });
      expect(res.status).toBe(400);
      const [body, stubBody] = (await Promise.all([res.json(), direct.json()])) as [{ code: string; error: string }, { code: string; error: string }];
      expect(body.error).toMatch(/^body\.name /);
      expect(body).toEqual(stubBody);
      const notJson = await fetch(`${proxy.url}/seo/projects`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: '{"name":' });
      expect(notJson.status).toBe(400);
      expect(JSON.stringify(await notJson.json())).toMatch(/JSON/);
    } finally {
      await proxy.close();
    }
  });

  test('--strict judges a request as the stubs do: an unknown field is ignored, a body over 5 MB is a 400 in the service body', async () => {
    const proxy = await proxyTo(stub.baseUrl, true);
    try {
      const extra = await fetch(`${proxy.url}/seo/projects`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: '{"name": "tolerated", "__proto__": {"x": 1}, "later": true}' });
      expect(extra.status).toBe(201);
      expect(extra.headers.get(VIOLATIONS_HEADER)).toBeNull();
      const huge = await fetch(`${proxy.url}/seo/projects`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: `{"name": "${'a'.repeat(6 * 2 ** 20)}"}` });
      expect(huge.status).toBe(400);
      // In the stubs' own words (failures.ts), as every refusal of the body reader is.
      expect(await huge.json()).toEqual({ error: 'Request body too large (limit 5242880 bytes)', code: 'VALIDATION_ERROR' });
    } finally {
      await proxy.close();
    }
  });

  test('--strict: the violation is the answer, a 502 in the service body', async () => {
    const proxy = await proxyTo(`${broken.url}/seo`, true);
    try {
      const res = await fetch(`${proxy.url}/seo/projects/${project.id}`, { headers: key });
      expect(res.status).toBe(502);
      const body = (await res.json()) as { error: string; code: string };
      expect(body.code).toBe('INTERNAL_ERROR');
      expect(body.error).toMatch(/domain/);
    } finally {
      await proxy.close();
    }
  });

  test('stream frames are checked as they pass; --strict stops at the first bad one', async () => {
    const path = `/seo/crawl/${project.id}/stream?projectId=${project.id}`;
    for (const strict of [false, true]) {
      const proxy = await proxyTo(`${broken.url}/seo`, strict);
      try {
        logs.length = 0;
        const text = await (await fetch(`${proxy.url}${path}`, { headers: key })).text();
        expect(logs.join('\n')).toMatch(/frame:/);
        expect(parseEventStream(text).frames.length).toBe(strict ? 0 : 2);
      } finally {
        await proxy.close();
      }
    }
  });

  test("a stream is read as a client reads it and written again by the stubs' writer: line ends, split chunks, comments and retry pass", async () => {
    const app = express();
    app.get('/seo/crawl/:jobId/stream', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('retry: 1500\r\n\r\n: ping\r\n\r\nevent: progress\r\nda');
      res.end('ta: {"status":{}}\r\n\r\nevent: complete\ndata: {"status":{}}\n\n');
    });
    const upstream = await listen(app);
    const proxy = await proxyTo(`${upstream.url}/seo`);
    try {
      const text = await (await fetch(`${proxy.url}/seo/crawl/${project.id}/stream?projectId=${project.id}`, { headers: key })).text();
      expect(text).toBe('retry: 1500\n\n: ping\n\nevent: progress\ndata: {"status":{}}\n\nevent: complete\ndata: {"status":{}}\n\n');
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });

  test('nothing listening upstream: 502 in the service body', async () => {
    const proxy = await proxyTo('http://127.0.0.1:9/seo');
    try {
      const res = await fetch(`${proxy.url}/seo/projects`, { headers: key });
      expect(res.status).toBe(502);
      expect(((await res.json()) as { code: string }).code).toBe('INTERNAL_ERROR');
    } finally {
      await proxy.close();
    }
  });
});
