/**
 * In-app notifications through HTTP (issue 15, "Notifications"): the seeded system announcement,
 * notifications made by real actions of the other parts (an import, a sending domain verified or
 * failed, a campaign sent and completed, an automation activated and paused) and by a plan change,
 * the list (newest first, `unread_only`, `limit` 1-100 default 50, `unreadCount` always), marking
 * read by ids (at most 100; other users' ids ignored) or all, isolation between users, and the
 * session-only routes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { RecordResolver } from '../../server-stubs/lib/dns-records.js';
import { answered, startMail, type MailStub } from './identity-support.js';

/** A zone the tests fill: names without records answer "no records" at once (no network needed). */
const zone: Record<string, { txt?: string[]; cname?: string[] }> = {};
const dns: RecordResolver = {
  txt: async (name) => zone[name]?.txt ?? [],
  cname: async (name) => zone[name]?.cname ?? [],
  mx: async () => [],
  addresses: async () => [],
};

let mail: MailStub;
beforeAll(async () => {
  mail = await startMail({ dns });
});
afterAll(() => mail.close());
beforeEach(() => {
  mail.app.reset();
  for (const name of Object.keys(zone)) delete zone[name];
});

const path = '/api/notifications';
const dashboard = (user: 'free' | 'pro' | 'max' = 'max') => mail.session(`sess_test_${user}`);
const max = () => mail.key('msk_test_max');
const hour = 3_600_000;

type Notification = { id: string; type: string; title: string; body: string; entity_type: string; entity_id: string | null; is_read: boolean; created_at: string };
type Listing = { success: true; notifications: Notification[]; unreadCount: number };

async function list(query: { unread_only?: boolean; limit?: number } = {}, client = dashboard()): Promise<Listing> {
  return answered(await client.GET(path, { params: { query } }), 200, path, 'get');
}

async function markRead(body?: { ids?: string[] }, client = dashboard()) {
  return answered(await client.PATCH(path, body === undefined ? {} : { body }), 200, path, 'patch');
}

/** Notifications the test adds one second apart, so their order is plain. */
function addSome(count: number, userId = 'usr_max') {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    mail.clock.advance(1000);
    ids.push(mail.app.notifications.add(userId, { type: 'test', title: `n${i}`, body: `notification ${i}`, entityType: 'system', entityId: null }).id);
  }
  return ids;
}

describe('the seeded system announcement', () => {
  test('every user, seeded or not, starts with one unread system announcement of no entity', async () => {
    for (const user of ['free', 'pro', 'max'] as const) {
      const listing = await list({}, dashboard(user));
      expect(listing.unreadCount).toBe(1);
      expect(listing.notifications).toEqual([
        { id: expect.any(String), type: 'announcement', title: expect.any(String), body: expect.any(String), entity_type: 'system', entity_id: null, is_read: false, created_at: new Date(mail.clock.now()).toISOString() },
      ]);
    }
    expect(mail.app.notifications.of('usr_created_later')).toHaveLength(1);
  });
});

describe('made by the other parts', () => {
  test('a contact import: contact_import with the import id and its counts', async () => {
    answered(await max().POST('/v1/contacts', { body: { email: 'known@example.com' } }), 201, '/v1/contacts', 'post');
    const started = answered(await max().POST('/v1/contacts/import', { body: { contacts: [{ email: 'a@example.com' }, { email: 'b@example.com' }, { email: 'known@example.com' }] } as never }), 202, '/v1/contacts/import', 'post').data;
    const [latest] = (await list()).notifications;
    expect(latest).toMatchObject({ type: 'import_completed', title: 'Import finished', entity_type: 'contact_import', entity_id: started.import_id, is_read: false });
    expect(latest!.body).toBe(`2 contacts created, ${started.updated} updated, ${started.skipped} skipped, 0 failed.`);
    expect(started.updated + started.skipped).toBe(1);
  });

  test('a sending domain verified, and another failed 72 hours on: domain_verification with the domain id', async () => {
    const created = async (domain: string) => answered(await max().POST('/v1/domains', { body: { domain } }), 201, '/v1/domains', 'post').data;
    const good = await created('good.example.test');
    const late = await created('late.example.test');
    for (const r of good.dns_records as Array<{ name: string; type: string; value: string }>) zone[r.name] = r.type === 'CNAME' ? { cname: [r.value] } : { txt: [r.value] };
    mail.clock.advance(10 * 60_000);
    await mail.app.runDue();
    mail.clock.advance(72 * hour);
    await mail.app.runDue();
    const byEntity = Object.fromEntries((await list()).notifications.filter((n) => n.entity_type === 'domain_verification').map((n) => [n.entity_id, n]));
    expect(byEntity[good.id]).toMatchObject({ type: 'domain_verified', title: 'Domain verified' });
    expect(byEntity[good.id]!.body).toContain('good.example.test');
    expect(byEntity[late.id]).toMatchObject({ type: 'domain_verification_failed', title: 'Domain verification failed' });
    expect(byEntity[late.id]!.body).toContain('late.example.test');
    expect(Object.keys(byEntity)).toHaveLength(2);
  });

  /** A draft campaign `name` to a dynamic segment of one subscribed contact, tagged `tag`. */
  async function campaignToOneReader(tag: string, name: string) {
    answered(await max().POST('/v1/contacts', { body: { email: `${tag}@example.com`, tags: [tag] } }), 201, '/v1/contacts', 'post');
    const segment = answered(
      await dashboard().POST('/api/segments', { body: { name: `Readers of ${tag}`, segment_type: 'dynamic', filter_criteria: { operator: 'AND', rules: [{ field: 'tags', operator: 'contains', value: tag }] } } }),
      201,
      '/api/segments',
      'post',
    ).data;
    return answered(
      await max().POST('/v1/campaigns', { body: { name, subject: name, from: { email: 'news@example.com' }, html: '<p>Hi</p>', segment_id: segment.id } as never }),
      201,
      '/v1/campaigns',
      'post',
    ).data;
  }

  test('a campaign sent and completed: two campaign notifications naming it', async () => {
    const campaign = await campaignToOneReader('news', 'March news');
    answered(await max().POST('/v1/campaigns/{id}/send', { params: { path: { id: campaign.id } }, body: {} as never }), 202, '/v1/campaigns/{id}/send', 'post');
    await mail.app.runDue();
    const mine = (await list()).notifications.filter((n) => n.entity_type === 'campaign');
    expect(mine.map((n) => [n.type, n.entity_id]).sort()).toEqual([
      ['campaign_completed', campaign.id],
      ['campaign_sending', campaign.id],
    ]);
    expect(mine.find((n) => n.type === 'campaign_sending')!.body).toBe('"March news" is being sent to 1 contact.');
    expect(mine.find((n) => n.type === 'campaign_completed')!.body).toBe('"March news" was delivered to 1 contact; 0 failed.');
  });

  test('a campaign sent in sandbox mode: the same two campaign notifications, saying the copies were captured', async () => {
    const campaign = await campaignToOneReader('boxed', 'Dry run');
    answered(await max().POST('/v1/campaigns/{id}/send', { params: { path: { id: campaign.id }, header: { 'X-Service-Sandbox': true } }, body: {} as never }), 202, '/v1/campaigns/{id}/send', 'post');
    await mail.app.runDue();
    const mine = (await list()).notifications.filter((n) => n.entity_id === campaign.id);
    expect(mine.map((n) => [n.type, n.entity_type]).sort()).toEqual([
      ['campaign_completed', 'campaign'],
      ['campaign_sending', 'campaign'],
    ]);
    expect(mine.find((n) => n.type === 'campaign_sending')!.body).toBe('"Dry run" is being captured in the sandbox for 1 contact.');
    expect(mine.find((n) => n.type === 'campaign_completed')!.body).toBe('"Dry run" was captured in the sandbox for 1 contact; 0 failed.');
  });

  test('an automation activated, then paused: automation notifications with its id', async () => {
    const template = answered(await max().POST('/v1/templates', { body: { name: 'Hello', subject: 'Hello', html: '<p>Hello</p>' } }), 201, '/v1/templates', 'post').data;
    const automation = answered(
      await max().POST('/v1/automations', { body: { name: 'Onboarding', trigger: { type: 'contact_created' }, steps: [{ type: 'send_email', template_id: template.id, from: { email: 'hi@example.com' } }] } as never }),
      201,
      '/v1/automations',
      'post',
    ).data;
    for (const status of ['active', 'paused'] as const) {
      mail.clock.advance(1000);
      answered(await max().PATCH('/v1/automations', { params: { query: { id: automation.id } }, body: { status } as never }), 200, '/v1/automations', 'patch');
    }
    const mine = (await list()).notifications.filter((n) => n.entity_type === 'automation');
    expect(mine.map((n) => [n.type, n.entity_id, n.body])).toEqual([
      ['automation_paused', automation.id, '"Onboarding" is now paused.'],
      ['automation_activated', automation.id, '"Onboarding" is now active.'],
    ]);
  });

  test('a plan change, as identity announces it: billing', async () => {
    mail.app.identity.setPlan('usr_free', 'pro');
    mail.app.identity.setPlan('usr_free', 'free');
    const billing = (await list({}, dashboard('free'))).notifications.filter((n) => n.entity_type === 'billing');
    expect(billing.map((n) => [n.type, n.entity_id, n.body]).sort()).toEqual([
      ['plan_downgraded', null, 'Your plan changed from Pro to Free.'],
      ['plan_upgraded', null, 'Your plan changed from Free to Pro.'],
    ]);
  });

  test("one user's events never reach another user's list", async () => {
    answered(await max().POST('/v1/contacts/import', { body: { contacts: [{ email: 'only-max@example.com' }] } as never }), 202, '/v1/contacts/import', 'post');
    expect((await list({}, dashboard('pro'))).notifications.map((n) => n.type)).toEqual(['announcement']);
    expect((await list()).notifications.map((n) => n.type)).toEqual(['import_completed', 'announcement']);
  });
});

describe('list', () => {
  test('newest first; unread_only keeps the unread ones; unreadCount counts every unread one whatever the filter and the limit', async () => {
    const ids = addSome(3);
    await markRead({ ids: [ids[1]!] });
    const all = await list();
    expect(all.notifications.map((n) => n.title)).toEqual(['n2', 'n1', 'n0', expect.any(String)]);
    expect(all.notifications.map((n) => n.is_read)).toEqual([false, true, false, false]);
    expect(all.unreadCount).toBe(3);
    const unread = await list({ unread_only: true });
    expect(unread.notifications.map((n) => n.title)).toEqual(['n2', 'n0', expect.any(String)]);
    expect(unread.unreadCount).toBe(3);
    const limited = await list({ unread_only: true, limit: 1 });
    expect(limited.notifications.map((n) => n.title)).toEqual(['n2']);
    expect(limited.unreadCount).toBe(3);
    expect((await list({ unread_only: false })).notifications).toHaveLength(4);
  });

  test('limit defaults to 50 and goes up to 100', async () => {
    addSome(120);
    expect((await list()).notifications).toHaveLength(50);
    expect((await list({ limit: 100 })).notifications).toHaveLength(100);
    const listing = await list({ limit: 100 });
    expect(listing.notifications[0]!.title).toBe('n119');
    expect(listing.unreadCount).toBe(121);
  });

  test('limit outside 1-100, a non-integer limit or unread_only not true/false: 400 Validation failed', async () => {
    for (const query of [{ limit: 0 }, { limit: 101 }, { limit: 2.5 }, { limit: 'ten' }, { unread_only: 'yes' }]) {
      const refused = answered(await dashboard().GET(path, { params: { query: query as never } }), 400, path, 'get');
      expect(refused.error, JSON.stringify(query)).toBe('Validation failed');
      expect(Object.keys(refused.details.fieldErrors)).toEqual(Object.keys(query));
    }
  });
});

describe('mark read', () => {
  test('by ids: only those; unknown ids and other users\' ids are ignored (200), theirs stay unread', async () => {
    const [a, b, c] = addSome(3);
    const [theirs] = addSome(1, 'usr_pro');
    expect(await markRead({ ids: [a!, c!, theirs!, 'no-such-id'] })).toEqual({ success: true });
    const mine = await list();
    expect(mine.notifications.filter((n) => n.is_read).map((n) => n.id).sort()).toEqual([a!, c!].sort());
    expect(mine.unreadCount).toBe(2);
    expect(mine.notifications.find((n) => n.id === b)!.is_read).toBe(false);
    const pro = await list({}, dashboard('pro'));
    expect(pro.notifications.find((n) => n.id === theirs)!.is_read).toBe(false);
    expect(pro.unreadCount).toBe(2);
  });

  test('no ids (empty object or no body at all): every notification of the user, none of anyone else', async () => {
    addSome(3);
    addSome(2, 'usr_pro');
    await markRead({});
    expect((await list()).unreadCount).toBe(0);
    expect((await list({ unread_only: true })).notifications).toEqual([]);
    expect((await list({}, dashboard('pro'))).unreadCount).toBe(3);
    await markRead(undefined, dashboard('pro'));
    expect((await list({}, dashboard('pro'))).unreadCount).toBe(0);
  });

  test('an empty ids array marks nothing; marking twice is harmless', async () => {
    const [a] = addSome(1);
    await markRead({ ids: [] });
    expect((await list()).unreadCount).toBe(2);
    await markRead({ ids: [a!] });
    await markRead({ ids: [a!] });
    expect((await list()).unreadCount).toBe(1);
  });

  test('100 ids are taken, 101 are a 400 that marks nothing; ids not strings or invalid JSON are 400', async () => {
    const ids = addSome(101);
    await markRead({ ids: ids.slice(0, 100) });
    expect((await list()).unreadCount).toBe(2);
    const refused = answered(await dashboard().PATCH(path, { body: { ids: [...ids, 'x'] } }), 400, path, 'patch');
    expect(refused).toMatchObject({ error: 'Validation failed', details: { fieldErrors: { ids: expect.any(Array) } } });
    expect((await list()).unreadCount).toBe(2);
    answered(await dashboard().PATCH(path, { body: { ids: [1, 2] } as never }), 400, path, 'patch');
    answered(await dashboard().PATCH(path, { body: { ids: 'all' } as never }), 400, path, 'patch');
    const response = await fetch(`${mail.baseUrl}${path}`, { method: 'PATCH', headers: { cookie: 'session=sess_test_max', 'content-type': 'application/json' }, body: '{"ids": [' });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ success: false, error: 'Invalid JSON body' });
    expect((await list()).unreadCount).toBe(2);
  });
});

describe('session only', () => {
  test('an API key, no credentials or an unknown session: 401 on both routes', async () => {
    for (const client of [max(), mail.anonymous(), mail.session('sess_nobody')]) {
      answered(await client.GET(path), 401, path, 'get');
      answered(await client.PATCH(path, { body: {} }), 401, path, 'patch');
    }
    expect((await list()).unreadCount).toBe(1);
  });
});
