import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createManualClock } from '../../server-stubs/lib/clock.js';
import { valueAt } from '../../server-stubs/lib/openapi/document.js';
import { createFrameReader } from '../../server-stubs/lib/sse.js';
import { LookupFailed, type Resolver } from '../../server-stubs/lib/net-guard.js';
import { contract, crawlStatus, expectError, KEY_2, newProject, readStream, startCrawl, startSeo, type SeoStub } from './support.js';

/** Documentation names resolve as the default resolver has them; `nxdomain.test` does not resolve. */
const resolver: Resolver = {
  async resolve(hostname) {
    if (hostname === 'nxdomain.test') throw new LookupFailed('nxdomain.test did not resolve (ENOTFOUND)');
    return ['192.0.2.10'];
  },
};

const expectStreamHeaders = (response: Response) => {
  expect(response.status).toBe(200);
  expect({
    'content-type': response.headers.get('content-type'),
    'cache-control': response.headers.get('cache-control'),
    connection: response.headers.get('connection'),
    'x-accel-buffering': response.headers.get('x-accel-buffering'),
  }).toEqual({
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
};

/**
 * Reads an audit stream chunk by chunk as a client would; after every frame or comment received,
 * `step` may move the manual clock, so the crawl advances only as fast as the client observes it
 * (deterministic however loaded the machine is). Returns the whole text, validated frame by frame.
 */
async function readStreamStepping(
  baseUrl: string,
  projectId: string,
  jobId: string,
  step: (seen: { frames: number; pings: number }) => void,
) {
  const response = await fetch(`${baseUrl}/crawl/${jobId}/stream?projectId=${projectId}`, {
    headers: { Authorization: 'Bearer seo_test_key', Accept: 'text/event-stream' },
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const seen = { frames: 0, pings: 0 };
  const frames = createFrameReader({
    frame: () => seen.frames++,
    comment: (text) => {
      if (text.startsWith('ping')) seen.pings++;
    },
  });
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const chunk = decoder.decode(value, { stream: true });
    text += chunk;
    frames.push(chunk);
    step({ ...seen });
  }
  text += decoder.decode();
  const parsed = contract.streamErrors('/crawl/{jobId}/stream', 'get', text);
  return { response, text, frames: parsed.frames as Array<{ event?: string; data: unknown }>, comments: parsed.comments, errors: parsed.errors };
}

describe('audit stream (manual clock moved as the client reads; real poll and ping timers of milliseconds)', () => {
  const QUEUED_MS = 1_000;
  const PAGE_MS = 100;
  const clock = createManualClock();
  let seo: SeoStub;
  let projectId: string;
  beforeAll(async () => {
    seo = await startSeo({
      clock,
      resolver,
      rateLimits: false,
      crawl: { queuedMs: QUEUED_MS, pageMs: PAGE_MS },
      stream: { pollMs: 5, pingMs: 5, ceilingMs: 10_000 },
    });
    projectId = await newProject(seo.client());
  });
  afterAll(() => seo.close());
  /** ends every audit so none is left running */
  const finishAll = () => clock.advance(QUEUED_MS + 5_001 * PAGE_MS);

  test('headers, progress frames (queued, then crawling), pings, then one terminal complete', async () => {
    finishAll();
    const started = await startCrawl(seo.client(), projectId, 'https://www.example.com/', { maxPages: 12 });
    expect(started.status).toBe(202);
    let advancedAt = 0;
    const { response, frames, comments, errors } = await readStreamStepping(seo.baseUrl, projectId, started.data!.jobId, (seen) => {
      // one clock step per new frame: first out of the queue, then page by page; not before a ping was seen
      if (seen.frames > advancedAt && seen.pings > 0) {
        advancedAt = seen.frames;
        clock.advance(advancedAt === 1 ? QUEUED_MS : PAGE_MS);
      }
    });
    expectStreamHeaders(response);
    expect(errors).toEqual([]);
    expect(frames.length).toBeGreaterThanOrEqual(3);

    const last = frames.at(-1)!;
    expect(last.event).toBe('complete');
    expect(valueAt(last.data, ['status'])).toMatchObject({ jobId: started.data!.jobId, status: 'done', progress: 100, error: null });
    const progress = frames.slice(0, -1);
    expect(progress.every((f) => f.event === 'progress')).toBe(true);
    const states = progress.map((f) => valueAt(f.data, ['status', 'status']));
    expect(states[0]).toBe('queued');
    expect(states).toContain('crawling');
    // states never go back, pages never decrease
    expect(states.indexOf('crawling')).toBeGreaterThan(states.lastIndexOf('queued'));
    const pages = progress.map((f) => Number(valueAt(f.data, ['status', 'pagesCrawled'])));
    expect(pages).toEqual([...pages].sort((a, b) => a - b));
    expect(new Set(pages).size).toBeGreaterThan(2);

    expect(comments.length).toBeGreaterThan(0);
    expect(comments.every((c) => c === 'ping')).toBe(true);

    // the status endpoint agrees with the final frame
    const status = await crawlStatus(seo.client(), projectId, started.data!.jobId);
    expect(status.data!.status).toEqual(valueAt(last.data, ['status']));
  });

  test('a finished audit streams its complete frame at once', async () => {
    const started = await startCrawl(seo.client(), projectId, 'https://www.example.com/one', { strategy: 'none' });
    clock.advance(QUEUED_MS + PAGE_MS);
    const { response, frames, errors } = await readStream(seo.baseUrl, projectId, started.data!.jobId);
    expectStreamHeaders(response);
    expect(errors).toEqual([]);
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ event: 'complete', data: { status: { status: 'done', pagesCrawled: 1 } } });
  });

  test('a target that does not resolve: an error frame with LOOKUP_FAILED, then the stream ends', async () => {
    const started = await startCrawl(seo.client(), projectId, 'https://nxdomain.test/');
    expect(started.status).toBe(202);
    const { response, frames, errors } = await readStream(seo.baseUrl, projectId, started.data!.jobId);
    expectStreamHeaders(response);
    expect(errors).toEqual([]);
    expect(frames).toHaveLength(1);
    expect(frames[0]!.event).toBe('error');
    expect(frames[0]!.data).toMatchObject({ code: 'LOOKUP_FAILED' });
    expect(typeof valueAt(frames[0]!.data, ['error'])).toBe('string');
  });

  test('a crawl that fails: progress frames, then an error frame with CRAWL_FAILED', async () => {
    finishAll();
    const started = await startCrawl(seo.client(), projectId, 'https://crawl-fails.example.com/');
    expect(started.status).toBe(202);
    let advancedAt = 0;
    const { response, frames, errors } = await readStreamStepping(seo.baseUrl, projectId, started.data!.jobId, (seen) => {
      if (seen.frames > advancedAt) {
        advancedAt = seen.frames;
        clock.advance(advancedAt === 1 ? QUEUED_MS : PAGE_MS);
      }
    });
    expectStreamHeaders(response);
    expect(errors).toEqual([]);
    const last = frames.at(-1)!;
    expect(last.event).toBe('error');
    expect(last.data).toMatchObject({ code: 'CRAWL_FAILED' });
    const progress = frames.slice(0, -1);
    expect(progress.every((f) => f.event === 'progress')).toBe(true);
    expect(progress.map((f) => valueAt(f.data, ['status', 'status']))).toContain('crawling');
    expect(frames.filter((f) => f.event === 'error' || f.event === 'complete')).toHaveLength(1);
    const status = await crawlStatus(seo.client(), projectId, started.data!.jobId);
    expect(status.data!.status).toMatchObject({ status: 'failed', error: { code: 'CRAWL_FAILED' } });
  });

  test('another organization cannot stream the audit (404 JSON, no stream)', async () => {
    const started = await startCrawl(seo.client(), projectId, 'https://www.example.com/');
    const { response, body } = await readStream(seo.baseUrl, projectId, started.data!.jobId, KEY_2);
    expectError({ status: response.status, body }, 404, 'NOT_FOUND', { path: '/crawl/{jobId}/stream', method: 'get' });
  });
});

describe('audit stream ceiling', () => {
  let seo: SeoStub;
  beforeAll(async () => {
    seo = await startSeo({
      resolver,
      rateLimits: false,
      crawl: { queuedMs: 0, pageMs: 60_000 },
      stream: { pollMs: 15, pingMs: 40, ceilingMs: 120 },
    });
  });
  afterAll(() => seo.close());

  // The ceiling is not measured with a watch (a busy machine stretches any span): Node runs due
  // timers in the order they fall due, so a ceiling later than the poll and ping intervals comes
  // after a poll and a ping however late the loop gets to them, and one that fired early would not.
  // A ceiling never reached leaves the stream open and the test fails at its limit.
  test('a slow crawl: the stream ends at the ceiling with an error frame TIMEOUT; the crawl goes on', async () => {
    const projectId = await newProject(seo.client());
    const started = await startCrawl(seo.client(), projectId, 'https://www.example.com/');
    const { response, frames, comments, errors } = await readStream(seo.baseUrl, projectId, started.data!.jobId);
    expectStreamHeaders(response);
    expect(errors).toEqual([]);
    const last = frames.at(-1)!;
    expect(last.event).toBe('error');
    expect(last.data).toMatchObject({ code: 'TIMEOUT' });
    expect(frames.filter((f) => f.event === 'error')).toHaveLength(1);
    // the opening frame, then at least one poll of the interval before the ceiling
    expect(frames.slice(0, -1).length).toBeGreaterThanOrEqual(2);
    expect(comments.filter((c) => c.startsWith('ping')).length).toBeGreaterThanOrEqual(1);
    expect(frames.slice(0, -1).every((f) => f.event === 'progress' && valueAt(f.data, ['status', 'status']) === 'crawling')).toBe(true);
    // longer crawls are followed with the status endpoint
    const status = await crawlStatus(seo.client(), projectId, started.data!.jobId);
    expect(status.data!.status.status).toBe('crawling');
  });
});

describe('audit stream rate limit', () => {
  let seo: SeoStub;
  const clock = createManualClock();
  beforeAll(async () => {
    seo = await startSeo({ resolver, clock });
  });
  afterAll(() => seo.close());

  test('10 streams per 60 s; the 11th is 429 RATE_LIMITED with Retry-After', async () => {
    const projectId = await newProject(seo.client());
    // a lookup failure ends its stream on the first poll, whatever the clock says
    const started = await startCrawl(seo.client(), projectId, 'https://nxdomain.test/');
    const jobId = started.data!.jobId;
    for (let i = 0; i < 10; i += 1) {
      const { response, frames, errors } = await readStream(seo.baseUrl, projectId, jobId);
      expect(response.status).toBe(200);
      expect(errors).toEqual([]);
      expect(valueAt(frames.at(-1)!.data, ['code'])).toBe('LOOKUP_FAILED');
    }
    const { response, body } = await readStream(seo.baseUrl, projectId, jobId);
    expectError({ status: response.status, body }, 429, 'RATE_LIMITED', { path: '/crawl/{jobId}/stream', method: 'get' });
    const retryAfter = response.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    // once the window has passed, the stream is served again
    clock.advance(Number(retryAfter) * 1000);
    const again = await readStream(seo.baseUrl, projectId, jobId);
    expectStreamHeaders(again.response);
    expect(again.errors).toEqual([]);
    expect(valueAt(again.frames.at(-1)!.data, ['code'])).toBe('LOOKUP_FAILED');
    // the limit is per key
    const other = await readStream(seo.baseUrl, projectId, jobId, KEY_2);
    expect(other.response.status).toBe(404);
  });
});
