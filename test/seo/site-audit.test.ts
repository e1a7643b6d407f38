import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createManualClock, type StubClock } from '../../server-stubs/lib/clock.js';
import { LookupFailed, type Resolver } from '../../server-stubs/lib/net-guard.js';
import { crawlStatus, expectError, KEY_2, newProject, outcome, raw, startCrawl, startSeo, UNKNOWN_ID, type SeoStub } from './support.js';

const QUEUED_MS = 1_000;
const PAGE_MS = 100;

let seo: SeoStub;
let clock: StubClock;
let projectId: string;
const resolved: string[] = [];
/** Documentation names resolve offline as the default resolver does; `nxdomain.test` does not resolve. */
const resolver: Resolver = {
  async resolve(hostname) {
    resolved.push(hostname);
    if (hostname === 'nxdomain.test') throw new LookupFailed('nxdomain.test did not resolve (ENOTFOUND)');
    if (/(^|\.)example(\.com)?$/.test(hostname)) return ['192.0.2.10'];
    return [hostname.replace(/^\[|\]$/g, '')];
  },
};

beforeAll(async () => {
  clock = createManualClock();
  seo = await startSeo({ clock, resolver, rateLimits: false, crawl: { queuedMs: QUEUED_MS, pageMs: PAGE_MS } });
  projectId = await newProject(seo.client());
});
afterAll(() => seo.close());

/** Ends every running audit so the capacity of 3 never binds between tests. */
const finishAll = () => clock.advance(QUEUED_MS + 5_001 * PAGE_MS);

describe('POST /crawl/start', () => {
  test('202 with identical jobId and auditId; queued -> crawling -> done', async () => {
    finishAll();
    const started = await startCrawl(seo.client(), projectId, 'https://www.example.com/', { maxPages: 20 });
    expect(started.status).toBe(202);
    expect(started.data!.jobId).toBe(started.data!.auditId);
    const jobId = started.data!.jobId;

    const queued = await crawlStatus(seo.client(), projectId, jobId);
    expect(queued.status).toBe(200);
    expect(queued.data!.status).toMatchObject({
      jobId,
      auditId: jobId,
      projectId,
      status: 'queued',
      startUrl: 'https://www.example.com/',
      maxPages: 20,
      strategy: 'auto',
      pagesCrawled: 0,
      progress: 0,
      startedAt: null,
      finishedAt: null,
      error: null,
    });

    clock.advance(QUEUED_MS + 5 * PAGE_MS);
    const crawling = (await crawlStatus(seo.client(), projectId, jobId)).data!.status;
    expect(crawling.status).toBe('crawling');
    expect(crawling.pagesCrawled).toBe(5);
    expect(crawling.progress).toBeGreaterThan(0);
    expect(crawling.progress).toBeLessThan(100);
    expect(crawling.startedAt).not.toBeNull();
    expect(crawling.finishedAt).toBeNull();

    clock.advance(20 * PAGE_MS);
    const done = (await crawlStatus(seo.client(), projectId, jobId)).data!.status;
    expect(done.status).toBe('done');
    expect(done.progress).toBe(100);
    expect(done.pagesCrawled).toBeLessThanOrEqual(20);
    expect(done.pagesCrawled).toBeGreaterThan(5);
    expect(done.finishedAt).not.toBeNull();
    expect(done.error).toBeNull();
  });

  test('defaults: maxPages 500, strategy auto; strategy none audits one page', async () => {
    finishAll();
    const a = await startCrawl(seo.client(), projectId, 'http://shop.example/');
    expect(a.status).toBe(202);
    expect((await crawlStatus(seo.client(), projectId, a.data!.jobId)).data!.status).toMatchObject({ maxPages: 500, strategy: 'auto', status: 'queued' });
    const b = await startCrawl(seo.client(), projectId, 'https://www.example.com/page', { strategy: 'none', maxPages: 5000 });
    expect(b.status).toBe(202);
    clock.advance(QUEUED_MS + PAGE_MS);
    expect((await crawlStatus(seo.client(), projectId, b.data!.jobId)).data!.status).toMatchObject({ status: 'done', pagesCrawled: 1, maxPages: 5000, strategy: 'none' });
  });

  test('documentation names (www.example.com, shop.example) resolve offline with the default resolver and crawl', async () => {
    const manual = createManualClock();
    const own = await startSeo({ clock: manual, rateLimits: false, crawl: { queuedMs: 10, pageMs: 10 } });
    try {
      const client = own.client();
      const project = await newProject(client);
      for (const startUrl of ['https://www.example.com/', 'http://shop.example/catalog']) {
        const res = await startCrawl(client, project, startUrl);
        expect(res.status).toBe(202);
        manual.advance(10 + 52 * 10);
        const status = (await crawlStatus(client, project, res.data!.jobId)).data!.status;
        expect(status).toMatchObject({ status: 'done', progress: 100, error: null, startUrl });
      }
    } finally {
      await own.close();
    }
  });

  test('a name that does not resolve: accepted, then failed with LOOKUP_FAILED', async () => {
    finishAll();
    const res = await startCrawl(seo.client(), projectId, 'https://nxdomain.test/');
    expect(res.status).toBe(202);
    const status = (await crawlStatus(seo.client(), projectId, res.data!.jobId)).data!.status;
    expect(status.status).toBe('failed');
    expect(status.error).toMatchObject({ code: 'LOOKUP_FAILED' });
    expect(status.pagesCrawled).toBe(0);
    expect(status.finishedAt).not.toBeNull();
    expect(resolved).toContain('nxdomain.test');
  });

  test('crawl-fails.example.com: crawls a few pages, then failed with CRAWL_FAILED', async () => {
    finishAll();
    const res = await startCrawl(seo.client(), projectId, 'https://crawl-fails.example.com/');
    expect(res.status).toBe(202);
    clock.advance(QUEUED_MS + PAGE_MS);
    expect((await crawlStatus(seo.client(), projectId, res.data!.jobId)).data!.status.status).toBe('crawling');
    clock.advance(100 * PAGE_MS);
    const status = (await crawlStatus(seo.client(), projectId, res.data!.jobId)).data!.status;
    expect(status.status).toBe('failed');
    expect(status.error).toMatchObject({ code: 'CRAWL_FAILED' });
    expect(status.progress).toBeLessThan(100);
  });

  test.each([
    ['startUrl missing', { startUrl: undefined }],
    ['ftp:// URL', { startUrl: 'ftp://www.example.com/file' }],
    ['javascript: URL', { startUrl: 'javascript:alert(1)' }],
    ['unparseable URL', { startUrl: 'http://exa mple.com/%%' }],
    ['relative URL', { startUrl: '/just/a/path' }],
    ['not a URL at all', { startUrl: 'not a url' }],
    ['maxPages 5001', { maxPages: 5001 }],
    ['maxPages 0', { maxPages: 0 }],
    ['maxPages not a number', { maxPages: 'many' }],
    ['unknown strategy', { strategy: 'everything' }],
    ['projectId missing', { projectId: undefined }],
    ['projectId not a UUID', { projectId: '42' }],
  ])('400 VALIDATION_ERROR for %s, no audit', async (_case, change) => {
    finishAll();
    const before = seo.app.store.audits.size;
    const body = JSON.parse(JSON.stringify({ projectId, startUrl: 'https://www.example.com/', ...change }));
    const res = await raw(seo.baseUrl, 'POST', '/crawl/start', { body });
    expectError(res, 400, 'VALIDATION_ERROR', { path: '/crawl/start', method: 'post' });
    expect(seo.app.store.audits.size).toBe(before);
  });

  test('invalid JSON and a non-JSON body are 400', async () => {
    const bad = await raw(seo.baseUrl, 'POST', '/crawl/start', { body: `{"projectId": "${projectId}", "startUrl": ` });
    expectError(bad, 400, 'VALIDATION_ERROR', { path: '/crawl/start', method: 'post' });
    const text = await raw(seo.baseUrl, 'POST', '/crawl/start', { body: 'startUrl=https://www.example.com/', headers: { 'Content-Type': 'text/plain' } });
    expectError(text, 400, 'VALIDATION_ERROR', { path: '/crawl/start', method: 'post' });
  });

  test('404 for an unknown or another organization\'s project', async () => {
    finishAll();
    const unknown = await startCrawl(seo.client(), UNKNOWN_ID, 'https://www.example.com/');
    expectError(unknown, 404, 'NOT_FOUND', { path: '/crawl/start', method: 'post' });
    const other = await startCrawl(seo.client(KEY_2), projectId, 'https://www.example.com/');
    expectError(other, 404, 'NOT_FOUND', { path: '/crawl/start', method: 'post' });
  });
});

describe('GET /crawl/{jobId}/status', () => {
  test('needs projectId (400 without, or malformed)', async () => {
    finishAll();
    const res = await startCrawl(seo.client(), projectId, 'https://www.example.com/');
    const jobId = res.data!.jobId;
    const missing = await raw(seo.baseUrl, 'GET', `/crawl/${jobId}/status`);
    expectError(missing, 400, 'VALIDATION_ERROR', { path: '/crawl/{jobId}/status', method: 'get' });
    const malformed = await raw(seo.baseUrl, 'GET', `/crawl/${jobId}/status?projectId=nope`);
    expectError(malformed, 400, 'VALIDATION_ERROR', { path: '/crawl/{jobId}/status', method: 'get' });
    const badJob = await raw(seo.baseUrl, 'GET', `/crawl/not-a-job/status?projectId=${projectId}`);
    expectError(badJob, 400, 'VALIDATION_ERROR', { path: '/crawl/{jobId}/status', method: 'get' });
  });

  test('404 NOT_FOUND: unknown job, job of another project, another organization\'s job, archived project', async () => {
    finishAll();
    const client = seo.client();
    const res = await startCrawl(client, projectId, 'https://www.example.com/');
    const jobId = res.data!.jobId;
    const otherProject = await newProject(client);

    const unknown = await crawlStatus(client, projectId, UNKNOWN_ID);
    expectError(unknown, 404, 'NOT_FOUND', { path: '/crawl/{jobId}/status', method: 'get' });
    const wrongProject = await crawlStatus(client, otherProject, jobId);
    expectError(wrongProject, 404, 'NOT_FOUND', { path: '/crawl/{jobId}/status', method: 'get' });

    const c2 = seo.client(KEY_2);
    const p2 = await newProject(c2);
    expectError(await crawlStatus(c2, projectId, jobId), 404, 'NOT_FOUND', { path: '/crawl/{jobId}/status', method: 'get' });
    expectError(await crawlStatus(c2, p2, jobId), 404, 'NOT_FOUND', { path: '/crawl/{jobId}/status', method: 'get' });
    // org 2's own audit is invisible to org 1
    const theirs = await startCrawl(c2, p2, 'https://www.example.com/');
    expect(theirs.status).toBe(202);
    expectError(await crawlStatus(client, projectId, theirs.data!.jobId), 404, 'NOT_FOUND', { path: '/crawl/{jobId}/status', method: 'get' });

    // the owner still reads it
    expect((await crawlStatus(client, projectId, jobId)).status).toBe(200);

    // archived project: its audits are no longer readable, but the store keeps them
    const archived = await newProject(client, 'archive me');
    const job2 = (await startCrawl(client, archived, 'https://www.example.com/')).data!.jobId;
    const del = await client.DELETE('/projects/{projectId}', { params: { path: { projectId: archived } } });
    expect(del.response.status).toBe(200);
    expectError(await crawlStatus(client, archived, job2), 404, 'NOT_FOUND', { path: '/crawl/{jobId}/status', method: 'get' });
    expect(seo.app.store.audits.has(job2)).toBe(true);
  });

  test('the stream endpoint answers 404 and 400 before streaming', async () => {
    const unknown = await seo.client().GET('/crawl/{jobId}/stream', { params: { path: { jobId: UNKNOWN_ID }, query: { projectId } }, parseAs: 'text' });
    // openapi-fetch parses error bodies as JSON whatever parseAs says
    expect(unknown.response.headers.get('content-type')).toMatch(/^application\/json/);
    expectError(outcome(unknown), 404, 'NOT_FOUND', { path: '/crawl/{jobId}/stream', method: 'get' });
    const missing = await raw(seo.baseUrl, 'GET', `/crawl/${UNKNOWN_ID}/stream`);
    expectError(missing, 400, 'VALIDATION_ERROR', { path: '/crawl/{jobId}/stream', method: 'get' });
  });
});
