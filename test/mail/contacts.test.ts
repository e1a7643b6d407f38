/**
 * Contacts through HTTP with the generated mail client (issue 13, "Contacts"): seeded contacts,
 * the address unique per user, paging and filters, updates by path and by query, isolation
 * between users, the suppression list that unsubscribes and complaints feed, and JSON import
 * (skips, updates, quota failures, nothing imported from a malformed body, the completion event).
 */
import { describe, expect, test } from 'vitest';
import type { MailEvents } from '../../server-stubs/mail/events.js';
import { planQuotas } from '../../server-stubs/mail/identity/plans.js';
import { answered, mailForEachTest } from './identity-support.js';

const mail = mailForEachTest();

const max = () => mail.key('msk_test_max');
const pro = () => mail.key('msk_test_pro');
const unknownId = '0f0e0d0c-0b0a-4909-8807-060504030201';

async function list(query: Record<string, unknown> = {}, client = max()) {
  return answered(await client.GET('/v1/contacts', { params: { query } }), 200, '/v1/contacts', 'get');
}

async function create(body: { email: string; [k: string]: unknown }, client = max()) {
  return answered(await client.POST('/v1/contacts', { body: body as never }), 201, '/v1/contacts', 'post').data;
}

describe('seeded contacts (DECISIONS mail-1)', () => {
  test('each seeded user has a few subscribed contacts of their own, none suppressed', async () => {
    const mine = await list();
    const theirs = await list({}, pro());
    expect(mine.data.length).toBeGreaterThanOrEqual(2);
    expect(mine.data.every((c: { status: string }) => c.status === 'subscribed')).toBe(true);
    const ids = new Set(mine.data.map((c: { id: string }) => c.id));
    expect(theirs.data.some((c: { id: string }) => ids.has(c.id))).toBe(false);
    expect(mail.app.contacts.suppressionsOf('usr_max')).toEqual([]);
  });
});

describe('create', () => {
  test('defaults: subscribed, no tier, empty lists, created and updated at the stub clock', async () => {
    const c = await create({ email: 'new@example.com' });
    expect(c).toMatchObject({ email: 'new@example.com', status: 'subscribed', engagement_tier: null, first_name: null, tags: [], push_tokens: [], custom_fields: {} });
    expect(c.created_at).toBe(new Date(mail.clock.now()).toISOString());
    expect(c.updated_at).toBe(c.created_at);
  });

  test('the address is unique per user, case-insensitively: 409; another user may have it', async () => {
    await create({ email: 'twice@example.com' });
    const again = answered(await max().POST('/v1/contacts', { body: { email: 'TWICE@example.com' } }), 409, '/v1/contacts', 'post');
    expect(again).toEqual({ success: false, error: 'Contact already exists' });
    await create({ email: 'twice@example.com' }, pro());
  });

  test('a token without the write or contacts scope: 403, nothing created', async () => {
    answered(await mail.key('msk_test_oauth_send').POST('/v1/contacts', { body: { email: 'scoped@example.com' } }), 403, '/v1/contacts', 'post');
    expect((await list({ email: 'scoped@example.com' })).data).toEqual([]);
  });

  test("at the plan's contact quota a create is refused with 403 (Free)", async () => {
    const room = planQuotas.free.contacts! - mail.app.contacts.count('usr_free');
    const rows = Array.from({ length: room }, (_, i) => ({ email: `row${i}@example.com` }));
    const imported = answered(await mail.key('msk_test_free').POST('/v1/contacts/import', { body: { contacts: [...rows, { email: 'one-too-many@example.com' }] } }), 202, '/v1/contacts/import', 'post');
    expect(imported.data).toMatchObject({ created: room, failed: 1 });
    const refused = answered(await mail.key('msk_test_free').POST('/v1/contacts', { body: { email: 'late@example.com' } }), 403, '/v1/contacts', 'post');
    expect(refused.error).toMatch(/Contact limit reached/);
  });
});

describe('list: newest first, paging, filters', () => {
  test('pages carry {page, limit, total, totalPages}, newest first', async () => {
    const before = (await list()).pagination.total;
    for (const n of [1, 2, 3]) {
      mail.clock.advance(1000);
      await create({ email: `p${n}@example.com` });
    }
    const first = await list({ limit: 2 });
    expect(first.pagination).toEqual({ page: 1, limit: 2, total: before + 3, totalPages: Math.ceil((before + 3) / 2) });
    expect(first.data.map((c: { email: string }) => c.email)).toEqual(['p3@example.com', 'p2@example.com']);
    expect((await list({ limit: 2, page: 2 })).data[0].email).toBe('p1@example.com');
  });

  test('filters by status, by exact address (case-insensitive) and by tag', async () => {
    await create({ email: 'tagged@example.com', tags: ['beta'] });
    await create({ email: 'gone@example.com', status: 'unsubscribed' });
    expect((await list({ tag: 'beta' })).data.map((c: { email: string }) => c.email)).toEqual(['tagged@example.com']);
    expect((await list({ status: 'unsubscribed' })).data.map((c: { email: string }) => c.email)).toEqual(['gone@example.com']);
    expect((await list({ email: 'TAGGED@example.com' })).data.map((c: { email: string }) => c.email)).toEqual(['tagged@example.com']);
    expect((await list({ email: 'nobody@example.com' })).pagination).toEqual({ page: 1, limit: 20, total: 0, totalPages: 0 });
  });
});

describe('update', () => {
  test('by path: push_tokens replace the stored list, omitted fields unchanged, updated_at moves', async () => {
    const c = await create({ email: 'device@example.com', first_name: 'Ada', push_tokens: [{ platform: 'fcm', token: 'old' }] });
    mail.clock.advance(60_000);
    const tokens = [{ platform: 'apns' as const, token: 'apns-1' }, { platform: 'fcm' as const, token: 'fcm-2' }];
    const updated = answered(await max().PATCH('/v1/contacts/{id}', { params: { path: { id: c.id } }, body: { push_tokens: tokens } }), 200, '/v1/contacts/{id}', 'patch').data;
    expect(updated).toMatchObject({ id: c.id, first_name: 'Ada', push_tokens: tokens, created_at: c.created_at });
    expect(Date.parse(updated.updated_at) - Date.parse(c.created_at)).toBe(60_000);
  });

  test('by query id: the same update', async () => {
    const c = await create({ email: 'q@example.com' });
    const updated = answered(await max().PATCH('/v1/contacts', { params: { query: { id: c.id } }, body: { first_name: 'Q', tags: ['a', 'b'] } }), 200, '/v1/contacts', 'patch').data;
    expect(updated).toMatchObject({ first_name: 'Q', tags: ['a', 'b'] });
  });

  test("changing the address to another contact's is a field error (400); unknown ids 404", async () => {
    await create({ email: 'taken@example.com' });
    const c = await create({ email: 'mine@example.com' });
    const refused = answered(await max().PATCH('/v1/contacts', { params: { query: { id: c.id } }, body: { email: 'Taken@example.com' } }), 400, '/v1/contacts', 'patch');
    expect(refused.details).toEqual({ fieldErrors: { email: ['Another contact has this address'] } });
    answered(await max().PATCH('/v1/contacts/{id}', { params: { path: { id: unknownId } }, body: { first_name: 'x' } }), 404, '/v1/contacts/{id}', 'patch');
  });
});

describe('isolation between users', () => {
  test("another user's contact is not found: update, delete, and not listed", async () => {
    const c = await create({ email: 'private@example.com' });
    answered(await pro().PATCH('/v1/contacts/{id}', { params: { path: { id: c.id } }, body: { first_name: 'x' } }), 404, '/v1/contacts/{id}', 'patch');
    answered(await pro().PATCH('/v1/contacts', { params: { query: { id: c.id } }, body: { first_name: 'x' } }), 404, '/v1/contacts', 'patch');
    answered(await pro().DELETE('/v1/contacts', { params: { query: { id: c.id } } }), 404, '/v1/contacts', 'delete');
    expect((await list({ email: 'private@example.com' }, pro())).data).toEqual([]);
    expect((await list({ email: 'private@example.com' })).data[0].first_name).toBeNull();
  });
});

describe('delete and the suppression list', () => {
  test('delete answers {success: true}, then 404', async () => {
    const c = await create({ email: 'bye@example.com' });
    expect(answered(await max().DELETE('/v1/contacts', { params: { query: { id: c.id } } }), 200, '/v1/contacts', 'delete')).toEqual({ success: true });
    answered(await max().DELETE('/v1/contacts', { params: { query: { id: c.id } } }), 404, '/v1/contacts', 'delete');
  });

  test('unsubscribing and complaints feed the suppression list, which outlives the contact', async () => {
    const events: Array<MailEvents['contact.unsubscribed']> = [];
    const off = mail.app.events.on('contact.unsubscribed', (e) => events.push(e));
    const a = await create({ email: 'Unsub@example.com' });
    await create({ email: 'complainer@example.com', status: 'complained' });
    answered(await max().PATCH('/v1/contacts', { params: { query: { id: a.id } }, body: { status: 'unsubscribed' } }), 200, '/v1/contacts', 'patch');
    off();
    expect(events).toEqual([{ userId: 'usr_max', contactId: a.id }]);
    expect(mail.app.contacts.suppressionsOf('usr_max').map((s) => s.email).sort()).toEqual(['complainer@example.com', 'unsub@example.com']);
    answered(await max().DELETE('/v1/contacts', { params: { query: { id: a.id } } }), 200, '/v1/contacts', 'delete');
    expect(mail.app.contacts.isSuppressed('usr_max', 'unsub@example.com')).toBe(true);
    expect(mail.app.contacts.suppressionsOf('usr_pro')).toEqual([]);
  });
});

describe('import (JSON)', () => {
  test('creates new rows, skips existing addresses (also repeated in the file), adds the import tags, announces completion', async () => {
    const done: Array<MailEvents['contact.imported']> = [];
    const off = mail.app.events.on('contact.imported', (e) => done.push(e));
    await create({ email: 'exists@example.com', first_name: 'Old' });
    const body = {
      contacts: [{ email: 'exists@example.com', first_name: 'New' }, { email: 'fresh@example.com', tags: ['row'] }, { email: 'FRESH@example.com' }],
      tags: ['imported'],
    };
    const job = answered(await max().POST('/v1/contacts/import', { body }), 202, '/v1/contacts/import', 'post').data;
    off();
    expect(job).toMatchObject({ status: 'completed', total: 3, created: 1, updated: 0, skipped: 2, failed: 0 });
    expect(done).toEqual([{ userId: 'usr_max', importId: job.import_id, created: 1, updated: 0, skipped: 2, failed: 0 }]);
    expect((await list({ email: 'fresh@example.com' })).data[0].tags.sort()).toEqual(['imported', 'row']);
    expect((await list({ email: 'exists@example.com' })).data[0].first_name).toBe('Old');
  });

  test('update_existing overwrites the given fields of existing contacts', async () => {
    await create({ email: 'exists@example.com', first_name: 'Old', tags: ['keep'] });
    const job = answered(
      await max().POST('/v1/contacts/import', { body: { contacts: [{ email: 'exists@example.com', phone: '+14155550100' }], update_existing: true, tags: ['imported'] } }),
      202,
      '/v1/contacts/import',
      'post',
    ).data;
    expect(job).toMatchObject({ created: 0, updated: 1, skipped: 0 });
    expect((await list({ email: 'exists@example.com' })).data[0]).toMatchObject({ first_name: 'Old', phone: '+14155550100', tags: ['keep', 'imported'] });
  });

  test('a malformed body (one bad row, or not JSON at all) imports nothing', async () => {
    const before = (await list()).pagination.total;
    answered(await max().POST('/v1/contacts/import', { body: { contacts: [{ email: 'good@example.com' }, { email: 'not-an-address' }] } }), 400, '/v1/contacts/import', 'post');
    const raw = await fetch(`${mail.baseUrl}/v1/contacts/import`, { method: 'POST', headers: { authorization: 'Bearer msk_test_max', 'content-type': 'application/json' }, body: '{"contacts": [{"email": "good@example.com"}' });
    expect(raw.status).toBe(400);
    await raw.body?.cancel();
    expect((await list()).pagination.total).toBe(before);
  });
});
