/**
 * Every operation of the seo bundle, called once through the generated client against the stub:
 * the status is the operation's documented success status and the body is valid for it. The list
 * of operations comes from the bundle, so an operation added without a call here fails the suite.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { seoScenario, type SeoFixture } from '../../scripts/lib/scenarios/seo.js';
import { contract, KEY, startSeo, type SeoStub } from './support.js';
import { expectationFor } from '../../scripts/lib/scenarios/scenario.js';
import { listOperations } from '../../server-stubs/lib/openapi/document.js';

const { calls, expectations } = seoScenario;

interface BundleOperation {
  operationId: string;
  path: string;
  method: string;
  statuses: string[];
}

const bundleOperations: BundleOperation[] = listOperations(contract.document).flatMap(({ op, path, method }) =>
  op.operationId ? [{ operationId: op.operationId, path, method, statuses: Object.keys(op.responses ?? {}) }] : [],
);

let seo: SeoStub;
let fixture: SeoFixture;
beforeAll(async () => {
  seo = await startSeo({ crawl: { queuedMs: 20, pageMs: 2 }, stream: { pollMs: 10, pingMs: 5, ceilingMs: 5_000 } });
  // The crawl timings are short and the clock is the system's: the scenario waits for the crawl itself.
  fixture = await seoScenario.setup({ baseUrl: seo.baseUrl, headers: { Authorization: `Bearer ${KEY}` }, advance: async () => false });
});
afterAll(() => seo.close());

describe('the seo operations', () => {
  test('the bundle has the 16 published operations, and each has a call here', () => {
    expect(bundleOperations.map((o) => o.operationId).sort()).toEqual(
      [
        'listProjects',
        'createProject',
        'getProject',
        'updateProject',
        'deleteProject',
        'listRankTrackingConfigs',
        'createRankTrackingConfig',
        'updateRankTrackingConfig',
        'deleteRankTrackingConfig',
        'listTrackedKeywords',
        'addTrackedKeywords',
        'removeTrackedKeywords',
        'getLatestRankTrackingRun',
        'startCrawl',
        'getCrawlStatus',
        'streamCrawl',
      ].sort(),
    );
    expect(Object.keys(calls).sort()).toEqual(bundleOperations.map((o) => o.operationId).sort());
  });

  test.each(bundleOperations)('$operationId ($method $path): documented status, body valid against the contract', async (op) => {
    const call = calls[op.operationId];
    expect(call, `no call for ${op.operationId}: add one to scripts/lib/scenarios/seo.ts`).toBeDefined();
    const result = await call!(fixture);
    expect(op.statuses).toContain(String(result.status));
    const success = op.statuses.find((s) => /^2\d\d$/.test(s));
    expect(String(result.status)).toBe(success);
    if (result.stream !== undefined) {
      const { frames, errors } = contract.streamErrors(op.path, op.method, result.stream);
      expect(errors).toEqual([]);
      expect(frames.length).toBeGreaterThan(0);
      expect((frames.at(-1) as { event?: string }).event).toBe('complete');
    } else {
      expect(contract.responseErrors(op.path, op.method, result.status, result.body)).toEqual([]);
      const check = expectationFor(expectations, op.operationId);
      expect(check, `no body expectation for ${op.operationId}`).toBeDefined();
      check!(result.body, fixture);
    }
  });
});
