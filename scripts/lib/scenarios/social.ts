/**
 * The social scenario: variants, a scheduled post, a draft and a published post made through the
 * API, then one call per operation on a path that succeeds, and the documented refusals (an unknown
 * filter value 400, the free tier's 403 with count and limit, unknown posts and variants 404, a
 * duplicate schedule, duplicate content and an edit of a published post 409).
 *
 * The calls use the tenant's credential (the first seed, on the Pro plan). The free-tier refusal
 * needs a free-tier key (`SOCIAL_FREE_KEY`, default `social_test_free`). Times come from the
 * server's own clock (`asOf` of the stats) and every text carries a run id, so the scenario can run
 * again and again on one server whose clock has moved on.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createSocialClient, type SocialClient } from '../../../generated/social/client.gen.js';
import { outcomeOf, patiently, required, type ScenarioContext, type ServiceScenario, transportOf } from './scenario.js';
import type { operations } from '../../../generated/social/types.gen.js';

export interface SocialFixture {
  client: SocialClient;
  other(key: string): SocialClient;
  /** a suffix that makes this run's texts new */
  run: string;
  /** an instant on the server's clock a week ahead, unique to this run: `at(n)` is n hours after it */
  at(hours: number): string;
  variantIds: string[];
  /** a pending linkedin post scheduled from the first variant at `at(0)` */
  postId: string;
  postAccountId: string;
  draftId: string;
  publishedId: string;
}

const freeKey = () => process.env.SOCIAL_FREE_KEY ?? 'social_test_free';
const generation = (run: string) => ({ topic: `Contract testing ${run}`, platforms: ['linkedin' as const], tone: 'informative' as const, count: 2 });
const iso = (ms: number) => new Date(ms).toISOString();

/** Lets a post scheduled a moment ahead go out: the server's clock moved, or real time on a server without one. */
async function passTime(ctx: ScenarioContext, seconds: number): Promise<void> {
  if (!(await ctx.advance(seconds))) await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}

/** Schedules posts on the free tier until its monthly limit refuses one (at most one more than the limit). */
async function exhaustFreeTier(f: SocialFixture) {
  const client = f.other(freeKey());
  let last = outcomeOf(await client.POST('/api/schedule', { body: { contentText: `Free tier ${f.run} 0`, platform: 'x', scheduledAt: f.at(100) } }));
  for (let i = 1; i <= 10 && last.status === 201; i += 1) {
    last = outcomeOf(await client.POST('/api/schedule', { body: { contentText: `Free tier ${f.run} ${i}`, platform: 'x', scheduledAt: f.at(100 + i) } }));
  }
  return last;
}

export const socialScenario: ServiceScenario<SocialFixture, operations> = {
  async setup(ctx) {
    const client = createSocialClient({ baseUrl: ctx.baseUrl, headers: ctx.headers, fetch: transportOf(ctx) });
    const other = (key: string) => createSocialClient({ baseUrl: ctx.baseUrl, headers: { Authorization: `Bearer ${key}` }, fetch: transportOf(ctx) });
    const run = randomUUID().slice(0, 8);
    const serverNow = Date.parse(required('read the stats (the server clock)', await client.GET('/api/stats'), 200).asOf);
    // A week ahead plus up to a day of random seconds: no slot of an earlier run is hit.
    const base = serverNow + 7 * 86_400_000 + Math.floor(Math.random() * 86_400) * 1000;
    const at = (hours: number) => iso(base + hours * 3_600_000);
    const variants = required('generate variants', await patiently(ctx, () => client.POST('/api/generate', { body: generation(run) })), 200).variants;
    const post = required('schedule a variant', await client.POST('/api/schedule', { body: { variantId: variants[0]!.variantId, scheduledAt: at(0) } }), 201).post;
    const draft = required(
      'create a draft',
      await client.POST('/api/schedule', { body: { contentText: `Draft ${run}`, platform: 'linkedin', scheduledAt: at(1), draft: true } }),
      201,
    ).post;
    const soon = required(
      'schedule a post a minute ahead',
      await client.POST('/api/schedule', { body: { contentText: `Going out soon ${run}`, platform: 'x', scheduledAt: iso(serverNow + 60_000) } }),
      201,
    ).post;
    await passTime(ctx, 90);
    return { client, other, run, at, variantIds: variants.map((v) => v.variantId), postId: post.id, postAccountId: post.accountId, draftId: draft.id, publishedId: soon.id };
  },

  calls: {
    generateVariants: async ({ client, run }) => outcomeOf(await client.POST('/api/generate', { body: generation(run) })),
    schedulePost: async ({ client, run, at }) =>
      outcomeOf(await client.POST('/api/schedule', { body: { contentText: `Scheduled ${run}`, platform: 'bluesky', scheduledAt: at(2), firstComment: `First comment ${run}` } })),
    listPosts: async ({ client }) => outcomeOf(await client.GET('/api/posts', { params: { query: { status: 'draft' } } })),
    updatePost: async ({ client, postId, run }) =>
      outcomeOf(await client.PATCH('/api/posts/{id}', { params: { path: { id: postId } }, body: { firstComment: `Edited ${run}` } })),
    reviewDrafts: async ({ client, draftId }) => outcomeOf(await client.POST('/api/drafts', { body: { ids: [draftId], action: 'approve' } })),
    listAccounts: async ({ client }) => outcomeOf(await client.GET('/api/accounts')),
    getStats: async ({ client }) => outcomeOf(await client.GET('/api/stats')),
  },

  refusals: [
    {
      id: 'listPosts',
      status: 400,
      why: 'a status filter off the enum is refused',
      call: async ({ client }) => outcomeOf(await client.GET('/api/posts', { params: { query: { status: 'archived' as 'draft' } } })),
    },
    {
      id: 'schedulePost',
      status: 404,
      why: 'an unknown variant is not found',
      call: async ({ client, at }) => outcomeOf(await client.POST('/api/schedule', { body: { variantId: 'var_unknown', scheduledAt: at(3) } })),
    },
    {
      id: 'schedulePost',
      status: 409,
      why: 'a second post for the same account, platform and time is a duplicate',
      call: async ({ client, run, at }) => outcomeOf(await client.POST('/api/schedule', { body: { contentText: `Same slot ${run}`, platform: 'linkedin', scheduledAt: at(0) } })),
    },
    {
      id: 'schedulePost',
      status: 409,
      why: 'the same content on the same account within 24 hours fails the safety check',
      call: async ({ client, run, at }) => outcomeOf(await client.POST('/api/schedule', { body: { contentText: `  draft ${run.toUpperCase()} `, platform: 'linkedin', scheduledAt: at(4) } })),
    },
    {
      id: 'schedulePost',
      status: 403,
      why: 'the free tier refuses posts beyond its monthly limit, with count and limit',
      call: exhaustFreeTier,
    },
    {
      id: 'updatePost',
      status: 404,
      why: 'an unknown post is not found',
      call: async ({ client }) => outcomeOf(await client.PATCH('/api/posts/{id}', { params: { path: { id: randomUUID() } }, body: { firstComment: null } })),
    },
    {
      id: 'updatePost',
      status: 409,
      why: 'a published post is no longer editable',
      call: async ({ client, publishedId, run }) => outcomeOf(await client.PATCH('/api/posts/{id}', { params: { path: { id: publishedId } }, body: { contentText: `Too late ${run}` } })),
    },
    {
      id: 'reviewDrafts',
      status: 404,
      why: 'an unknown id refuses the whole batch',
      call: async ({ client, draftId }) => outcomeOf(await client.POST('/api/drafts', { body: { ids: [draftId, randomUUID()], action: 'reject' } })),
    },
  ],

  expectations: {
    generateVariants: (b, f) => {
      assert.deepEqual(b.variants.map((v: { variantId: string }) => v.variantId), f.variantIds, 'the same request yields the same variants');
      for (const v of b.variants) assert.deepEqual({ platform: v.platform, tone: v.tone }, { platform: 'linkedin', tone: 'informative' });
    },
    schedulePost: (b, f) =>
      assert.deepEqual(
        { platform: b.post.platform, status: b.post.status, firstComment: b.post.firstComment, contentText: b.post.contentText },
        { platform: 'bluesky', status: 'pending', firstComment: `First comment ${f.run}`, contentText: `Scheduled ${f.run}` },
      ),
    listPosts: (b, f) => {
      assert.ok(b.posts.some((p: { id: string }) => p.id === f.draftId), 'the list holds the draft created');
      assert.ok(b.posts.every((p: { status: string }) => p.status === 'draft'), 'only drafts are listed');
    },
    updatePost: (b, f) =>
      assert.deepEqual({ id: b.post.id, firstComment: b.post.firstComment, status: b.post.status }, { id: f.postId, firstComment: `Edited ${f.run}`, status: 'pending' }),
    reviewDrafts: (b, f) => assert.deepEqual(b, { action: 'approve', results: [{ id: f.draftId, outcome: 'approved', status: 'pending' }] }),
    listAccounts: (b, f) => {
      assert.deepEqual(
        b.accounts.map((a: { platform: string }) => a.platform),
        ['x', 'linkedin', 'facebook', 'instagram', 'threads', 'bluesky'],
      );
      assert.ok(b.accounts.some((a: { accountId: string; platform: string }) => a.accountId === f.postAccountId && a.platform === 'linkedin'), 'the post went out from the linkedin account');
    },
    getStats: (b) => {
      assert.ok(b.postsByStatus.published >= 1, 'the post whose time passed counts as published');
      const top = b.topPerformingPost;
      assert.ok(top, 'a published post is the top performer');
      assert.equal(top.status, 'published');
      assert.ok(top.engagement !== null && top.engagement.engagementRate >= b.avgEngagementRate, 'the top post is at least average');
    },
  },
};

/** The service's scenario, found by its file name (index.ts). */
export default socialScenario;
