/**
 * `x-rate-limit` through HTTP: each operation has its own window per key, unless operations name a
 * shared `bucket` (a service-wide "N requests per minute per key"); windows follow the stub clock.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { bearerKeys } from '../../server-stubs/lib/auth.js';
import { createManualClock } from '../../server-stubs/lib/clock.js';
import { createServiceRouter } from '../../server-stubs/lib/service-router.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';
import { asDocument } from '../helpers/fixture-document.js';

const error = { type: 'object', required: ['error'], properties: { error: { type: 'string' } } };
const errorResponse = { description: 'error', content: { 'application/json': { schema: error } } };
const limited = { ...errorResponse, headers: { 'Retry-After': { required: true, schema: { type: 'integer' } } } };
const operation = (operationId: string, rule: Record<string, unknown>) => ({
  get: {
    operationId,
    'x-rate-limit': rule,
    responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } }, 401: errorResponse, 429: limited },
  },
});
const document = asDocument({
  openapi: '3.1.0',
  info: { title: 'rate limits', version: '1' },
  servers: [{ url: 'http://localhost/rl' }],
  security: [{ bearerAuth: [] }],
  components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
  paths: {
    '/a': operation('getA', { requests: 2, windowSeconds: 60, bucket: 'key' }),
    '/b': operation('getB', { requests: 2, windowSeconds: 60, bucket: 'key' }),
    '/own': operation('getOwn', { requests: 2, windowSeconds: 60 }),
  },
});

const clock = createManualClock();
let stub: RunningStub;
beforeAll(async () => {
  const ok = () => ({ status: 200 as const, body: {} });
  const service = createServiceRouter({
    slug: 'rl',
    document,
    handlers: { getA: ok, getB: ok, getOwn: ok } as never,
    security: { bearerAuth: bearerKeys((token) => (token.startsWith('k') ? { id: token } : undefined)) },
    errors: (failure) => ({ status: failure.status, body: { error: failure.message } }),
    clock,
  });
  stub = await serveStub(service, '/rl');
});
afterAll(() => stub.close());

const get = (path: string, key = 'k1') => fetch(`${stub.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });

test('operations sharing a bucket share one window per key; others keep their own', async () => {
  expect((await get('/a')).status).toBe(200);
  expect((await get('/b')).status).toBe(200);
  const refused = await get('/a');
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect((await get('/b')).status).toBe(429);
  // Another key, and an operation with a window of its own, are not affected.
  expect((await get('/b', 'k2')).status).toBe(200);
  expect((await get('/own')).status).toBe(200);
  clock.advance(60_000);
  expect((await get('/b')).status).toBe(200);
});

test('the window slides: each request leaves it a window after it came, the oldest first', async () => {
  const key = 'k-sliding';
  expect((await get('/own', key)).status).toBe(200);
  clock.advance(20_000);
  expect((await get('/own', key)).status).toBe(200);
  const full = await get('/own', key);
  expect(full.status).toBe(429);
  // The oldest request leaves the window 40 s from now.
  expect(full.headers.get('retry-after')).toBe('40');
  clock.advance(40_000);
  expect((await get('/own', key)).status).toBe(200);
  // Full again: now the second request is the oldest, 20 s from leaving.
  const again = await get('/own', key);
  expect(again.status).toBe(429);
  expect(again.headers.get('retry-after')).toBe('20');
  clock.advance(20_000);
  expect((await get('/own', key)).status).toBe(200);
});
