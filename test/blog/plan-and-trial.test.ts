/** GET /v1/plan and POST /v1/trial: usage per plan, unlimited as null (DECISIONS blog-2), the 7-day trial once. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createManualClock, type StubClock } from '../../server-stubs/lib/clock.js';
import { BUSINESS, checked, FREE, PRO, startBlog, type BlogStub } from './support.js';
import type { AnswerBody } from '../helpers/answer-body.js';

const DAY_MS = 86_400_000;

async function planOf(blog: BlogStub, key: string) {
  return checked(await blog.client(key).GET('/v1/plan'), { path: '/v1/plan', method: 'get' });
}

async function startTrial(blog: BlogStub, key: string) {
  return checked(await blog.client(key).POST('/v1/trial'), { path: '/v1/trial', method: 'post' });
}

const limits = (body: AnswerBody) => Object.fromEntries(body.usage.map((u: AnswerBody) => [u.feature, { limit: u.limit, remaining: u.remaining }]));

describe('GET /v1/plan', () => {
  let blog: BlogStub;
  beforeAll(async () => {
    blog = await startBlog({ clock: createManualClock(Date.parse('2026-01-15T09:30:00Z')) });
  });
  afterAll(() => blog.close());

  test.each([
    [FREE, 'free', 'Free', { mcp_write_actions: 20, ai_assistant_prompts: 25, newsletter_subscribers: 500 }],
    [PRO, 'pro', 'Pro', { mcp_write_actions: 200, ai_assistant_prompts: 100, newsletter_subscribers: 10_000 }],
    [BUSINESS, 'business', 'Business', { mcp_write_actions: null, ai_assistant_prompts: 500, newsletter_subscribers: null }],
  ])('%s: the published allowances, unlimited as limit null and remaining null', async (key, slug, name, allowances) => {
    const { status, body } = await planOf(blog, key);
    expect(status).toBe(200);
    expect({ slug: body.plan.slug, name: body.plan.name }).toEqual({ slug, name });
    expect(limits(body)).toEqual(Object.fromEntries(Object.entries(allowances).map(([f, limit]) => [f, { limit, remaining: limit }])));
  });

  test('monthly items reset on the next 1st at 00:00 UTC; subscribers are a total that does not reset', async () => {
    const { body } = await planOf(blog, FREE);
    expect(body.usage.map((u: AnswerBody) => [u.feature, u.period, u.resets_at])).toEqual([
      ['mcp_write_actions', 'month', '2026-02-01T00:00:00Z'],
      ['ai_assistant_prompts', 'month', '2026-02-01T00:00:00Z'],
      ['newsletter_subscribers', 'total', null],
    ]);
  });

  test('the feature matrix as published, and the plan\'s own features', async () => {
    const { body } = await planOf(blog, PRO);
    const m = body.feature_matrix;
    expect([m.free.custom_domains, m.pro.custom_domains, m.business.custom_domains]).toEqual(['none', 'one', 'multiple']);
    expect([m.free.creator_revenue_share_percent, m.pro.creator_revenue_share_percent, m.business.creator_revenue_share_percent]).toEqual([75, 80, 80]);
    expect([m.free.team_members, m.pro.team_members, m.business.team_members]).toEqual([false, false, true]);
    expect([m.free.white_label_branding, m.pro.white_label_branding, m.business.white_label_branding]).toEqual([false, false, true]);
    expect([m.free.ai_citation_tracking, m.pro.ai_citation_tracking, m.business.ai_citation_tracking]).toEqual([false, true, true]);
    expect([m.free.read_paid_content, m.pro.read_paid_content, m.business.read_paid_content]).toEqual([false, true, true]);
    for (const plan of [m.free, m.pro, m.business]) {
      expect({ rest: plan.rest_api, tools: plan.tool_client_access }).toEqual({ rest: true, tools: true });
      expect(plan.unlimited).toEqual(['hand_written_articles', 'page_views', 'readers', 'drafts']);
    }
    expect(body.features).toEqual(m.pro);
  });

  test('the trial is offered to Free only: 7 days of Pro, no card', async () => {
    const offers = await Promise.all([FREE, PRO, BUSINESS].map(async (key) => (await planOf(blog, key)).body.trial));
    expect(offers.map((t) => t.available)).toEqual([true, false, false]);
    for (const t of offers) expect({ days: t.days, plan_name: t.plan_name, requires_card: t.requires_card, active: t.active }).toEqual({ days: 7, plan_name: 'Pro', requires_card: false, active: false });
  });
});

describe('POST /v1/trial (manual clock)', () => {
  let blog: BlogStub;
  let clock: StubClock;
  beforeAll(async () => {
    clock = createManualClock(Date.parse('2026-01-15T09:30:00Z'));
    blog = await startBlog({ clock });
  });
  afterAll(() => blog.close());

  test('Free starts it once: Pro for 7 days, then Free again; a second trial is 409, before and after it ends', async () => {
    const started = await startTrial(blog, FREE);
    expect(started.status).toBe(201);
    expect(started.body.plan.slug).toBe('pro');
    expect(started.body.trial).toMatchObject({ active: true, available: false, started_at: '2026-01-15T09:30:00Z', ends_at: '2026-01-22T09:30:00Z' });
    expect(limits(started.body).mcp_write_actions.limit).toBe(200);

    const again = await startTrial(blog, FREE);
    expect({ status: again.status, code: again.body.code }).toEqual({ status: 409, code: 'trial_unavailable' });

    clock.advance(7 * DAY_MS - 1);
    expect((await planOf(blog, FREE)).body.plan.slug).toBe('pro');
    clock.advance(1);
    const after = await planOf(blog, FREE);
    expect(after.body.plan.slug).toBe('free');
    expect(after.body.trial).toMatchObject({ active: false, available: false, ends_at: '2026-01-22T09:30:00Z' });
    expect(limits(after.body).mcp_write_actions.limit).toBe(20);
    expect((await startTrial(blog, FREE)).status).toBe(409);
  });

  test.each([PRO, BUSINESS])('%s: a trial on a paid plan is 409 trial_unavailable', async (key) => {
    const { status, body } = await startTrial(blog, key);
    expect({ status, code: body.code }).toEqual({ status: 409, code: 'trial_unavailable' });
    expect((await planOf(blog, key)).body.trial.active).toBe(false);
  });
});
