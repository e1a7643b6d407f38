/**
 * Every operation of the seo bundle, called once through the generated client against the stub:
 * the status is the operation's documented success status and the body is valid for it. The list
 * of operations comes from the bundle, so an operation added without a call here fails the suite.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SeoClient } from '../../generated/seo/client.gen.js';
import { addKeywords, contract, newConfig, newProject, outcome, startCrawl, startSeo, type SeoStub } from './support.js';

interface BundleOperation {
  operationId: string;
  path: string;
  method: string;
  statuses: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const bundleOperations: BundleOperation[] = Object.entries<Record<string, any>>(contract.document.paths).flatMap(([path, item]) =>
  METHODS.filter((m) => item[m]?.operationId).map((method) => ({
    operationId: item[method].operationId as string,
    path,
    method,
    statuses: Object.keys(item[method].responses ?? {}),
  })),
);

interface Fixture {
  client: SeoClient;
  projectId: string;
  configId: string;
  keywordId: string;
  jobId: string;
}

interface Outcome {
  status: number;
  body?: unknown;
  /** event-stream text, for streaming operations */
  stream?: string;
}

const calls: Record<string, (f: Fixture) => Promise<Outcome>> = {
  listProjects: async ({ client }) => outcome(await client.GET('/projects')),
  createProject: async ({ client }) => outcome(await client.POST('/projects', { body: { name: 'Created', domain: 'example.com' } })),
  getProject: async ({ client, projectId }) => outcome(await client.GET('/projects/{projectId}', { params: { path: { projectId } } })),
  updateProject: async ({ client, projectId }) =>
    outcome(await client.PATCH('/projects/{projectId}', { params: { path: { projectId } }, body: { name: 'Renamed' } })),
  deleteProject: async ({ client }) => {
    const projectId = await newProject(client, 'To delete');
    return outcome(await client.DELETE('/projects/{projectId}', { params: { path: { projectId } } }));
  },
  listRankTrackingConfigs: async ({ client, projectId }) => outcome(await client.GET('/rank-tracking/configs', { params: { query: { projectId } } })),
  createRankTrackingConfig: async ({ client, projectId }) =>
    outcome(await client.POST('/rank-tracking/configs', { body: { projectId, domain: 'created.example', serpDepth: 50, devices: 'desktop' } })),
  updateRankTrackingConfig: async ({ client, projectId, configId }) =>
    outcome(await client.PATCH('/rank-tracking/configs', { body: { projectId, configId, scheduleInterval: 'daily' } })),
  deleteRankTrackingConfig: async ({ client, projectId }) => {
    const configId = await newConfig(client, projectId, { domain: 'to-delete.example' });
    return outcome(await client.DELETE('/rank-tracking/configs', { body: { projectId, configId } }));
  },
  listTrackedKeywords: async ({ client, projectId, configId }) =>
    outcome(await client.GET('/rank-tracking/keywords', { params: { query: { projectId, configId, page: 1, pageSize: 100 } } })),
  addTrackedKeywords: async ({ client, projectId, configId }) =>
    outcome(await client.POST('/rank-tracking/keywords', { body: { projectId, configId, keywords: ['new keyword'] } })),
  removeTrackedKeywords: async ({ client, projectId, configId, keywordId }) =>
    outcome(await client.DELETE('/rank-tracking/keywords', { body: { projectId, configId, keywordIds: [keywordId] } })),
  getLatestRankTrackingRun: async ({ client, projectId, configId }) =>
    outcome(await client.GET('/rank-tracking/runs', { params: { query: { projectId, configId } } })),
  startCrawl: async ({ client, projectId }) => outcome(await client.POST('/crawl/start', { body: { projectId, startUrl: 'https://www.example.com/', maxPages: 10 } })),
  getCrawlStatus: async ({ client, projectId, jobId }) =>
    outcome(await client.GET('/crawl/{jobId}/status', { params: { path: { jobId }, query: { projectId } } })),
  streamCrawl: async ({ client, projectId, jobId }) => {
    const result = await client.GET('/crawl/{jobId}/stream', { params: { path: { jobId }, query: { projectId } }, parseAs: 'text' });
    return result.response.ok ? { status: result.response.status, stream: result.data as unknown as string } : outcome(result);
  },
};

/** Checks on the success body beyond the schema, so a schema-valid but wrong answer fails too. */
const expectations: Record<string, (body: any, f: Fixture) => void> = {
  listProjects: (b, f) => expect(b.projects.map((p: { id: string }) => p.id)).toContain(f.projectId),
  createProject: (b) => expect(b.project).toMatchObject({ name: 'Created', domain: 'example.com' }),
  getProject: (b, f) => expect(b.project.id).toBe(f.projectId),
  updateProject: (b, f) => expect(b.project).toMatchObject({ id: f.projectId, name: 'Renamed' }),
  deleteProject: (b) => expect(b).toEqual({ success: true }),
  listRankTrackingConfigs: (b, f) => expect(b.configs.map((c: { id: string }) => c.id)).toContain(f.configId),
  createRankTrackingConfig: (b, f) => expect(b.configId).not.toBe(f.configId),
  updateRankTrackingConfig: (b) => expect(b).toEqual({ success: true }),
  deleteRankTrackingConfig: (b) => expect(b).toEqual({ success: true }),
  listTrackedKeywords: (b, f) => {
    expect(b).toMatchObject({ page: 1, pageSize: 100 });
    expect(b.keywords.map((k: { id: string }) => k.id)).toContain(f.keywordId);
  },
  addTrackedKeywords: (b) => expect(b.added).toBe(1),
  removeTrackedKeywords: (b) => expect(b).toEqual({ removed: 1 }),
  getLatestRankTrackingRun: (b, f) => expect(b.run).toMatchObject({ configId: f.configId, status: 'completed' }),
  startCrawl: (b) => expect(b.jobId).toBe(b.auditId),
  getCrawlStatus: (b, f) => expect(b.status).toMatchObject({ jobId: f.jobId, projectId: f.projectId }),
};

let seo: SeoStub;
let fixture: Fixture;
beforeAll(async () => {
  seo = await startSeo({ crawl: { queuedMs: 20, pageMs: 2 }, stream: { pollMs: 10, pingMs: 5, ceilingMs: 5_000 } });
  const client = seo.client();
  const projectId = await newProject(client, 'Operations');
  const configId = await newConfig(client, projectId);
  const added = await addKeywords(client, projectId, configId, ['first keyword', 'second keyword']);
  const crawl = await startCrawl(client, projectId, 'https://www.example.com/', { maxPages: 15 });
  fixture = { client, projectId, configId, keywordId: added.data!.addedIds[0]!, jobId: crawl.data!.jobId };
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
    expect(call, `no call for ${op.operationId}: add one to operations.test.ts`).toBeDefined();
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
      const check = expectations[op.operationId];
      expect(check, `no body expectation for ${op.operationId}`).toBeDefined();
      check!(result.body, fixture);
    }
  });
});
