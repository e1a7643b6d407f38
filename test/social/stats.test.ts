/**
 * GET /api/stats: counts by status and the engagement figures of the published posts, with
 * `topPerformingPost` and `avgEngagementRate` computed from the posts the list shows (manual clock).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { after, expectRoundedTo4Decimals, FREE_KEY, HOUR, iso, listPosts, newPost, startSocial, stats, type SocialStub } from './support.js';

let social: SocialStub;
beforeAll(async () => {
  social = await startSocial();
});
afterAll(() => social.close());

test('the rounding check refuses a value off by one ten-thousandth or with a fifth decimal', () => {
  expectRoundedTo4Decimals(0.0513, 0.05126);
  expect(() => expectRoundedTo4Decimals(0.0512, 0.05126)).toThrow();
  expect(() => expectRoundedTo4Decimals(0.05126, 0.05126)).toThrow();
});

describe('GET /api/stats', () => {
  test('a workspace without posts: zeros and no top post', async () => {
    expect(await stats(social.client())).toEqual({
      asOf: iso(social.clock.now()),
      totalPosts: 0,
      postsByStatus: { draft: 0, pending: 0, queued: 0, published: 0, rejected: 0 },
      totalImpressions: 0,
      totalEngagements: 0,
      avgEngagementRate: 0,
      topPerformingPost: null,
    });
  });

  test('figures over the posts as of now; the top post has the highest engagement rate; other workspaces do not count', async () => {
    const client = social.client();
    for (const [i, platform] of (['x', 'linkedin', 'facebook', 'threads'] as const).entries()) {
      await newPost(client, { contentText: `Published ${i}`, platform, scheduledAt: after(social, HOUR + i * 1000) });
    }
    await newPost(client, { contentText: 'Still pending', platform: 'x', scheduledAt: after(social, 10 * HOUR) });
    await newPost(client, { contentText: 'A draft', platform: 'x', scheduledAt: after(social, 11 * HOUR), draft: true });
    const rejected = await newPost(client, { contentText: 'Rejected', platform: 'x', scheduledAt: after(social, 12 * HOUR), draft: true });
    await client.POST('/api/drafts', { body: { ids: [rejected.id], action: 'reject' } });
    await newPost(social.client(FREE_KEY), { contentText: 'Other workspace', platform: 'x', scheduledAt: after(social, HOUR) });

    const before = await stats(client);
    expect(before.postsByStatus).toEqual({ draft: 1, pending: 5, queued: 0, published: 0, rejected: 1 });
    expect(before.topPerformingPost).toBeNull();

    social.clock.advance(2 * HOUR);
    const now = await stats(client);
    const published = await listPosts(client, { status: 'published' });
    expect(published).toHaveLength(4);
    const figures = published.map((p) => p.engagement!);
    expect(now).toMatchObject({
      asOf: iso(social.clock.now()),
      totalPosts: 7,
      postsByStatus: { draft: 1, pending: 1, queued: 0, published: 4, rejected: 1 },
      totalImpressions: figures.reduce((sum, e) => sum + e.impressions, 0),
      totalEngagements: figures.reduce((sum, e) => sum + e.likes + e.comments + e.shares, 0),
    });
    // The engagement figures are made up per post id (random), so the rules are checked as the
    // schemas state them: a post's rate is (likes + comments + shares) / impressions and the
    // average the mean of those rates, each a fraction rounded to 4 decimals.
    for (const e of figures) expectRoundedTo4Decimals(e.engagementRate, (e.likes + e.comments + e.shares) / e.impressions);
    const rates = figures.map((e) => e.engagementRate);
    expectRoundedTo4Decimals(now.avgEngagementRate, rates.reduce((a, b) => a + b, 0) / rates.length);
    expect(now.topPerformingPost!.engagement!.engagementRate).toBe(Math.max(...rates));
    expect(published).toContainEqual(now.topPerformingPost);
    expect(now.totalImpressions).toBeGreaterThan(0);

    // the free workspace sees only its own post
    expect(await stats(social.client(FREE_KEY))).toMatchObject({ totalPosts: 1, postsByStatus: { published: 1 } });
  });
});
