/** Keys bound to the product (401), the 100 requests per minute per key (429 without a plan code), 405. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createManualClock, type StubClock } from '../../server-stubs/lib/clock.js';
import { loadContract } from '../../server-stubs/lib/contract.js';
import { BUSINESS, checked, contract, draftBody, FREE, PRO, raw, startBlog, type BlogStub } from './support.js';
import { listOperations } from '../../server-stubs/lib/openapi/document.js';

describe('401: keys begin mbk_ and are bound to this product', () => {
  let blog: BlogStub;
  beforeAll(async () => {
    blog = await startBlog();
  });
  afterAll(() => blog.close());

  const cases: Array<[string, Record<string, string>]> = [
    ['no Authorization header', {}],
    ['Bearer without a token', { Authorization: 'Bearer ' }],
    ['Basic scheme', { Authorization: `Basic ${Buffer.from(`${FREE}:`).toString('base64')}` }],
    ['an unknown mbk_ key', { Authorization: 'Bearer mbk_live_unknown' }],
    ['a seeded key with a suffix', { Authorization: `Bearer ${FREE}x` }],
    ['the search-optimization key', { Authorization: 'Bearer seo_test_key' }],
    ['the mail key', { Authorization: 'Bearer msk_test_pro' }],
    ['the coding gateway key', { Authorization: 'Bearer coder_test_key' }],
    ['the grounded-search key', { Authorization: 'Bearer dev_test_key' }],
  ];

  test.each(cases)('GET /v1/search with %s: 401 unauthorized', async (_name, headers) => {
    const res = await raw(blog.baseUrl, 'GET', '/v1/search?q=typescript', { key: null, headers });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 401, code: 'unauthorized' });
    expect(contract.responseErrors('/v1/search', 'get', 401, res.body)).toEqual([]);
  });

  test.each(cases)('POST /v1/drafts with %s: 401, and nothing is written or counted', async (_name, headers) => {
    const res = await raw(blog.baseUrl, 'POST', '/v1/drafts', { key: null, headers, body: draftBody });
    expect(res.status).toBe(401);
    expect(contract.responseErrors('/v1/drafts', 'post', 401, res.body)).toEqual([]);
    for (const account of blog.app.store.accounts.values()) expect(Object.keys(account.drafts)).toHaveLength(0);
  });

  test('the seeded keys are taken, with the scheme in any case', async () => {
    for (const key of [FREE, PRO, BUSINESS]) {
      expect((await raw(blog.baseUrl, 'GET', '/v1/plan', { key: null, headers: { Authorization: `bearer ${key}` } })).status).toBe(200);
    }
  });
});

describe('429: 100 requests per minute per key, across every route (manual clock)', () => {
  let blog: BlogStub;
  let clock: StubClock;
  beforeAll(async () => {
    clock = createManualClock(Date.parse('2026-01-15T09:30:00Z'));
    blog = await startBlog({ clock });
  });
  afterAll(() => blog.close());
  beforeEach(() => clock.advance(61_000));

  test('the 101st request in a minute, on any route, is 429 rate_limited with Retry-After and no plan code; waiting clears it', async () => {
    const client = blog.client(FREE);
    // The window is the key's, not the route's: searches, plan reads and writes share it.
    for (let i = 0; i < 60; i += 1) expect((await client.GET('/v1/search', { params: { query: { tag: 'go' } } })).response.status).toBe(200);
    for (let i = 0; i < 30; i += 1) expect((await client.GET('/v1/plan')).response.status).toBe(200);
    for (let i = 0; i < 10; i += 1) expect((await client.POST('/v1/assistant/prompts', { body: { prompt: `p${i}` } })).response.status).toBe(200);
    clock.advance(20_000);

    const limited = checked(await client.POST('/v1/drafts', { body: draftBody }), { path: '/v1/drafts', method: 'post' });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: expect.any(String), code: 'rate_limited' });
    expect(limited.body.code).not.toBe('plan_limit_exceeded');
    expect(limited.body.upgrade).toBeUndefined();
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
    expect(retryAfter).toBe(40);
    // A rate-limited write did nothing and was not counted.
    expect(Object.keys(blog.app.store.account('acct_free').drafts)).toHaveLength(0);

    const search = checked(await client.GET('/v1/search', { params: { query: { q: 'go' } } }), { path: '/v1/search', method: 'get' });
    expect({ status: search.status, code: search.body.code }).toEqual({ status: 429, code: 'rate_limited' });

    // Another key has a window of its own.
    expect((await blog.client(PRO).GET('/v1/plan')).response.status).toBe(200);

    clock.advance(retryAfter * 1000 - 1);
    expect((await client.GET('/v1/plan')).response.status).toBe(429);
    clock.advance(1);
    const after = await client.POST('/v1/drafts', { body: draftBody });
    expect(after.response.status).toBe(201);
    expect(after.response.headers.get('x-service-usage-used')).toBe('1');
  });

  test('every operation declares the shared bucket: 100 per 60 s per key', () => {
    for (const { path, op } of listOperations(loadContract('blog').document)) expect(op['x-rate-limit'], path).toEqual({ requests: 100, windowSeconds: 60, bucket: 'key' });
  });
});

describe('405 and unknown routes', () => {
  let blog: BlogStub;
  beforeAll(async () => {
    blog = await startBlog();
  });
  afterAll(() => blog.close());

  test('a known path with another method: 405 with Allow, in the blog error body', async () => {
    const res = await raw(blog.baseUrl, 'DELETE', '/v1/plan');
    expect({ status: res.status, code: res.body.code, allow: res.headers.get('allow') }).toEqual({ status: 405, code: 'method_not_allowed', allow: 'GET, HEAD, OPTIONS' });
  });

  test('an unknown path: 404 not_found', async () => {
    const res = await raw(blog.baseUrl, 'GET', '/v2/search');
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 'not_found' });
  });
});
