/**
 * Coverage on the two other servers a client meets: the mock (`npm run mock`) counts what it
 * served, and the validating proxy (`npm run proxy`) what passed through it, each answering
 * `GET /_stub/coverage` on its own port as the stubs do.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startMockServer, type MockServer } from '../../mock/server.js';
import { createExpressServer } from '../../server-stubs/lib/http-server.js';
import { validatingProxyApp } from '../../server-stubs/lib/proxy.js';
import { createSeoApp } from '../../server-stubs/seo/app.js';
import { seoErrors } from '../../server-stubs/seo/errors.js';
import { call, coverage, operationOf, rangesDocument, rangesExercised, serviceOf } from '../helpers/coverage-fixture.js';
import { writeBundle } from '../helpers/imported-documents.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';

describe('the mock counts what it served', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'coverage-mock-'));
  let mock: MockServer;
  let origin = '';

  beforeAll(async () => {
    writeBundle(dir, 'ranges', rangesDocument);
    mock = await startMockServer(0, '127.0.0.1', { bundlesDir: dir });
    origin = `http://127.0.0.1:${mock.port}`;
  }, 120_000);
  afterAll(async () => {
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('per operationId, the statuses answered beside the declared ones, and the unmatched apart', async () => {
    expect(await call(`${origin}/ranges/items?limit=2`)).toBe(200);
    expect(await call(`${origin}/ranges/items`), 'no limit: refused').toBe(400);
    expect(await call(`${origin}/ranges/v2/items?limit=1`)).toBe(200);
    expect(await call(`${origin}/ranges/nothing-here`)).toBe(404);
    const { status, body } = await coverage(origin);
    expect(status).toBe(200);
    expect(body.counting).toBe(true);
    const ranges = serviceOf(body, 'ranges');
    expect(operationOf(ranges, 'listItems')).toEqual(rangesExercised.listItems);
    expect(operationOf(ranges, 'listItemsV2')).toEqual(rangesExercised.listItemsV2);
    expect(ranges.unmatched).toEqual({ requests: 1, routes: [{ method: 'GET', path: '/ranges/nothing-here', status: 404, count: 1 }], notListed: 0 });
    expect(ranges.summary).toEqual({ operations: 2, operationsExercised: 2, statuses: 6, statusesExercised: 3, requests: 4 });
  });

  test('?service= and DELETE as on the stubs', async () => {
    expect((await coverage(origin, '?service=nope')).body).toEqual({ error: 'No service "nope" is counted here' });
    expect((await coverage(origin, '?service=nope')).status).toBe(404);
    const cleared = await fetch(`${origin}/_stub/coverage?service=ranges`, { method: 'DELETE' });
    expect(await cleared.json()).toEqual({ cleared: ['ranges'] });
    expect(serviceOf((await coverage(origin, '?service=ranges')).body, 'ranges').summary.requests).toBe(0);
    const other = await fetch(`${origin}/_stub/coverage`, { method: 'PUT' });
    expect(other.status).toBe(405);
    expect(other.headers.get('allow')).toBe('GET, HEAD, DELETE');
  });
});

describe('the validating proxy counts what passed through it', () => {
  let stub: RunningStub;
  let proxy: http.Server;
  let origin = '';
  const key = { authorization: 'Bearer seo_test_key' };

  beforeAll(async () => {
    const seo = createSeoApp();
    stub = await serveStub(seo, seo.basePath);
    proxy = createExpressServer(validatingProxyApp({ slug: 'seo', upstream: stub.baseUrl, errors: seoErrors, log: () => {} }));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
    await stub.close();
  });

  test('each exchange by operationId and the status the client got, on the proxy own port', async () => {
    expect(await call(`${origin}/seo/projects`, { headers: key })).toBe(200);
    expect(await call(`${origin}/seo/projects`)).toBe(401);
    expect(await call(`${origin}/seo/projects`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: '{"name":"Counted"}' })).toBe(201);
    expect(await call(`${origin}/seo/nowhere`, { headers: key })).toBe(404);
    const seo = serviceOf((await coverage(origin, '?service=seo')).body, 'seo');
    expect(operationOf(seo, 'listProjects').answered).toEqual([
      { status: 200, count: 1, declared: '200' },
      { status: 401, count: 1, declared: '401' },
    ]);
    expect(operationOf(seo, 'createProject').answered).toEqual([{ status: 201, count: 1, declared: '201' }]);
    expect(operationOf(seo, 'getProject').requests).toBe(0);
    expect(seo.unmatched.routes).toEqual([{ method: 'GET', path: '/seo/nowhere', status: 404, count: 1 }]);
    expect(seo.summary.operationsExercised).toBe(2);
  });
});
