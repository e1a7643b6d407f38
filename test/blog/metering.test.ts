/**
 * The metered routes (DECISIONS blog-3): the usage headers of each success, what counts, the 429
 * `plan_limit_exceeded` with its upgrade offer when an allowance is spent, the 402 for a feature the
 * plan lacks, and the monthly reset on the 1st, UTC, through a manual clock.
 */
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import type { BlogClient } from '../../generated/blog/client.gen.js';
import { createSender, type Sender } from '../../scripts/lib/fuzz/wire.js';
import { createManualClock, type StubClock } from '../../server-stubs/lib/clock.js';
import { BUSINESS, checked, draftBody, FREE, PRO, startBlog, usageHeaders, type BlogStub } from './support.js';
import type { AnswerBody } from '../helpers/answer-body.js';
import { sendOnKeepAlive } from '../helpers/keep-alive.js';

let blog: BlogStub;
let clock: StubClock;
let sender: Sender;
// A fresh stub per test: allowances are per account, and each test spends some.
beforeEach(async () => {
  sender?.close();
  await blog?.close();
  clock = createManualClock(Date.parse('2026-01-15T09:30:00Z'));
  blog = await startBlog({ clock, rateLimits: false });
  sender = createSender(blog.stub.origin, { concurrency: 1, timeoutMs: 60_000 });
});
afterAll(async () => {
  sender.close();
  await blog.close();
});

/** A JSON POST with `key`, for the hundreds of requests that spend an allowance: the status and the headers. */
async function spend(key: string, path: string, body: unknown) {
  const answer = await sendOnKeepAlive(sender, blog.app.basePath, path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }, 'spend an allowance');
  return { status: answer.status, headers: new Headers(Object.entries(answer.headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : []))) };
}

const used = async (key: string, feature: string) =>
  (checked(await blog.client(key).GET('/v1/plan'), { path: '/v1/plan', method: 'get' }).body.usage as AnswerBody[]).find((u) => u.feature === feature)!.used;

/** The six automation writes, in an order where each has what it needs. */
async function sixWrites(client: BlogClient) {
  const draft = checked(await client.POST('/v1/drafts', { body: draftBody }), { path: '/v1/drafts', method: 'post' });
  const published = checked(await client.POST('/v1/drafts/{draftId}/publish', { params: { path: { draftId: draft.body.id } } }), { path: '/v1/drafts/{draftId}/publish', method: 'post' });
  const direct = checked(await client.POST('/v1/articles', { body: draftBody }), { path: '/v1/articles', method: 'post' });
  const updated = checked(await client.PATCH('/v1/articles/{slug}', { params: { path: { slug: direct.body.slug } }, body: { title: 'Retitled' } }), { path: '/v1/articles/{slug}', method: 'patch' });
  const series = checked(await client.POST('/v1/series', { body: { title: 'A series' } }), { path: '/v1/series', method: 'post' });
  const added = checked(await client.POST('/v1/series/{seriesId}/articles', { params: { path: { seriesId: series.body.id } }, body: { slug: published.body.slug } }), {
    path: '/v1/series/{seriesId}/articles',
    method: 'post',
  });
  return [draft, published, direct, updated, series, added] as const;
}

/** Spends the Free account's 20 automation writes with drafts. */
async function spendWrites(key: string, count = 20) {
  for (let i = 0; i < count; i += 1) expect((await spend(key, '/v1/drafts', draftBody)).status).toBe(201);
}

const freeWritesUpgrade = (used: number, resets: string) => ({
  feature: 'mcp_write_actions',
  feature_label: 'Automation write actions',
  usage: { used, limit: 20, remaining: 0, resets_at: resets },
  current_plan: { slug: 'free', name: 'Free' },
  plans: [
    { slug: 'pro', name: 'Pro', price: 9, url: 'https://blog.example/pricing?plan=pro' },
    { slug: 'business', name: 'Business', price: 29, url: 'https://blog.example/pricing?plan=business' },
  ],
  trial: { available: true, days: 7, plan_name: 'Pro', requires_card: false },
});

describe('automation writes (mcp_write_actions)', () => {
  test('each of the six writes counts once and answers the usage headers', async () => {
    const answers = await sixWrites(blog.client(FREE));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 200, 201, 200]);
    expect(answers.map((a) => usageHeaders(a.headers))).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => ({ feature: 'mcp_write_actions', used: String(n), limit: '20', remaining: String(20 - n), resets: '2026-02-01T00:00:00Z', plan: 'free' })),
    );
    expect(await used(FREE, 'mcp_write_actions')).toBe(6);
  });

  test('what each write did is visible in the next: the draft becomes the article, the article joins the series', async () => {
    const [draft, published, , updated, , added] = await sixWrites(blog.client(PRO));
    expect(published.body.title).toBe(draft.body.title);
    expect(published.body.author.username).toBe('test-pro');
    expect(updated.body.title).toBe('Retitled');
    expect(added.body.articles).toEqual([published.body.slug]);
    // The draft was consumed by publishing.
    expect((await blog.client(PRO).POST('/v1/drafts/{draftId}/publish', { params: { path: { draftId: draft.body.id } } })).response.status).toBe(404);
  });

  test('a refused write (404, 400) is not counted', async () => {
    const client = blog.client(FREE);
    expect((await client.PATCH('/v1/articles/{slug}', { params: { path: { slug: 'not-mine' } }, body: { title: 'x' } })).response.status).toBe(404);
    expect((await client.POST('/v1/drafts', { body: { title: '', body_markdown: '' } })).response.status).toBe(400);
    expect(await used(FREE, 'mcp_write_actions')).toBe(0);
  });

  test('another account\'s draft, article or series is a 404', async () => {
    const owner = blog.client(BUSINESS);
    const draft = (await owner.POST('/v1/drafts', { body: draftBody })).data!;
    const article = (await owner.POST('/v1/articles', { body: draftBody })).data!;
    const series = (await owner.POST('/v1/series', { body: { title: 'Mine' } })).data!;
    const stranger = blog.client(PRO);
    expect((await stranger.POST('/v1/drafts/{draftId}/publish', { params: { path: { draftId: draft.id } } })).response.status).toBe(404);
    expect((await stranger.PATCH('/v1/articles/{slug}', { params: { path: { slug: article.slug } }, body: { title: 'x' } })).response.status).toBe(404);
    expect((await stranger.POST('/v1/series/{seriesId}/articles', { params: { path: { seriesId: series.id } }, body: { slug: article.slug } })).response.status).toBe(404);
    // The owner still can.
    expect((await owner.POST('/v1/series/{seriesId}/articles', { params: { path: { seriesId: series.id } }, body: { slug: article.slug } })).response.status).toBe(200);
  });

  test('the 21st write on Free is 429 plan_limit_exceeded with the whole upgrade offer, no Retry-After, and does nothing', async () => {
    const client = blog.client(FREE);
    await spendWrites(FREE);
    const refused = checked(await client.POST('/v1/drafts', { body: draftBody }), { path: '/v1/drafts', method: 'post' });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: expect.stringContaining('20 automation write actions'),
      code: 'plan_limit_exceeded',
      upgrade: freeWritesUpgrade(20, '2026-02-01T00:00:00Z'),
    });
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(refused.headers.get('x-service-usage-used')).toBeNull();
    expect(await used(FREE, 'mcp_write_actions')).toBe(20);
    expect(Object.keys(blog.app.store.account('acct_free').drafts)).toHaveLength(20);
  });

  test('once spent, every one of the six writes is refused', async () => {
    const client = blog.client(PRO);
    // Something to update, publish and add first; then spend the rest of Pro's 200.
    const draft = (await client.POST('/v1/drafts', { body: draftBody })).data!;
    const article = (await client.POST('/v1/articles', { body: draftBody })).data!;
    const series = (await client.POST('/v1/series', { body: { title: 'S' } })).data!;
    for (let i = 3; i < 200; i += 1) await spend(PRO, '/v1/drafts', draftBody);
    const statuses = await Promise.all([
      client.POST('/v1/drafts', { body: draftBody }),
      client.POST('/v1/drafts/{draftId}/publish', { params: { path: { draftId: draft.id } } }),
      client.POST('/v1/articles', { body: draftBody }),
      client.PATCH('/v1/articles/{slug}', { params: { path: { slug: article.slug } }, body: { title: 'x' } }),
      client.POST('/v1/series', { body: { title: 'T' } }),
      client.POST('/v1/series/{seriesId}/articles', { params: { path: { seriesId: series.id } }, body: { slug: article.slug } }),
    ]);
    expect(statuses.map((r) => [r.response.status, (r.error as { code?: string } | undefined)?.code])).toEqual(Array(6).fill([429, 'plan_limit_exceeded']));
  });

  test('Business writes are unlimited: limit and remaining say so', async () => {
    const [first] = await sixWrites(blog.client(BUSINESS));
    expect(usageHeaders(first!.headers)).toEqual({ feature: 'mcp_write_actions', used: '1', limit: 'unlimited', remaining: 'unlimited', resets: '2026-02-01T00:00:00Z', plan: 'business' });
  });

  test('the allowance resets on the 1st of the month at 00:00 UTC, not a moment before', async () => {
    const client = blog.client(FREE);
    await spendWrites(FREE);
    clock.set(Date.parse('2026-01-31T23:59:59.999Z'));
    const lastMoment = await client.POST('/v1/drafts', { body: draftBody });
    expect(lastMoment.response.status).toBe(429);
    clock.advance(1);
    const newMonth = await client.POST('/v1/drafts', { body: draftBody });
    expect(newMonth.response.status).toBe(201);
    expect(usageHeaders(newMonth.response.headers)).toMatchObject({ used: '1', remaining: '19', resets: '2026-03-01T00:00:00Z' });
  });

  test('the trial lifts the cap to Pro\'s; when it ends, this month\'s writes count against Free again', async () => {
    const client = blog.client(FREE);
    await spendWrites(FREE);
    expect((await client.POST('/v1/trial')).response.status).toBe(201);
    const onTrial = await client.POST('/v1/drafts', { body: draftBody });
    expect(usageHeaders(onTrial.response.headers)).toMatchObject({ used: '21', limit: '200', remaining: '179', plan: 'pro' });
    clock.set(Date.parse('2026-01-22T09:30:00Z'));
    const after = checked(await client.POST('/v1/drafts', { body: draftBody }), { path: '/v1/drafts', method: 'post' });
    expect(after.status).toBe(429);
    expect(after.body.upgrade).toMatchObject({ usage: { used: 21, limit: 20, remaining: 0 }, current_plan: { slug: 'free' }, trial: { available: false } });
  });
});

describe('AI-assistant prompts (ai_assistant_prompts)', () => {
  test('Free: 25 a month, each with the usage headers; the 26th is 429 plan_limit_exceeded; the 1st of the month clears it', async () => {
    const client = blog.client(FREE);
    for (let n = 1; n <= 25; n += 1) {
      const answer = checked(await client.POST('/v1/assistant/prompts', { body: { prompt: `idea ${n}` } }), { path: '/v1/assistant/prompts', method: 'post' });
      expect(answer.status).toBe(200);
      expect(usageHeaders(answer.headers)).toEqual({ feature: 'ai_assistant_prompts', used: String(n), limit: '25', remaining: String(25 - n), resets: '2026-02-01T00:00:00Z', plan: 'free' });
    }
    const refused = checked(await client.POST('/v1/assistant/prompts', { body: { prompt: 'one more' } }), { path: '/v1/assistant/prompts', method: 'post' });
    expect(refused.status).toBe(429);
    expect(refused.body.upgrade).toEqual({
      feature: 'ai_assistant_prompts',
      feature_label: 'AI writing-assistant prompts',
      usage: { used: 25, limit: 25, remaining: 0, resets_at: '2026-02-01T00:00:00Z' },
      current_plan: { slug: 'free', name: 'Free' },
      plans: [
        { slug: 'pro', name: 'Pro', price: 9, url: 'https://blog.example/pricing?plan=pro' },
        { slug: 'business', name: 'Business', price: 29, url: 'https://blog.example/pricing?plan=business' },
      ],
      trial: { available: true, days: 7, plan_name: 'Pro', requires_card: false },
    });
    // Writes are metered apart: prompts spent do not touch them.
    expect((await client.POST('/v1/drafts', { body: draftBody })).response.status).toBe(201);
    clock.set(Date.parse('2026-02-01T00:00:00Z'));
    expect((await client.POST('/v1/assistant/prompts', { body: { prompt: 'new month' } })).response.status).toBe(200);
  });

  test('Business has 500, so its offer lists no plan above it', async () => {
    const client = blog.client(BUSINESS);
    for (let n = 1; n <= 500; n += 1) await spend(BUSINESS, '/v1/assistant/prompts', { prompt: 'p' });
    const refused = checked(await client.POST('/v1/assistant/prompts', { body: { prompt: 'p' } }), { path: '/v1/assistant/prompts', method: 'post' });
    expect(refused.status).toBe(429);
    expect(refused.body.upgrade).toMatchObject({ usage: { used: 500, limit: 500, remaining: 0 }, current_plan: { slug: 'business' }, plans: [], trial: { available: false } });
  });
});

describe('newsletter subscribers (newsletter_subscribers, a total)', () => {
  test('Free: 500 subscribers in all; the 501st is 429; a new month does not reset a total; the same address is not counted twice (DECISIONS blog-4: all six headers)', async () => {
    const client = blog.client(FREE);
    for (let n = 1; n <= 500; n += 1) {
      const response = await spend(FREE, '/v1/newsletter/subscribers', { email: `reader${n}@example.com` });
      expect(response.status).toBe(201);
      if (n === 1 || n === 500) {
        expect(usageHeaders(response.headers)).toEqual({ feature: 'newsletter_subscribers', used: String(n), limit: '500', remaining: String(500 - n), resets: '2026-02-01T00:00:00Z', plan: 'free' });
      }
    }
    const again = checked(await client.POST('/v1/newsletter/subscribers', { body: { email: 'READER7@example.com' } }), { path: '/v1/newsletter/subscribers', method: 'post' });
    expect({ status: again.status, email: again.body.email }).toEqual({ status: 200, email: 'reader7@example.com' });
    expect(usageHeaders(again.headers)).toEqual({ feature: 'newsletter_subscribers', used: '500', limit: '500', remaining: '0', resets: '2026-02-01T00:00:00Z', plan: 'free' });
    const refused = checked(await client.POST('/v1/newsletter/subscribers', { body: { email: 'one-more@example.com' } }), { path: '/v1/newsletter/subscribers', method: 'post' });
    expect(refused.status).toBe(429);
    expect(refused.body.upgrade).toMatchObject({ feature: 'newsletter_subscribers', usage: { used: 500, limit: 500, remaining: 0, resets_at: null } });
    // The named month start passes and nothing resets: still 500 of 500, and the header names the next one.
    clock.set(Date.parse('2026-02-01T00:00:00Z'));
    expect((await client.POST('/v1/newsletter/subscribers', { body: { email: 'one-more@example.com' } })).response.status).toBe(429);
    const known = checked(await client.POST('/v1/newsletter/subscribers', { body: { email: 'reader1@example.com' } }), { path: '/v1/newsletter/subscribers', method: 'post' });
    expect(known.status).toBe(200);
    expect(usageHeaders(known.headers)).toEqual({ feature: 'newsletter_subscribers', used: '500', limit: '500', remaining: '0', resets: '2026-03-01T00:00:00Z', plan: 'free' });
  });

  test('Business subscribers are unlimited', async () => {
    const { response } = await blog.client(BUSINESS).POST('/v1/newsletter/subscribers', { body: { email: 'reader@example.com' } });
    expect(usageHeaders(response.headers)).toEqual({ feature: 'newsletter_subscribers', used: '1', limit: 'unlimited', remaining: 'unlimited', resets: '2026-02-01T00:00:00Z', plan: 'business' });
  });
});

describe('team members (Business only)', () => {
  test.each([
    [FREE, 'free', 'Free', true],
    [PRO, 'pro', 'Pro', false],
  ])('%s: 402 plan_limit_exceeded with the upgrade offer to Business', async (key, slug, name, trialAvailable) => {
    const refused = checked(await blog.client(key).POST('/v1/team/members', { body: { email: 'editor@example.com', role: 'editor' } }), { path: '/v1/team/members', method: 'post' });
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({
      error: expect.stringContaining('Team members'),
      code: 'plan_limit_exceeded',
      upgrade: {
        feature: 'team_members',
        feature_label: 'Team members',
        usage: { used: 0, limit: 0, remaining: 0, resets_at: null },
        current_plan: { slug, name },
        plans: [{ slug: 'business', name: 'Business', price: 29, url: 'https://blog.example/pricing?plan=business' }],
        trial: { available: trialAvailable, days: 7, plan_name: 'Pro', requires_card: false },
      },
    });
  });

  test('the Pro trial does not bring team members', async () => {
    const client = blog.client(FREE);
    await client.POST('/v1/trial');
    expect((await client.POST('/v1/team/members', { body: { email: 'editor@example.com' } })).response.status).toBe(402);
  });

  test('Business adds a member (201, role writer by default); the same address again is 200, unchanged', async () => {
    const client = blog.client(BUSINESS);
    const added = checked(await client.POST('/v1/team/members', { body: { email: 'writer@example.com' } }), { path: '/v1/team/members', method: 'post' });
    expect({ status: added.status, role: added.body.role }).toEqual({ status: 201, role: 'writer' });
    const again = checked(await client.POST('/v1/team/members', { body: { email: 'Writer@example.com', role: 'admin' } }), { path: '/v1/team/members', method: 'post' });
    expect({ status: again.status, id: again.body.id, role: again.body.role }).toEqual({ status: 200, id: added.body.id, role: 'writer' });
  });
});
