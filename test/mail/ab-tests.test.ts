/**
 * A/B tests of campaigns through HTTP (issue 14, "A/B tests and winner (Pro)"): the Pro gate, a
 * test only of a draft campaign and only one per campaign, the test group split evenly between the
 * variants when the campaign is sent, the winner chosen by hand or by the stub clock after
 * `duration_hours` (ties to the earlier variant) and sent to everyone else, then the campaign sent.
 */
import { describe, expect, test } from 'vitest';
import { answered, mailForEachTest } from './identity-support.js';

const mail = mailForEachTest();

const max = () => mail.key('msk_test_max');
const unknownId = '0f0e0d0c-0b0a-4909-8807-060504030201';
const from = { email: 'news@example.com' };
const variants = [
  { name: 'A', subject: 'Subject A' },
  { name: 'B', subject: 'Subject B', html: '<p>Body B</p>' },
];

/** A draft campaign to a static segment of `n` fresh contacts. */
async function campaignTo(n: number) {
  for (let i = 0; i < n; i++) answered(await max().POST('/v1/contacts', { body: { email: `r${i}@example.com`, tags: ['ab'] } }), 201, '/v1/contacts', 'post');
  const body = { name: 'AB audience', segment_type: 'static' as const, filter_criteria: { operator: 'AND' as const, rules: [{ field: 'tags', operator: 'contains' as const, value: 'ab' }] } };
  const segment = answered(await mail.session('sess_test_max').POST('/api/segments', { body }), 201, '/api/segments', 'post').data;
  return answered(await max().POST('/v1/campaigns', { body: { name: 'AB', subject: 'Campaign subject', from, html: '<p>Campaign body</p>', segment_id: segment.id } }), 201, '/v1/campaigns', 'post').data;
}

async function abTest(campaignId: string, extra: Record<string, unknown> = {}) {
  return answered(await max().POST('/v1/ab-tests', { body: { campaign_id: campaignId, variants, ...extra } as never }), 201, '/v1/ab-tests', 'post').data;
}

const sendCampaign = async (id: string) => answered(await max().POST('/v1/campaigns/{id}/send', { params: { path: { id } } }), 202, '/v1/campaigns/{id}/send', 'post').data;
const listed = async (id: string) => answered(await max().GET('/v1/ab-tests'), 200, '/v1/ab-tests', 'get').data.find((t: { id: string }) => t.id === id);
const campaignStatus = async (id: string) => answered(await max().GET('/v1/campaigns', { params: { query: { limit: 100 } } }), 200, '/v1/campaigns', 'get').data.find((c: { id: string }) => c.id === id).status;

describe('creating a test', () => {
  test('a draft campaign gets a test with defaults (20 %, open rate, 4 hours) and zero results', async () => {
    const c = await campaignTo(1);
    const t = await abTest(c.id);
    expect(t).toMatchObject({ campaign_id: c.id, status: 'draft', test_size_percent: 20, winner_criteria: 'open_rate', duration_hours: 4, winner_variant_id: null, winner_selected_at: null });
    expect(t.variants.map((v: { name: string; subject: string | null; html: string | null; sent: number }) => [v.name, v.subject, v.html, v.sent])).toEqual([
      ['A', 'Subject A', null, 0],
      ['B', 'Subject B', '<p>Body B</p>', 0],
    ]);
  });

  test('Free is refused with feature ab_tests; one test per draft campaign (409); names must differ (400); unknown campaign 404', async () => {
    const c = await campaignTo(1);
    const refused = answered(await mail.key('msk_test_free').POST('/v1/ab-tests', { body: { campaign_id: c.id, variants } }), 403, '/v1/ab-tests', 'post');
    expect(refused).toMatchObject({ feature: 'ab_tests', required_plan: 'pro' });
    answered(await mail.key('msk_test_free').GET('/v1/ab-tests'), 403, '/v1/ab-tests', 'get');
    expect(answered(await max().POST('/v1/ab-tests', { body: { campaign_id: c.id, variants: [{ name: 'A', subject: 'x' }, { name: 'A', subject: 'y' }] } }), 400, '/v1/ab-tests', 'post').details).toEqual({
      fieldErrors: { variants: ['Variant names must differ'] },
    });
    await abTest(c.id);
    expect(answered(await max().POST('/v1/ab-tests', { body: { campaign_id: c.id, variants } }), 409, '/v1/ab-tests', 'post').error).toBe('Campaign already has an A/B test');
    answered(await max().POST('/v1/ab-tests', { body: { campaign_id: unknownId, variants } }), 404, '/v1/ab-tests', 'post');
    const sent = await campaignTo(0);
    await sendCampaign(sent.id);
    expect(answered(await max().POST('/v1/ab-tests', { body: { campaign_id: sent.id, variants } }), 409, '/v1/ab-tests', 'post').error).toBe('Only a draft campaign can be tested');
  });
});

describe('running a test', () => {
  test('sending splits the test group evenly between variants and holds the rest; the clock picks the winner (a tie: the earlier variant) and sends it to the rest', async () => {
    const c = await campaignTo(20);
    const t = await abTest(c.id, { test_size_percent: 20, duration_hours: 2 });
    await sendCampaign(c.id);
    const running = await listed(t.id);
    expect(running.status).toBe('running');
    expect(running.variants.map((v: { sent: number }) => v.sent)).toEqual([2, 2]);
    expect(mail.app.outbox.ofCampaign(c.id).map((m) => m.subject).sort()).toEqual(['Subject A', 'Subject A', 'Subject B', 'Subject B']);
    expect(await campaignStatus(c.id)).toBe('sending');

    mail.clock.advance(2 * 3600_000 - 1);
    await mail.app.runDue();
    expect((await listed(t.id)).status).toBe('running');
    mail.clock.advance(1);
    await mail.app.runDue();
    const done = await listed(t.id);
    expect(done).toMatchObject({ status: 'completed', winner_variant_id: done.variants[0].id, winner_selected_at: new Date(mail.clock.now()).toISOString() });
    const copies = mail.app.outbox.ofCampaign(c.id);
    expect(copies).toHaveLength(20);
    expect(copies.filter((m) => m.subject === 'Subject A' && m.html === '<p>Campaign body</p>')).toHaveLength(18);
    expect(done.variants.map((v: { sent: number }) => v.sent)).toEqual([2, 2]);
    expect(await campaignStatus(c.id)).toBe('sent');
  });

  test('a winner picked by hand is sent to the rest at once; afterwards 409; before the campaign is sent 409; unknown ids 404', async () => {
    const c = await campaignTo(10);
    const t = await abTest(c.id, { test_size_percent: 50 });
    const variantB = t.variants[1].id;
    expect(answered(await max().POST('/v1/ab-tests/{id}/winner', { params: { path: { id: t.id } }, body: { variant_id: variantB } }), 409, '/v1/ab-tests/{id}/winner', 'post').error).toBe('A/B test has not started');
    await sendCampaign(c.id);
    answered(await max().POST('/v1/ab-tests/{id}/winner', { params: { path: { id: t.id } }, body: { variant_id: unknownId } }), 404, '/v1/ab-tests/{id}/winner', 'post');
    const picked = answered(await max().POST('/v1/ab-tests/{id}/winner', { params: { path: { id: t.id } }, body: { variant_id: variantB } }), 200, '/v1/ab-tests/{id}/winner', 'post').data;
    expect(picked).toMatchObject({ status: 'completed', winner_variant_id: variantB });
    expect(mail.app.outbox.ofCampaign(c.id).filter((m) => m.subject === 'Subject B')).toHaveLength(2 + 5); // the test group of 5 dealt A, B, A, B, A
    expect(answered(await max().POST('/v1/ab-tests/{id}/winner', { params: { path: { id: t.id } }, body: { variant_id: variantB } }), 409, '/v1/ab-tests/{id}/winner', 'post').error).toBe('Winner already selected');
    answered(await max().POST('/v1/ab-tests/{id}/winner', { params: { path: { id: unknownId } }, body: { variant_id: variantB } }), 404, '/v1/ab-tests/{id}/winner', 'post');
    answered(await mail.key('msk_test_pro').POST('/v1/ab-tests/{id}/winner', { params: { path: { id: t.id } }, body: { variant_id: variantB } }), 404, '/v1/ab-tests/{id}/winner', 'post');
    await mail.app.runDue();
    expect(await campaignStatus(c.id)).toBe('sent');
  });

  test('deleting a draft campaign takes its test with it', async () => {
    const c = await campaignTo(1);
    const t = await abTest(c.id);
    answered(await max().DELETE('/v1/campaigns', { params: { query: { id: c.id } } }), 200, '/v1/campaigns', 'delete');
    expect(await listed(t.id)).toBeUndefined();
  });
});
