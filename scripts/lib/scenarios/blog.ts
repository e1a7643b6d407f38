/**
 * The blog scenario: a draft, an article and a series made through the API, then one call per
 * operation on a path that succeeds, and the documented refusals (a short query 400, a feature not
 * on the plan 402, unknown resources 404, a trial on Business 409, a spent allowance 429
 * `plan_limit_exceeded`).
 *
 * The calls use the tenant's credential (the first seed, on Business: unlimited writes). Two more
 * seeded keys are needed, as a Business key cannot show them: a Free account whose trial is still
 * available (`BLOG_FREE_KEY`, default `mbk_test_free`) for the trial's success, and a Pro account
 * (`BLOG_PRO_KEY`, default `mbk_test_pro`) for the 402 and for spending its 100 AI prompts. The trial
 * can be started once per account, so on a long-running server reset the stubs
 * (`POST /_stub/reset`) before running the scenario again.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createBlogClient, type BlogClient } from '../../../generated/blog/client.gen.js';
import { outcomeOf, patiently, required, ScenarioSetupError, type ScenarioContext, type ServiceScenario, transportOf } from './scenario.js';
import type { operations } from '../../../generated/blog/types.gen.js';

export interface BlogFixture {
  ctx: ScenarioContext;
  client: BlogClient;
  other(key: string): BlogClient;
  draftId: string;
  slug: string;
  seriesId: string;
  /** a suffix that makes the e-mail addresses of this run new */
  run: string;
  /** usage headers a metered success came without, by operationId */
  missingHeaders: Map<string, string[]>;
}

const freeKey = () => process.env.BLOG_FREE_KEY ?? 'mbk_test_free';
const proKey = () => process.env.BLOG_PRO_KEY ?? 'mbk_test_pro';
const content = { title: 'Scenario article', body_markdown: '# Scenario\n\nWritten by the contract scenario.', tags: ['testing'] };
const usageHeaders = ['x-service-usage-feature', 'x-service-usage-used', 'x-service-usage-limit', 'x-service-usage-remaining', 'x-service-plan'];

/** The outcome of a metered call; which usage headers its success lacked is noted for its expectation. */
function metered(f: BlogFixture, id: string, result: { data?: unknown; error?: unknown; response: Response }) {
  if (result.response.ok) f.missingHeaders.set(id, usageHeaders.filter((name) => !result.response.headers.has(name)));
  return outcomeOf(result);
}

function sentUsageHeaders(f: BlogFixture, id: string) {
  assert.deepEqual(f.missingHeaders.get(id), [], 'the usage headers are sent');
}

/** Spends the Pro account's AI prompts until the allowance refuses, waiting out the per-minute rate limit. */
async function spendPrompts(f: BlogFixture) {
  const client = f.other(proKey());
  for (let i = 0; i < 110; i += 1) {
    const result = await client.POST('/v1/assistant/prompts', { body: { prompt: `Scenario prompt ${i}` } });
    if (result.response.status !== 429) continue;
    if (result.error?.code === 'plan_limit_exceeded') return outcomeOf(result);
    const seconds = Math.max(1, Number(result.response.headers.get('retry-after')) || 1);
    if (!(await f.ctx.advance(seconds))) await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  }
  throw new ScenarioSetupError('the Pro plan\'s AI-prompt allowance never answered 429 plan_limit_exceeded');
}

export const blogScenario: ServiceScenario<BlogFixture, operations> = {
  async setup(ctx) {
    const client = createBlogClient({ baseUrl: ctx.baseUrl, headers: ctx.headers, fetch: transportOf(ctx) });
    const other = (key: string) => createBlogClient({ baseUrl: ctx.baseUrl, headers: { Authorization: `Bearer ${key}` }, fetch: transportOf(ctx) });
    const draft = required('create a draft', await patiently(ctx, () => client.POST('/v1/drafts', { body: content })), 201);
    const article = required('publish an article', await patiently(ctx, () => client.POST('/v1/articles', { body: content })), 201);
    const series = required('create a series', await patiently(ctx, () => client.POST('/v1/series', { body: { title: 'Scenario series' } })), 201);
    return { ctx, client, other, draftId: draft.id, slug: article.slug, seriesId: series.id, run: randomUUID().slice(0, 8), missingHeaders: new Map() };
  },

  calls: {
    searchBlog: async ({ client }) => outcomeOf(await client.GET('/v1/search', { params: { query: { q: 'typescript', limit: 5 } } })),
    getPlan: async ({ client }) => outcomeOf(await client.GET('/v1/plan')),
    startTrial: async ({ other }) => outcomeOf(await other(freeKey()).POST('/v1/trial')),
    createDraft: async (f) => metered(f, 'createDraft', await f.client.POST('/v1/drafts', { body: content })),
    publishDraft: async (f) => metered(f, 'publishDraft', await f.client.POST('/v1/drafts/{draftId}/publish', { params: { path: { draftId: f.draftId } } })),
    publishArticle: async (f) => metered(f, 'publishArticle', await f.client.POST('/v1/articles', { body: content })),
    updateArticle: async (f) => metered(f, 'updateArticle', await f.client.PATCH('/v1/articles/{slug}', { params: { path: { slug: f.slug } }, body: { title: 'Renamed by the scenario' } })),
    createSeries: async (f) => metered(f, 'createSeries', await f.client.POST('/v1/series', { body: { title: 'Another series', description: null } })),
    addToSeries: async (f) => metered(f, 'addToSeries', await f.client.POST('/v1/series/{seriesId}/articles', { params: { path: { seriesId: f.seriesId } }, body: { slug: f.slug } })),
    createAssistantPrompt: async (f) => metered(f, 'createAssistantPrompt', await f.client.POST('/v1/assistant/prompts', { body: { prompt: 'Suggest a headline about contracts' } })),
    addNewsletterSubscriber: async (f) => metered(f, 'addNewsletterSubscriber', await f.client.POST('/v1/newsletter/subscribers', { body: { email: `reader-${f.run}@example.com` } })),
    addTeamMember: async ({ client, run }) => outcomeOf(await client.POST('/v1/team/members', { body: { email: `editor-${run}@example.com`, role: 'editor' } })),
  },

  refusals: [
    { id: 'searchBlog', status: 400, why: 'a query shorter than 2 characters', call: async ({ client }) => outcomeOf(await client.GET('/v1/search', { params: { query: { q: 'a' } } })) },
    { id: 'startTrial', status: 409, why: 'a trial on Business', call: async ({ client }) => outcomeOf(await client.POST('/v1/trial')) },
    { id: 'startTrial', status: 409, why: 'a second trial', call: async ({ other }) => outcomeOf(await other(freeKey()).POST('/v1/trial')) },
    {
      id: 'addTeamMember',
      status: 402,
      why: 'team members are not on Pro',
      call: async ({ other, run }) => outcomeOf(await other(proKey()).POST('/v1/team/members', { body: { email: `editor-${run}@example.com` } })),
    },
    {
      id: 'publishDraft',
      status: 404,
      why: 'a draft that was already published',
      call: async ({ client, draftId }) => outcomeOf(await client.POST('/v1/drafts/{draftId}/publish', { params: { path: { draftId } } })),
    },
    {
      id: 'updateArticle',
      status: 404,
      why: 'an article that is not the caller\'s',
      call: async ({ other, slug }) => outcomeOf(await other(proKey()).PATCH('/v1/articles/{slug}', { params: { path: { slug } }, body: { title: 'Not mine' } })),
    },
    {
      id: 'addToSeries',
      status: 404,
      why: 'an unknown series',
      call: async ({ client, slug }) => outcomeOf(await client.POST('/v1/series/{seriesId}/articles', { params: { path: { seriesId: randomUUID() } }, body: { slug } })),
    },
    // Not refusals but the other documented answer of two idempotent adds: the address is already there.
    {
      id: 'addNewsletterSubscriber',
      status: 200,
      why: 'an address already subscribed is answered 200 and not counted again',
      call: async ({ client, run }) => outcomeOf(await client.POST('/v1/newsletter/subscribers', { body: { email: `READER-${run}@example.com` } })),
    },
    {
      id: 'addTeamMember',
      status: 200,
      why: 'an address already on the team is answered 200',
      call: async ({ client, run }) => outcomeOf(await client.POST('/v1/team/members', { body: { email: `editor-${run}@example.com` } })),
    },
    { id: 'createAssistantPrompt', status: 429, why: 'the Pro plan\'s 100 AI prompts this month are spent (plan_limit_exceeded)', call: spendPrompts },
  ],

  expectations: {
    searchBlog: (b) => {
      assert.ok(b.articles.length > 0 && b.articles.length <= 5, 'articles match typescript, at most limit');
      assert.ok(b.tags.some((t: { name: string }) => t.name === 'typescript'), 'tags hold typescript');
      assert.ok(Array.isArray(b.profiles), 'profiles is present');
    },
    getPlan: (b) => {
      assert.equal(b.plan.slug, 'business');
      const writes = b.usage.find((u) => u.feature === 'mcp_write_actions');
      assert.ok(writes, 'the usage counts mcp_write_actions');
      assert.deepEqual({ limit: writes.limit, remaining: writes.remaining }, { limit: null, remaining: null }, 'unlimited is null');
      assert.ok(writes.used >= 3, 'the writes of the setup are counted');
    },
    startTrial: (b) => assert.deepEqual({ plan: b.plan.slug, active: b.trial.active, available: b.trial.available }, { plan: 'pro', active: true, available: false }),
    createDraft: (b, f) => {
      sentUsageHeaders(f, 'createDraft');
      assert.equal(b.title, content.title);
    },
    publishDraft: (b, f) => {
      sentUsageHeaders(f, 'publishDraft');
      assert.equal(b.title, content.title);
    },
    publishArticle: (b, f) => {
      sentUsageHeaders(f, 'publishArticle');
      assert.deepEqual(b.tags, content.tags);
    },
    updateArticle: (b, f) => {
      sentUsageHeaders(f, 'updateArticle');
      assert.deepEqual({ slug: b.slug, title: b.title }, { slug: f.slug, title: 'Renamed by the scenario' });
    },
    createSeries: (b, f) => {
      sentUsageHeaders(f, 'createSeries');
      assert.deepEqual(b.articles, []);
    },
    addToSeries: (b, f) => {
      sentUsageHeaders(f, 'addToSeries');
      assert.deepEqual({ id: b.id, articles: b.articles }, { id: f.seriesId, articles: [f.slug] });
    },
    createAssistantPrompt: (b, f) => {
      sentUsageHeaders(f, 'createAssistantPrompt');
      assert.equal(b.prompt, 'Suggest a headline about contracts');
    },
    addNewsletterSubscriber: (b, f) => {
      sentUsageHeaders(f, 'addNewsletterSubscriber');
      assert.equal(b.email, `reader-${f.run}@example.com`);
    },
    addTeamMember: (b, f) => assert.deepEqual({ email: b.email, role: b.role }, { email: `editor-${f.run}@example.com`, role: 'editor' }),
  },
};

/** The service's scenario, found by its file name (index.ts). */
export default blogScenario;
