/**
 * Plans, billing and sending accounts through HTTP: `GET /v1/plan-limits` says what `plans.ts`
 * decides (the Limits table and DECISIONS mail-1), the subscription follows the plan, checkout
 * answers a payment page without changing anything, and `/accounts` CRUD stays within one user.
 */
import { describe, expect, test } from 'vitest';
import { hasFeature, requireFeature, validationCredits } from '../../server-stubs/mail/identity/plans.js';
import { ApiError } from '../../server-stubs/lib/errors.js';
import { answered, mailForEachTest, startMail } from './identity-support.js';

const mail = mailForEachTest();

describe('plan limits', () => {
  test.each([
    ['msk_test_free', 'free', { api_keys: 2, monitored_domains: 1 }, { whatsapp: false, push: false, dedicated_ips: false, workspaces: false, validation: false, ab_tests: false, ai_subject_lines: false }],
    ['msk_test_pro', 'pro', { api_keys: 5, monitored_domains: 5 }, { whatsapp: false, push: false, dedicated_ips: false, workspaces: false, validation: true, ab_tests: true, ai_subject_lines: true }],
    ['msk_test_max', 'max', { api_keys: 20, monitored_domains: 25 }, { whatsapp: true, push: true, dedicated_ips: true, workspaces: true, validation: true, ab_tests: true, ai_subject_lines: true }],
  ])('%s: the %s plan, its quotas and feature flags', async (key, plan, quotas, features) => {
    const body = answered(await mail.key(key).GET('/v1/plan-limits'), 200, '/v1/plan-limits', 'get');
    expect(body.data.plan).toBe(plan);
    expect(body.data.quotas).toMatchObject(quotas);
    expect(body.data.features).toEqual(features);
    expect(body.data.usage).toMatchObject({ api_keys: 1, period_start: '2026-01-01T00:00:00.000Z', period_end: '2026-02-01T00:00:00.000Z' });
  });

  test('the period follows the stub clock into the next month', async () => {
    const later = await startMail();
    try {
      later.clock.set(Date.parse('2026-02-03T00:00:00Z'));
      const body = answered(await later.key('msk_test_pro').GET('/v1/plan-limits'), 200, '/v1/plan-limits', 'get');
      expect(body.data.usage).toMatchObject({ period_start: '2026-02-01T00:00:00.000Z', period_end: '2026-03-01T00:00:00.000Z' });
    } finally {
      await later.close();
    }
  });

  test('one place decides the gates: Pro features need Pro, Max features need Max, with feature and required_plan', () => {
    expect(hasFeature('free', 'validation')).toBe(false);
    expect(hasFeature('pro', 'validation')).toBe(true);
    expect(hasFeature('pro', 'whatsapp')).toBe(false);
    expect(hasFeature('max', 'whatsapp')).toBe(true);
    try {
      requireFeature('pro', 'push');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(403);
      expect((error as ApiError).extras).toEqual({ feature: 'push', required_plan: 'max' });
    }
    expect(validationCredits).toEqual({ free: 0, pro: 10, max: 1000 });
  });
});

describe('billing', () => {
  test.each([
    ['msk_test_free', { plan: 'free', status: 'active', current_period_end: null, cancel_at_period_end: false }],
    ['msk_test_max', { plan: 'max', status: 'active', current_period_end: '2026-02-01T00:00:00.000Z', cancel_at_period_end: false }],
  ])('%s: the subscription', async (key, subscription) => {
    expect(answered(await mail.key(key).GET('/billing/subscription'), 200, '/billing/subscription', 'get').data).toEqual(subscription);
  });

  test('checkout answers a payment page and charges nothing: the plan stays', async () => {
    const body = answered(
      await mail.key('msk_test_free').POST('/billing/checkout', { body: { plan: 'max', success_url: 'https://app.example.com/ok', cancel_url: 'https://app.example.com/no' } }),
      201,
      '/billing/checkout',
      'post',
    );
    expect(new URL(body.data.checkout_url).protocol).toBe('https:');
    expect(body.data.checkout_url).toContain('plan=max');
    expect(answered(await mail.key('msk_test_free').GET('/billing/subscription'), 200, '/billing/subscription', 'get').data.plan).toBe('free');
  });

  test('a plan other than pro or max: 400', async () => {
    const response = await fetch(`${mail.baseUrl}/billing/checkout`, {
      method: 'POST',
      headers: { authorization: 'Bearer msk_test_free', 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'free', success_url: 'https://app.example.com/ok', cancel_url: 'https://app.example.com/no' }),
    });
    expect(response.status).toBe(400);
  });
});

describe('accounts', () => {
  test('each user starts with one default account of their own address', async () => {
    const body = answered(await mail.session('sess_test_pro').GET('/accounts'), 200, '/accounts', 'get');
    expect(body.data).toEqual([expect.objectContaining({ email: 'pro@example.com', is_default: true })]);
    expect(body.pagination).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });
  });

  test('create, make default, rename, delete: exactly one default throughout', async () => {
    const dash = mail.session('sess_test_max');
    const created = answered(await dash.POST('/accounts', { body: { name: 'Support', email: 'support@example.com' } }), 201, '/accounts', 'post').data;
    expect(created.is_default).toBe(false);
    const promoted = answered(await dash.PATCH('/accounts', { params: { query: { id: created.id } }, body: { is_default: true, name: 'Support team' } }), 200, '/accounts', 'patch').data;
    expect(promoted).toMatchObject({ name: 'Support team', is_default: true });
    let list = answered(await dash.GET('/accounts'), 200, '/accounts', 'get').data;
    expect(list.filter((a: { is_default: boolean }) => a.is_default).map((a: { id: string }) => a.id)).toEqual([created.id]);
    answered(await dash.DELETE('/accounts', { params: { query: { id: created.id } } }), 200, '/accounts', 'delete');
    list = answered(await dash.GET('/accounts'), 200, '/accounts', 'get').data;
    expect(list).toEqual([expect.objectContaining({ email: 'max@example.com', is_default: true })]);
  });

  test('a new default at creation takes the flag from the old one', async () => {
    const dash = mail.session('sess_test_free');
    answered(await dash.POST('/accounts', { body: { name: 'News', email: 'news@example.com', is_default: true } }), 201, '/accounts', 'post');
    const list = answered(await dash.GET('/accounts'), 200, '/accounts', 'get').data;
    expect(list.map((a: { email: string; is_default: boolean }) => [a.email, a.is_default])).toEqual([
      ['free@example.com', false],
      ['news@example.com', true],
    ]);
  });

  test("another user's account is not found: 404 to change or delete, and it is not listed", async () => {
    const theirs = answered(await mail.session('sess_test_pro').GET('/accounts'), 200, '/accounts', 'get').data[0].id;
    const mine = mail.session('sess_test_max');
    answered(await mine.PATCH('/accounts', { params: { query: { id: theirs } }, body: { name: 'Taken' } }), 404, '/accounts', 'patch');
    answered(await mine.DELETE('/accounts', { params: { query: { id: theirs } } }), 404, '/accounts', 'delete');
    const list = answered(await mine.GET('/accounts'), 200, '/accounts', 'get').data;
    expect(list.map((a: { id: string }) => a.id)).not.toContain(theirs);
  });
});
