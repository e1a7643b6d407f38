/**
 * The generated audit-stream reader (generated/seo/streams.gen.ts) against the real seo stub: what a
 * frontend gets from `streamCrawl` is typed frames, checked against the contract, until the stream ends.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createManualClock } from '../../server-stubs/lib/clock.js';
import { LookupFailed, type Resolver } from '../../server-stubs/lib/net-guard.js';
import { createSeoStreams, streamCrawl, StreamFrameError, StreamHttpError, type StreamCrawlErrorBody, type StreamCrawlFrame } from '../../generated/seo/streams.gen.js';
import { contract, crawlStatus, KEY, KEY_2, newProject, startCrawl, startSeo, UNKNOWN_ID, type SeoStub } from './support.js';

const resolver: Resolver = {
  async resolve(hostname) {
    if (hostname === 'nxdomain.test') throw new LookupFailed('nxdomain.test did not resolve (ENOTFOUND)');
    return ['192.0.2.10'];
  },
};

describe('generated seo stream reader', () => {
  const QUEUED_MS = 1_000;
  const PAGE_MS = 100;
  const clock = createManualClock();
  let seo: SeoStub;
  let projectId: string;
  beforeAll(async () => {
    seo = await startSeo({ clock, resolver, rateLimits: false, crawl: { queuedMs: QUEUED_MS, pageMs: PAGE_MS }, stream: { pollMs: 5, pingMs: 5, ceilingMs: 10_000 } });
    projectId = await newProject(seo.client());
  });
  afterAll(() => seo.close());

  test('streamCrawl yields typed progress frames, then one complete frame, and ends', async () => {
    const started = await startCrawl(seo.client(), projectId, 'https://www.example.com/', { maxPages: 8 });
    const jobId = started.data!.jobId;
    const frames: StreamCrawlFrame[] = [];
    const states: string[] = [];
    let final: string | undefined;
    for await (const frame of streamCrawl({
      baseUrl: seo.baseUrl,
      headers: { Authorization: `Bearer ${KEY}` },
      params: { path: { jobId }, query: { projectId } },
    })) {
      frames.push(frame);
      // the union narrows by `event`: these reads type-check only on the right variant
      if (frame.event === 'progress') states.push(frame.data.status.status);
      else if (frame.event === 'complete') final = frame.data.status.status;
      else throw new Error(`unexpected error frame ${frame.data.code}`);
      // the crawl moves only as fast as the reader observes it: one step per frame received
      clock.advance(frames.length === 1 ? QUEUED_MS : PAGE_MS);
    }
    expect(states[0]).toBe('queued');
    expect(states).toContain('crawling');
    expect(final).toBe('done');
    expect(frames.at(-1)!.event).toBe('complete');
    expect(frames.filter((f) => f.event !== 'progress')).toHaveLength(1);
    // what the reader passed on is the contract's frame, as the independent checker sees it
    for (const frame of frames) expect(contract.responseErrors('/crawl/{jobId}/stream', 'get', 200, frame, 'text/event-stream')).toEqual([]);
    const last = frames.at(-1)!;
    const status = await crawlStatus(seo.client(), projectId, jobId);
    expect(status.data!.status).toEqual(last.event === 'complete' ? last.data.status : undefined);
  });

  test('createSeoStreams binds baseUrl and headers once; an error frame is a typed terminal frame', async () => {
    const streams = createSeoStreams({ baseUrl: seo.baseUrl, headers: { Authorization: `Bearer ${KEY}` } });
    const started = await startCrawl(seo.client(), projectId, 'https://nxdomain.test/');
    const frames: StreamCrawlFrame[] = [];
    for await (const frame of streams.streamCrawl({ params: { path: { jobId: started.data!.jobId }, query: { projectId } } })) frames.push(frame);
    expect(frames).toHaveLength(1);
    const only = frames[0]!;
    expect(only.event).toBe('error');
    if (only.event === 'error') expect(only.data.code).toBe('LOOKUP_FAILED');
  });

  test('another organization: StreamHttpError 404 with the seo error body, before any frame', async () => {
    const started = await startCrawl(seo.client(), projectId, 'https://www.example.com/two');
    clock.advance(QUEUED_MS + 5_001 * PAGE_MS);
    const streams = createSeoStreams({ baseUrl: seo.baseUrl, headers: { Authorization: `Bearer ${KEY_2}` } });
    const frames: unknown[] = [];
    let caught: unknown;
    try {
      for await (const frame of streams.streamCrawl({ params: { path: { jobId: started.data!.jobId }, query: { projectId } } })) frames.push(frame);
    } catch (error) {
      caught = error;
    }
    expect(frames).toEqual([]);
    expect(caught).toBeInstanceOf(StreamHttpError);
    const error = caught as StreamHttpError<StreamCrawlErrorBody>;
    expect(error.status).toBe(404);
    expect(error.body).toMatchObject({ code: 'NOT_FOUND' });
    expect(contract.responseErrors('/crawl/{jobId}/stream', 'get', 404, error.body)).toEqual([]);
  });

  test('an unknown job: StreamHttpError 404', async () => {
    const iterator = streamCrawl({ baseUrl: seo.baseUrl, headers: { Authorization: `Bearer ${KEY}` }, params: { path: { jobId: UNKNOWN_ID }, query: { projectId } } });
    await expect(iterator.next()).rejects.toMatchObject({ name: 'StreamHttpError', status: 404, body: { code: 'NOT_FOUND' } });
  });
});

describe('generated seo stream reader against a server off the contract', () => {
  let server: http.Server;
  let baseUrl: string;
  beforeAll(async () => {
    // answers the audit stream with one valid-looking frame whose progress is out of its range
    server = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8' });
      res.end('event: progress\ndata: {"status":{"jobId":"x"}}\n\nevent: progress\ndata: {"error":"x","code":"TIMEOUT"}\n\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/seo`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('the precompiled frame validator refuses the first frame off the AuditStreamFrame schema', async () => {
    const iterator = streamCrawl({ baseUrl, params: { path: { jobId: UNKNOWN_ID }, query: { projectId: UNKNOWN_ID } } });
    const error = await iterator.next().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StreamFrameError);
    const e = error as StreamFrameError;
    expect({ operation: e.operation, problem: e.problem, index: e.index, event: e.frame.event }).toEqual({
      operation: 'streamCrawl',
      problem: 'off-contract',
      index: 0,
      event: 'progress',
    });
    // the discriminator picks the progress variant, so the problem is named within it
    expect(e.issues).toEqual(["/data/status must have required property 'auditId'"]);
    expect(e.message).toMatch(/^streamCrawl: frame 0 \(event "progress"\) is off the contract: /);
  });
});
