/**
 * Coverage of what clients exercised, on the stubs (CONVENTIONS §6 "State and coverage"):
 * `GET /_stub/coverage` answers per service and operationId the statuses answered, with their
 * counts, beside the statuses the contract declares; `DELETE` starts a fresh count; a reset of the
 * seeds leaves it alone; the switch turns counting off.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { UNMATCHED_ROUTES_KEPT } from '../../server-stubs/lib/coverage.js';
import { contractStub } from '../../server-stubs/lib/contract-stub.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import seoService from '../../server-stubs/seo/app.js';
import { startPlatformServer, type PlatformServer } from '../../server-stubs/server.js';
import { call, coverage, operationOf, rangesDocument, rangesExercised, serviceOf } from '../helpers/coverage-fixture.js';

const seoKey = { authorization: 'Bearer seo_test_key' };
/** The statuses the seo bundle declares, read from the document itself. */
const seoBundle = JSON.parse(readFileSync(path.join(defaultRoot, 'generated/seo/openapi.json'), 'utf8')) as { paths: Record<string, Record<string, { operationId?: string; responses: Record<string, unknown> }>> };
const declaredBySeo = (operationId: string) => {
  for (const item of Object.values(seoBundle.paths)) for (const op of Object.values(item)) if (op.operationId === operationId) return Object.keys(op.responses);
  throw new Error(`seo has no ${operationId}`);
};

describe('the stubs count what clients exercised', () => {
  let platform: PlatformServer;
  let origin = '';

  beforeAll(async () => {
    platform = await startPlatformServer(0, '127.0.0.1', { services: [seoService, contractStub('ranges', rangesDocument)], switches: { rateLimits: false } });
    origin = `http://127.0.0.1:${platform.port}`;
  });
  afterAll(() => platform.close());
  beforeEach(async () => {
    expect(await call(`${origin}/_stub/coverage`, { method: 'DELETE' })).toBe(200);
  });

  test('a few calls to seo show exactly those statuses, beside every status the contract declares', async () => {
    expect(await call(`${origin}/seo/projects`, { headers: seoKey })).toBe(200);
    expect(await call(`${origin}/seo/projects`, { method: 'HEAD', headers: seoKey }), 'a HEAD counts for its GET').toBe(200);
    expect(await call(`${origin}/seo/projects`)).toBe(401);
    expect(await call(`${origin}/seo/projects/0b6f5c9e-3c1a-4e5b-9a7d-2f1e8c4d6a99`, { headers: seoKey })).toBe(404);
    const preflight = { origin: 'http://app.example', 'access-control-request-method': 'GET' };
    expect(await call(`${origin}/seo/projects`, { method: 'OPTIONS', headers: preflight }), 'a CORS preflight is not a call of the contract').toBe(204);
    expect(await call(`${origin}/seo/nothing-here?x=1`, { headers: seoKey })).toBe(404);
    expect(await call(`${origin}/seo/projects`, { method: 'PUT', headers: seoKey })).toBe(405);

    const { status, body } = await coverage(origin, '?service=seo');
    expect(status).toBe(200);
    expect(body.counting).toBe(true);
    expect(body.services.map((s) => s.service)).toEqual(['seo']);
    const seo = serviceOf(body, 'seo');
    expect(operationOf(seo, 'listProjects')).toEqual({
      operationId: 'listProjects',
      method: 'GET',
      path: '/projects',
      requests: 3,
      declared: declaredBySeo('listProjects').map((s) => ({ status: s, count: s === '200' ? 2 : s === '401' ? 1 : 0 })),
      answered: [
        { status: 200, count: 2, declared: '200' },
        { status: 401, count: 1, declared: '401' },
      ],
    });
    expect(operationOf(seo, 'getProject').answered).toEqual([{ status: 404, count: 1, declared: '404' }]);
    expect(operationOf(seo, 'getProject').declared.map((d) => d.status)).toEqual(declaredBySeo('getProject'));
    const untouched = seo.operations.filter((o) => !['listProjects', 'getProject'].includes(o.operationId));
    expect(untouched.length).toBe(seo.operations.length - 2);
    for (const operation of untouched) {
      expect(operation.requests, operation.operationId).toBe(0);
      expect(operation.answered).toEqual([]);
      expect(operation.declared.map((d) => d.status)).toEqual(declaredBySeo(operation.operationId));
    }
    expect(seo.unmatched).toEqual({
      requests: 2,
      routes: [
        { method: 'GET', path: '/seo/nothing-here', status: 404, count: 1 },
        { method: 'PUT', path: '/seo/projects', status: 405, count: 1 },
      ],
      notListed: 0,
    });
    const declaredCount = seo.operations.reduce((sum, o) => sum + o.declared.length, 0);
    expect(seo.summary).toEqual({ operations: seo.operations.length, operationsExercised: 2, statuses: declaredCount, statusesExercised: 3, requests: 6 });
  });

  test('a status declared as a range or default counts there; an alias counts under its own operationId', async () => {
    expect(await call(`${origin}/ranges/items?limit=2`)).toBe(200);
    expect(await call(`${origin}/ranges/items`), 'no limit: refused').toBe(400);
    expect(await call(`${origin}/ranges/v2/items?limit=1`)).toBe(200);
    const ranges = serviceOf((await coverage(origin, '?service=ranges')).body, 'ranges');
    expect(operationOf(ranges, 'listItems')).toEqual(rangesExercised.listItems);
    expect(operationOf(ranges, 'listItemsV2')).toEqual(rangesExercised.listItemsV2);
  });

  test('every service without ?service=; an unknown or empty slug is refused in the controls error body', async () => {
    expect(await call(`${origin}/seo/projects`, { headers: seoKey })).toBe(200);
    const all = await coverage(origin);
    expect(all.body.services.map((s) => s.service)).toEqual(['ranges', 'seo']);
    expect(serviceOf(all.body, 'seo').summary.requests).toBe(1);
    expect(serviceOf(all.body, 'ranges').summary.requests).toBe(0);
    const unknown = await coverage(origin, '?service=nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'No service "nope" is counted here' });
    const empty = await coverage(origin, '?service=');
    expect(empty.status).toBe(400);
    expect(empty.body.error).toEqual(expect.any(String));
  });

  test('POST /_stub/reset leaves the count; DELETE clears one service, or all', async () => {
    expect(await call(`${origin}/seo/projects`, { headers: seoKey })).toBe(200);
    expect(await call(`${origin}/ranges/items?limit=1`)).toBe(200);
    expect(await call(`${origin}/_stub/reset`, { method: 'POST' })).toBe(200);
    const afterReset = (await coverage(origin)).body;
    expect(operationOf(serviceOf(afterReset, 'seo'), 'listProjects').answered).toEqual([{ status: 200, count: 1, declared: '200' }]);

    const cleared = await fetch(`${origin}/_stub/coverage?service=seo`, { method: 'DELETE' });
    expect(cleared.status).toBe(200);
    expect(await cleared.json()).toEqual({ cleared: ['seo'] });
    const afterOne = (await coverage(origin)).body;
    expect(serviceOf(afterOne, 'seo').summary.requests).toBe(0);
    expect(Date.parse(serviceOf(afterOne, 'seo').since)).toBeGreaterThanOrEqual(Date.parse(serviceOf(afterOne, 'ranges').since));
    expect(serviceOf(afterOne, 'ranges').summary.requests, 'the other service keeps its count').toBe(1);

    const all = await fetch(`${origin}/_stub/coverage`, { method: 'DELETE' });
    expect(await all.json()).toEqual({ cleared: ['ranges', 'seo'] });
    expect(serviceOf((await coverage(origin)).body, 'ranges').summary.requests).toBe(0);
    const unknown = await fetch(`${origin}/_stub/coverage?service=nope`, { method: 'DELETE' });
    expect(unknown.status).toBe(404);
  });

  test('requests that address no operation are listed up to a cap, the rest only counted', async () => {
    const extra = 5;
    for (let i = 0; i < UNMATCHED_ROUTES_KEPT + extra; i++) expect(await call(`${origin}/ranges/fuzz-${i}`)).toBe(404);
    expect(await call(`${origin}/ranges/fuzz-0`)).toBe(404);
    expect(await call(`${origin}/ranges/${'x'.repeat(5000)}`)).toBe(404);
    const { unmatched } = serviceOf((await coverage(origin, '?service=ranges')).body, 'ranges');
    expect(unmatched.requests).toBe(UNMATCHED_ROUTES_KEPT + extra + 2);
    expect(unmatched.routes).toHaveLength(UNMATCHED_ROUTES_KEPT);
    expect(unmatched.routes[0]).toEqual({ method: 'GET', path: '/ranges/fuzz-0', status: 404, count: 2 });
    expect(unmatched.notListed).toBe(extra + 1);
  });
});

describe('with counting switched off', () => {
  let platform: PlatformServer;
  let origin = '';

  beforeAll(async () => {
    platform = await startPlatformServer(0, '127.0.0.1', { services: [seoService], switches: { rateLimits: false, countCoverage: false } });
    origin = `http://127.0.0.1:${platform.port}`;
  });
  afterAll(() => platform.close());

  test('the stubs count nothing and say so', async () => {
    expect(await call(`${origin}/seo/projects`, { headers: seoKey })).toBe(200);
    expect(await coverage(origin)).toEqual({ status: 200, body: { counting: false, services: [] } });
    expect((await coverage(origin, '?service=seo')).status).toBe(404);
  });
});
