/**
 * The seo scenario: a project, a rank-tracking configuration with keywords and a crawl, then one
 * call per operation on a path that succeeds, and what each success body must say.
 */
import assert from 'node:assert/strict';
import type { operations } from '../../../generated/seo/types.gen.js';
import { createSeoClient, type SeoClient } from '../../../generated/seo/client.gen.js';
import { outcomeOf, patiently, required, ScenarioSetupError, type ScenarioContext, type ServiceScenario, transportOf } from './scenario.js';

export interface SeoFixture {
  client: SeoClient;
  projectId: string;
  configId: string;
  keywordId: string;
  jobId: string;
}

async function newProject(client: SeoClient, name: string): Promise<string> {
  return required('create a project', await client.POST('/projects', { body: { name, domain: 'example.com' } }), 201).project.id;
}

async function newConfig(client: SeoClient, projectId: string, domain = 'example.com'): Promise<string> {
  return required('create a rank-tracking configuration', await client.POST('/rank-tracking/configs', { body: { projectId, domain, serpDepth: 20 } }), 201).configId;
}

/** Waits for the crawl to finish: the stub clock moved past it, or real time on a server without one. */
async function crawlFinished(ctx: ScenarioContext, client: SeoClient, projectId: string, jobId: string): Promise<void> {
  if (await ctx.advance(3600)) return;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const status = required('follow the crawl', await client.GET('/crawl/{jobId}/status', { params: { path: { jobId }, query: { projectId } } }), 200);
    if (status.status.status === 'done' || status.status.status === 'failed') return;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  throw new ScenarioSetupError('the crawl did not finish within 2 minutes');
}

const ids = (list: Array<{ id: string }>) => list.map((item) => item.id);

export const seoScenario: ServiceScenario<SeoFixture, operations> = {
  async setup(ctx) {
    const client = createSeoClient({ baseUrl: ctx.baseUrl, headers: ctx.headers, fetch: transportOf(ctx) });
    const projectId = await newProject(client, 'Operations');
    const configId = await newConfig(client, projectId);
    const added = required('add keywords', await client.POST('/rank-tracking/keywords', { body: { projectId, configId, keywords: ['first keyword', 'second keyword'] } }), 201);
    const crawl = required('start a crawl', await patiently(ctx, () => client.POST('/crawl/start', { body: { projectId, startUrl: 'https://www.example.com/', maxPages: 15 } })), 202);
    await crawlFinished(ctx, client, projectId, crawl.jobId);
    return { client, projectId, configId, keywordId: added.addedIds[0]!, jobId: crawl.jobId };
  },

  calls: {
    listProjects: async ({ client }) => outcomeOf(await client.GET('/projects')),
    createProject: async ({ client }) => outcomeOf(await client.POST('/projects', { body: { name: 'Created', domain: 'example.com' } })),
    getProject: async ({ client, projectId }) => outcomeOf(await client.GET('/projects/{projectId}', { params: { path: { projectId } } })),
    updateProject: async ({ client, projectId }) =>
      outcomeOf(await client.PATCH('/projects/{projectId}', { params: { path: { projectId } }, body: { name: 'Renamed' } })),
    deleteProject: async ({ client }) => {
      const projectId = await newProject(client, 'To delete');
      return outcomeOf(await client.DELETE('/projects/{projectId}', { params: { path: { projectId } } }));
    },
    listRankTrackingConfigs: async ({ client, projectId }) => outcomeOf(await client.GET('/rank-tracking/configs', { params: { query: { projectId } } })),
    createRankTrackingConfig: async ({ client, projectId }) =>
      outcomeOf(await client.POST('/rank-tracking/configs', { body: { projectId, domain: 'created.example', serpDepth: 50, devices: 'desktop' } })),
    updateRankTrackingConfig: async ({ client, projectId, configId }) =>
      outcomeOf(await client.PATCH('/rank-tracking/configs', { body: { projectId, configId, scheduleInterval: 'daily' } })),
    deleteRankTrackingConfig: async ({ client, projectId }) => {
      const configId = await newConfig(client, projectId, 'to-delete.example');
      return outcomeOf(await client.DELETE('/rank-tracking/configs', { body: { projectId, configId } }));
    },
    listTrackedKeywords: async ({ client, projectId, configId }) =>
      outcomeOf(await client.GET('/rank-tracking/keywords', { params: { query: { projectId, configId, page: 1, pageSize: 100 } } })),
    addTrackedKeywords: async ({ client, projectId, configId }) =>
      outcomeOf(await client.POST('/rank-tracking/keywords', { body: { projectId, configId, keywords: ['new keyword'] } })),
    removeTrackedKeywords: async ({ client, projectId, configId, keywordId }) =>
      outcomeOf(await client.DELETE('/rank-tracking/keywords', { body: { projectId, configId, keywordIds: [keywordId] } })),
    getLatestRankTrackingRun: async ({ client, projectId, configId }) =>
      outcomeOf(await client.GET('/rank-tracking/runs', { params: { query: { projectId, configId } } })),
    startCrawl: async ({ client, projectId }) => outcomeOf(await client.POST('/crawl/start', { body: { projectId, startUrl: 'https://www.example.com/', maxPages: 10 } })),
    getCrawlStatus: async ({ client, projectId, jobId }) =>
      outcomeOf(await client.GET('/crawl/{jobId}/status', { params: { path: { jobId }, query: { projectId } } })),
    streamCrawl: async ({ client, projectId, jobId }) => {
      const result = await client.GET('/crawl/{jobId}/stream', { params: { path: { jobId }, query: { projectId } }, parseAs: 'text' });
      return result.response.ok ? { status: result.response.status, stream: result.data as unknown as string } : outcomeOf(result);
    },
  },

  refusals: [
    {
      id: 'startCrawl',
      status: 403,
      why: 'a crawl of a link-local address is refused',
      call: async ({ client, projectId }) => outcomeOf(await client.POST('/crawl/start', { body: { projectId, startUrl: 'http://169.254.169.254/latest/' } })),
    },
  ],

  expectations: {
    listProjects: (b, f) => assert.ok(ids(b.projects).includes(f.projectId), 'the list holds the project created'),
    createProject: (b) => assert.deepEqual({ name: b.project.name, domain: b.project.domain }, { name: 'Created', domain: 'example.com' }),
    getProject: (b, f) => assert.equal(b.project.id, f.projectId),
    updateProject: (b, f) => assert.deepEqual({ id: b.project.id, name: b.project.name }, { id: f.projectId, name: 'Renamed' }),
    deleteProject: (b) => assert.deepEqual(b, { success: true }),
    listRankTrackingConfigs: (b, f) => assert.ok(ids(b.configs).includes(f.configId), 'the list holds the configuration created'),
    createRankTrackingConfig: (b, f) => assert.notEqual(b.configId, f.configId, 'a new configuration has a new id'),
    updateRankTrackingConfig: (b) => assert.deepEqual(b, { success: true }),
    deleteRankTrackingConfig: (b) => assert.deepEqual(b, { success: true }),
    listTrackedKeywords: (b, f) => {
      assert.deepEqual({ page: b.page, pageSize: b.pageSize }, { page: 1, pageSize: 100 });
      assert.ok(ids(b.keywords).includes(f.keywordId), 'the list holds the keyword added');
    },
    addTrackedKeywords: (b) => assert.equal(b.added, 1),
    removeTrackedKeywords: (b) => assert.deepEqual(b, { removed: 1 }),
    getLatestRankTrackingRun: (b, f) => assert.deepEqual({ configId: b.run?.configId, status: b.run?.status }, { configId: f.configId, status: 'completed' }),
    startCrawl: (b) => assert.equal(b.jobId, b.auditId, 'jobId and auditId are the same id'),
    getCrawlStatus: (b, f) => assert.deepEqual({ jobId: b.status.jobId, projectId: b.status.projectId }, { jobId: f.jobId, projectId: f.projectId }),
  },
};

/** The service's scenario, found by its file name (index.ts). */
export default seoScenario;
