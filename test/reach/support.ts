/**
 * Shared helpers of the lead-outreach behaviour tests (not a test file itself): a stub on a manual
 * clock, typed clients per seeded key, raw requests for what the typed client cannot send, and the
 * contract check of every answer.
 */
import { expect } from 'vitest';
import { createReachClient, type ReachClient } from '../../generated/reach/client.gen.js';
import { contractChecker } from '../../scripts/lib/contract-checker.js';
import { createManualClock, type StubClock } from '../../server-stubs/lib/clock.js';
import { createReachApp, type ReachAppOptions } from '../../server-stubs/reach/app.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';
import { bearerRaw } from '../helpers/raw.js';
import { contractChecked } from '../helpers/checked.js';

export const FREE = 'msr_test_key';
export const READONLY = 'msr_test_readonly';
export const PAID = 'mrk_test_key';
export const OTHER = 'msr_test_other';

export const contract = contractChecker('reach');

export interface ReachStub {
  app: ReturnType<typeof createReachApp>;
  stub: RunningStub;
  clock: StubClock;
  baseUrl: string;
  client(key?: string): ReachClient;
  close(): Promise<void>;
}

export async function startReach(options: ReachAppOptions = {}): Promise<ReachStub> {
  const clock = (options.clock as StubClock | undefined) ?? createManualClock();
  const app = createReachApp({ ...options, clock });
  const stub = await serveStub(app, app.basePath);
  return {
    app,
    stub,
    clock,
    baseUrl: stub.baseUrl,
    client: (key = FREE) => createReachClient({ baseUrl: stub.baseUrl, headers: { Authorization: `Bearer ${key}` } }),
    close: () => stub.close(),
  };
}

export const raw = bearerRaw(FREE);
export type { RawResponse } from '../helpers/raw.js';

export const checked = contractChecked(contract);

/** Starts a search and polls its job as the document says (every 2 s, up to 120 s) on the stub clock. */
export async function searchAndWait(reach: ReachStub, key: string, query: string, limit = 10) {
  const client = reach.client(key);
  const started = checked(await client.POST('/api/lead-finder/search', { body: { query, limit } }), { path: '/api/lead-finder/search', method: 'post' });
  expect(started.status).toBe(202);
  const jobId: string = started.body.jobId;
  for (let waited = 0; waited <= 120; waited += 2) {
    const polled = checked(await client.GET('/api/lead-finder/jobs/{jobId}', { params: { path: { jobId } } }), { path: '/api/lead-finder/jobs/{jobId}', method: 'get' });
    if (polled.body.job.status === 'completed' || polled.body.job.status === 'failed') return { jobId, job: polled.body.job, polls: waited / 2 + 1 };
    reach.clock.advance(2_000);
  }
  throw new Error('the job did not finish within 120 s of polling');
}
