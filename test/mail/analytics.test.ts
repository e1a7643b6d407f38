/**
 * Analytics and tracking through HTTP (issue 14, "analytics and POST /v1/track/*"): the report is
 * computed from what the stub sent (per recipient, by day, week or month, for the account or one
 * campaign, sandboxed sends left out), its range rules, and custom events and purchases tracked
 * for a contact named by exactly one of `email` and `contact_id`.
 */
import { describe, expect, test } from 'vitest';
import type { MailEvents } from '../../server-stubs/mail/events.js';
import { answered, mailForEachTest } from './identity-support.js';

const mail = mailForEachTest();

const max = () => mail.key('msk_test_max');
const unknownId = '0f0e0d0c-0b0a-4909-8807-060504030201';
const day = 86_400_000;
const message = (to: string[]) => ({ from: { email: 'hello@example.com' }, to: to.map((email) => ({ email })), subject: 'Hi', text: 'Hi' });
const today = () => new Date(mail.clock.now()).toISOString().slice(0, 10);

async function report(query: Record<string, unknown> = {}) {
  return answered(await max().GET('/v1/analytics', { params: { query } }), 200, '/v1/analytics', 'get').data;
}

describe('GET /v1/analytics', () => {
  test('defaults to the last 30 days by day; counts each recipient as sent and delivered on its day; sandboxed sends do not count', async () => {
    answered(await max().POST('/v1/send', { body: message(['a@example.com', 'b@example.com']) }), 200, '/v1/send', 'post');
    answered(await max().POST('/v1/send', { params: { header: { 'X-Service-Sandbox': true } }, body: message(['c@example.com']) }), 200, '/v1/send', 'post');
    mail.clock.advance(day);
    answered(await max().POST('/v1/send', { body: message(['d@example.com']) }), 200, '/v1/send', 'post');
    const data = await report();
    expect(data).toMatchObject({ to: today(), campaign_id: null, granularity: 'day', totals: { sent: 3, delivered: 3, opened: 0 }, rates: { delivery_rate: 1, open_rate: 0, bounce_rate: 0 } });
    expect(data.series).toHaveLength(30);
    expect(data.series.at(-1)).toEqual({ period_start: today(), counts: expect.objectContaining({ sent: 1, delivered: 1 }) });
    expect(data.series.at(-2).counts).toMatchObject({ sent: 2, delivered: 2 });
    expect(data.from).toBe(data.series[0].period_start);
    expect(answered(await mail.key('msk_test_pro').GET('/v1/analytics'), 200, '/v1/analytics', 'get').data.totals.sent).toBe(0);
  });

  test('weeks start on Monday and months on the first; an explicit range counts only its days', async () => {
    mail.clock.set(Date.parse('2026-03-04T10:00:00Z')); // a Wednesday
    answered(await max().POST('/v1/send', { body: message(['a@example.com']) }), 200, '/v1/send', 'post');
    mail.clock.set(Date.parse('2026-03-20T10:00:00Z'));
    answered(await max().POST('/v1/send', { body: message(['b@example.com']) }), 200, '/v1/send', 'post');
    const weeks = await report({ from: '2026-03-01', to: '2026-03-20', granularity: 'week' });
    expect(weeks.series.map((b: { period_start: string; counts: { sent: number } }) => [b.period_start, b.counts.sent])).toEqual([
      ['2026-02-23', 0],
      ['2026-03-02', 1],
      ['2026-03-09', 0],
      ['2026-03-16', 1],
    ]);
    const months = await report({ from: '2026-02-01', to: '2026-03-31', granularity: 'month' });
    expect(months.series.map((b: { period_start: string; counts: { sent: number } }) => [b.period_start, b.counts.sent])).toEqual([
      ['2026-02-01', 0],
      ['2026-03-01', 2],
    ]);
    expect((await report({ from: '2026-03-05', to: '2026-03-31' })).totals.sent).toBe(1);
  });

  test('a campaign report counts only its copies; an unknown campaign is a 404', async () => {
    const segment = answered(
      await mail.session('sess_test_max').POST('/api/segments', { body: { name: 'All', segment_type: 'static', filter_criteria: { operator: 'AND', rules: [{ field: 'status', operator: 'equals', value: 'subscribed' }] } } }),
      201,
      '/api/segments',
      'post',
    ).data;
    const c = answered(await max().POST('/v1/campaigns', { body: { name: 'x', subject: 'x', from: { email: 'news@example.com' }, html: '<p>x</p>', segment_id: segment.id } }), 201, '/v1/campaigns', 'post').data;
    answered(await max().POST('/v1/campaigns/{id}/send', { params: { path: { id: c.id } } }), 202, '/v1/campaigns/{id}/send', 'post');
    answered(await max().POST('/v1/send', { body: message(['other@example.com']) }), 200, '/v1/send', 'post');
    await mail.app.runDue();
    const members = segment.contact_count as number;
    expect((await report({ campaign_id: c.id })).totals).toMatchObject({ sent: members, delivered: members });
    expect((await report()).totals.sent).toBe(members + 1);
    expect(answered(await max().GET('/v1/analytics', { params: { query: { campaign_id: unknownId } } }), 404, '/v1/analytics', 'get').error).toBe('Campaign not found');
  });

  test('400 when from is after to, the range is longer than 366 days, or the granularity is unknown', async () => {
    const reversed = answered(await max().GET('/v1/analytics', { params: { query: { from: '2026-03-02', to: '2026-03-01' } } }), 400, '/v1/analytics', 'get');
    expect(reversed.details.fieldErrors).toEqual({ from: ['Must not be after to'] });
    answered(await max().GET('/v1/analytics', { params: { query: { from: '2025-01-01', to: '2026-01-02' } } }), 400, '/v1/analytics', 'get');
    expect((await report({ from: '2025-01-01', to: '2026-01-01' })).series).toHaveLength(366);
    answered(await max().GET('/v1/analytics', { params: { query: { granularity: 'hour' as never } } }), 400, '/v1/analytics', 'get');
  });
});

describe('POST /v1/track/event and /v1/track/purchase', () => {
  test('an event is recorded for the contact named by address or id, and announced for automations', async () => {
    const seen: Array<MailEvents['contact.event_tracked']> = [];
    const off = mail.app.events.on('contact.event_tracked', (e) => seen.push(e));
    const contact = answered(await max().GET('/v1/contacts', { params: { query: { email: 'ada.max@example.com' } } }), 200, '/v1/contacts', 'get').data[0];
    const byEmail = answered(await max().POST('/v1/track/event', { body: { email: 'ADA.max@example.com', event: 'signed_up', properties: { plan: 'trial' }, occurred_at: '2026-01-10T08:00:00Z' } }), 201, '/v1/track/event', 'post').data;
    expect(byEmail).toMatchObject({ contact_id: contact.id, event: 'signed_up', properties: { plan: 'trial' }, occurred_at: '2026-01-10T08:00:00.000Z', created_at: new Date(mail.clock.now()).toISOString() });
    const byId = answered(await max().POST('/v1/track/event', { body: { contact_id: contact.id, event: 'viewed_pricing' } }), 201, '/v1/track/event', 'post').data;
    expect(byId).toMatchObject({ properties: {}, occurred_at: new Date(mail.clock.now()).toISOString() });
    off();
    expect(seen.map((e) => e.event)).toEqual(['signed_up', 'viewed_pricing']);
  });

  test('exactly one of email and contact_id: both or neither is a 400; a contact of nobody or of another user a 404', async () => {
    const contact = answered(await max().GET('/v1/contacts', { params: { query: { email: 'ada.max@example.com' } } }), 200, '/v1/contacts', 'get').data[0];
    answered(await max().POST('/v1/track/event', { body: { email: 'ada.max@example.com', contact_id: contact.id, event: 'x' } as never }), 400, '/v1/track/event', 'post');
    answered(await max().POST('/v1/track/event', { body: { event: 'x' } as never }), 400, '/v1/track/event', 'post');
    expect(answered(await max().POST('/v1/track/event', { body: { email: 'nobody@example.com', event: 'x' } }), 404, '/v1/track/event', 'post').error).toBe('Contact not found');
    answered(await mail.key('msk_test_pro').POST('/v1/track/event', { body: { contact_id: contact.id, event: 'x' } }), 404, '/v1/track/event', 'post');
  });

  test('a purchase is recorded once per order id (409 after), attributed to a campaign of the user (404 otherwise)', async () => {
    const body = { email: 'ada.max@example.com', order_id: 'ORD-1', amount: 59.9, currency: 'EUR', items: [{ product_id: 'SKU-1', name: 'Shirt', quantity: 1, price: 59.9 }] };
    const first = answered(await max().POST('/v1/track/purchase', { body }), 201, '/v1/track/purchase', 'post').data;
    expect(first).toMatchObject({ order_id: 'ORD-1', amount: 59.9, currency: 'EUR', campaign_id: null, items: body.items });
    expect(answered(await max().POST('/v1/track/purchase', { body }), 409, '/v1/track/purchase', 'post').error).toBe('Purchase already tracked');
    answered(await mail.key('msk_test_pro').POST('/v1/track/purchase', { body: { ...body, email: 'ada.pro@example.com' } }), 201, '/v1/track/purchase', 'post');
    const unknown = answered(await max().POST('/v1/track/purchase', { body: { ...body, order_id: 'ORD-2', campaign_id: unknownId } }), 404, '/v1/track/purchase', 'post');
    expect(unknown.error).toBe('Campaign not found');
    const c = answered(await max().POST('/v1/campaigns', { body: { name: 'x', subject: 'x', from: { email: 'news@example.com' } } }), 201, '/v1/campaigns', 'post').data;
    expect(answered(await max().POST('/v1/track/purchase', { body: { ...body, order_id: 'ORD-3', campaign_id: c.id } }), 201, '/v1/track/purchase', 'post').data.campaign_id).toBe(c.id);
    answered(await max().POST('/v1/track/purchase', { body: { ...body, order_id: 'ORD-4', currency: 'euro' } }), 400, '/v1/track/purchase', 'post');
  });
});
