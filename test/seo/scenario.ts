/**
 * One call per seo operation on a path that succeeds, with the fixture each needs, and what each
 * success body must say beyond its schema. Used by the seo operation tests and by the conformance
 * test on `npm start`'s server.
 */
import { expect } from 'vitest';
import { createSeoClient, type SeoClient } from '../../generated/seo/client.gen.js';
import { addKeywords, KEY, newConfig, newProject, outcome, startCrawl } from './support.js';

export interface Fixture {
  client: SeoClient;
  projectId: string;
  configId: string;
  keywordId: string;
  jobId: string;
}

export interface Outcome {
  status: number;
  body?: unknown;
  /** event-stream text, for streaming operations */
  stream?: string;
}

export const calls: Record<string, (f: Fixture) => Promise<Outcome>> = {
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
export const expectations: Record<string, (body: any, f: Fixture) => void> = {
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

/** The project, configuration, keyword and crawl the calls work on, made through the API. */
export async function createFixture(client: SeoClient): Promise<Fixture> {
  const projectId = await newProject(client, 'Operations');
  const configId = await newConfig(client, projectId);
  const added = await addKeywords(client, projectId, configId, ['first keyword', 'second keyword']);
  const crawl = await startCrawl(client, projectId, 'https://www.example.com/', { maxPages: 15 });
  return { client, projectId, configId, keywordId: added.data!.addedIds[0]!, jobId: crawl.data!.jobId };
}

/**
 * The conformance scenario on a running server (`npm start`'s): the fixture, the clock moved past the
 * crawl through the development controls so its stream completes, then every call.
 */
export async function seoScenario(baseUrl: string, origin: string) {
  const client = createSeoClient({ baseUrl, headers: { Authorization: `Bearer ${KEY}` } });
  const fixture = await createFixture(client);
  await fetch(`${origin}/_stub/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"advanceSeconds": 3600}' });
  const outcomes = [];
  for (const [id, call] of Object.entries(calls)) outcomes.push({ id, ...(await call(fixture)) });
  return outcomes;
}
