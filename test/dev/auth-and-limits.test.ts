/**
 * Who may search and how often (seed Authentication and Errors, DECISIONS dev-3): product-bound
 * bearer keys, 60 searches per 60 s per key with Retry-After on a manual clock, and 503 when
 * retrieval is off or failing. Every error in `{error: {message, type, code}}`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { createDevApp } from '../../server-stubs/dev/app.js';
import { createManualClock, type StubClock } from '../../server-stubs/lib/clock.js';
import type { Retriever } from '../../server-stubs/lib/retrieval.js';
import { serveStub } from '../helpers/stub.js';
import { expectCompletion, expectError, postSearch, startDev, type DevStub } from './support.js';

describe('401 authentication_error', () => {
  let dev: DevStub;
  beforeAll(async () => {
    dev = await startDev();
  });
  afterAll(() => dev.close());

  test.each([
    ['no Authorization header', {}, 'missing_api_key'],
    ['a Basic credential', { Authorization: 'Basic ZGV2X3Rlc3Rfa2V5Og==' }, 'missing_api_key'],
    ['Bearer without a token', { Authorization: 'Bearer ' }, 'missing_api_key'],
    ['an unknown key', { Authorization: 'Bearer dev_live_nope' }, 'invalid_api_key'],
    ['the revoked seed key', { Authorization: 'Bearer dev_test_revoked' }, 'revoked_api_key'],
    ['the seo product key', { Authorization: 'Bearer seo_test_key' }, 'wrong_product_key'],
    ['the coding-gateway key', { Authorization: 'Bearer coder_test_key' }, 'wrong_product_key'],
    ['a mail key', { Authorization: 'Bearer msk_test_max' }, 'wrong_product_key'],
  ])('%s', async (_name, headers, code) => {
    const res = await postSearch(dev.baseUrl, { query: 'caching' }, { key: null, headers });
    expectError(res, 401, 'authentication_error', code);
  });

  test('the live key works with any case of the scheme', async () => {
    expectCompletion(await postSearch(dev.baseUrl, { query: 'caching' }, { key: null, headers: { Authorization: 'bearer dev_test_key' } }));
  });

  test('auth comes before validation: a bad body with a bad key is a 401', async () => {
    const res = await postSearch(dev.baseUrl, { query: '' }, { key: 'dev_test_revoked' });
    expect(res.status).toBe(401);
  });
});

describe('429 rate_limit_error (manual clock)', () => {
  let dev: DevStub;
  let clock: StubClock;
  beforeAll(async () => {
    clock = createManualClock();
    dev = await startDev({ clock });
  });
  afterAll(() => dev.close());
  beforeEach(() => clock.advance(61_000));

  test('60 searches per 60 s; the 61st is 429 with Retry-After; the window passes on the clock', async () => {
    for (let i = 0; i < 60; i += 1) expect((await postSearch(dev.baseUrl, { query: 'caching' })).status).toBe(200);
    const limited = await postSearch(dev.baseUrl, { query: 'caching' });
    expectError(limited, 429, 'rate_limit_error', 'rate_limit_exceeded');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);

    clock.advance((retryAfter - 1) * 1000);
    expect((await postSearch(dev.baseUrl, { query: 'caching' })).status).toBe(429);
    clock.advance(1000);
    expectCompletion(await postSearch(dev.baseUrl, { query: 'caching' }));
  });
});

describe('503 service_unavailable_error', () => {
  test('retrieval switched off by the app option', async () => {
    const dev = await startDev({ retrieval: 'off' });
    try {
      const res = await postSearch(dev.baseUrl, { query: 'caching' });
      expectError(res, 503, 'service_unavailable_error', 'retrieval_unavailable');
      expect(res.body.error.message).toMatch(/retry/i);
      // Requests are still checked first: a bad one is a 400, not a 503.
      expectError(await postSearch(dev.baseUrl, { query: '' }), 400, 'invalid_request_error', 'invalid_request');
    } finally {
      await dev.close();
    }
  });

  test('retrieval switched off by DEV_RETRIEVAL=off (as under npm start)', async () => {
    vi.stubEnv('DEV_RETRIEVAL', 'off');
    try {
      const app = createDevApp();
      const stub = await serveStub(app, app.basePath);
      try {
        expectError(await postSearch(stub.baseUrl, { query: 'caching' }), 503, 'service_unavailable_error', 'retrieval_unavailable');
      } finally {
        await stub.close();
      }
    } finally {
      vi.unstubAllEnvs();
    }
  });

  test('the option wins over the environment', async () => {
    vi.stubEnv('DEV_RETRIEVAL', 'off');
    try {
      const dev = await startDev({ retrieval: 'on' });
      try {
        expectCompletion(await postSearch(dev.baseUrl, { query: 'caching' }));
      } finally {
        await dev.close();
      }
    } finally {
      vi.unstubAllEnvs();
    }
  });

  test('a retriever that fails answers 503, not 500', async () => {
    const failing: Retriever = { search: async () => Promise.reject(new Error('upstream search timed out')) };
    const dev = await startDev({ retriever: failing });
    try {
      const res = await postSearch(dev.baseUrl, { query: 'caching' });
      expectError(res, 503, 'service_unavailable_error', 'retrieval_unavailable');
      expect(JSON.stringify(res.body)).not.toContain('timed out');
    } finally {
      await dev.close();
    }
  });
});

describe('other failures keep the error body', () => {
  let dev: DevStub;
  beforeAll(async () => {
    dev = await startDev();
  });
  afterAll(() => dev.close());

  test('GET on the search path is 405 with Allow, in the error body', async () => {
    const res = await fetch(`${dev.baseUrl}/v1/search`, { headers: { Authorization: 'Bearer dev_test_key' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('POST');
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'method_not_allowed' } });
  });

  test('an unknown path is 404 in the error body', async () => {
    const res = await fetch(`${dev.baseUrl}/v1/nothing`, { method: 'POST', headers: { Authorization: 'Bearer dev_test_key' } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'not_found' } });
  });

  test('a body of another media type is a 400 in the error body', async () => {
    const res = await fetch(`${dev.baseUrl}/v1/search`, { method: 'POST', headers: { Authorization: 'Bearer dev_test_key', 'Content-Type': 'text/plain' }, body: 'caching' });
    expectError({ status: res.status, body: await res.json() }, 400, 'invalid_request_error', 'invalid_request');
  });
});
