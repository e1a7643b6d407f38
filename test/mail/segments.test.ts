/**
 * Segments through HTTP (issue 13, "Segments"; DECISIONS mail-5): create evaluates at once, the
 * list pages and merges the central contacts platform's segment, dynamic segments re-evaluate on a
 * criteria change and on refresh, static segments are managed member by member, the cached
 * contact_count against the live membership_count, preview persists nothing, delete keeps contacts,
 * the API-key members route with scopes and paging, and every route per user.
 */
import { describe, expect, test } from 'vitest';
import { centralSegmentId } from '../../server-stubs/mail/audience/central-segments.js';
import type { FilterGroup } from '../../server-stubs/mail/audience/segment-filter.js';
import { answered, mailForEachTest } from './identity-support.js';

const mail = mailForEachTest();

const max = () => mail.session('sess_test_max');
const pro = () => mail.session('sess_test_pro');
const unknownId = '0f0e0d0c-0b0a-4909-8807-060504030201';

const subscribed: FilterGroup = { operator: 'AND', rules: [{ field: 'status', operator: 'equals', value: 'subscribed' }] };
const newsletter: FilterGroup = { operator: 'AND', rules: [{ field: 'tags', operator: 'contains', value: 'newsletter' }] };

async function create(body: Record<string, unknown>, client = max()) {
  return answered(await client.POST('/api/segments', { body: body as never }), 201, '/api/segments', 'post').data;
}
const dynamic = (criteria: unknown = newsletter, name = 'Newsletter readers') => create({ name, segment_type: 'dynamic', filter_criteria: criteria });
const staticSegment = (criteria: unknown = newsletter) => create({ name: 'Hand-picked', segment_type: 'static', filter_criteria: criteria });

async function read(id: string, client = max()) {
  return answered(await client.GET('/api/segments/{id}', { params: { path: { id } } }), 200, '/api/segments/{id}', 'get').data;
}
async function list(query: Record<string, unknown> = {}, client = max()) {
  return answered(await client.GET('/api/segments', { params: { query } }), 200, '/api/segments', 'get');
}
async function members(id: string, query: Record<string, unknown> = {}, key = 'msk_test_max') {
  return answered(await mail.key(key).GET('/v1/segments/{id}/members', { params: { path: { id }, query } }), 200, '/v1/segments/{id}/members', 'get');
}
async function refresh(id: string) {
  return answered(await max().POST('/api/segments/{id}/refresh', { params: { path: { id } } }), 200, '/api/segments/{id}/refresh', 'post').data;
}
const newContact = (email: string, tags: string[] = []) => mail.app.contacts.create('usr_max', { email, tags });
const maxContactIds = (tag: string) => mail.app.contacts.of('usr_max').filter((c) => c.tags.includes(tag)).map((c) => c.id);

describe('create', () => {
  test('evaluated at once: contact_count and last_calculated_at filled, no membership_count', async () => {
    mail.clock.advance(5000);
    const s = await dynamic();
    expect(s).toMatchObject({ name: 'Newsletter readers', description: null, segment_type: 'dynamic', contact_count: 2, filter_criteria: newsletter });
    expect(s.last_calculated_at).toBe(new Date(mail.clock.now()).toISOString());
    expect(s.created_at).toBe(s.last_calculated_at);
    expect(s).not.toHaveProperty('membership_count');
  });

  test('required fields and the rule bounds are checked by the contract (400)', async () => {
    const noName = answered(await max().POST('/api/segments', { body: { segment_type: 'dynamic', filter_criteria: newsletter } as never }), 400, '/api/segments', 'post');
    expect(noName.details.fieldErrors).toHaveProperty('name');
    const rules = Array.from({ length: 51 }, () => newsletter.rules[0]);
    answered(await max().POST('/api/segments', { body: { name: 'Too many', segment_type: 'dynamic', filter_criteria: { operator: 'AND', rules } } as never }), 400, '/api/segments', 'post');
    const fifty = await dynamic({ operator: 'OR', rules: rules.slice(0, 50) });
    expect(fifty.contact_count).toBe(2);
    answered(await max().POST('/api/segments', { body: { name: 'Empty', segment_type: 'dynamic', filter_criteria: { operator: 'AND', rules: [] } } as never }), 400, '/api/segments', 'post');
  });

  test('API keys are not accepted on the session routes (401)', async () => {
    answered(await mail.key('msk_test_max').POST('/api/segments', { body: { name: 'x', segment_type: 'dynamic', filter_criteria: newsletter } as never }), 401, '/api/segments', 'post');
    answered(await mail.key('msk_test_max').GET('/api/segments'), 401, '/api/segments', 'get');
  });
});

describe('list', () => {
  test('merges the central platform segment (Max only, filter_criteria null, first) with own segments, newest first', async () => {
    const first = await dynamic(newsletter, 'first');
    mail.clock.advance(1000);
    const second = await dynamic(subscribed, 'second');
    const page = await list();
    expect(page.data.map((s: { id: string }) => s.id)).toEqual([centralSegmentId, second.id, first.id]);
    expect(page.data[0]).toMatchObject({ segment_type: 'static', filter_criteria: null, contact_count: 2 });
    expect(page.pagination).toEqual({ page: 1, limit: 20, total: 3, totalPages: 1 });
    const proList = await list({}, pro());
    expect(proList.data).toEqual([]);
  });

  test('pages with {page, limit, total, totalPages}; limit over 100 is a 400', async () => {
    for (let i = 0; i < 4; i++) {
      mail.clock.advance(1000);
      await dynamic(newsletter, `s${i}`);
    }
    const second = await list({ page: 2, limit: 2 });
    expect(second.pagination).toEqual({ page: 2, limit: 2, total: 5, totalPages: 3 });
    expect(second.data.map((s: { name: string }) => s.name)).toEqual(['s2', 's1']);
    answered(await max().GET('/api/segments', { params: { query: { limit: 101 } } }), 400, '/api/segments', 'get');
  });
});

describe('read, update, delete', () => {
  test('the single read carries membership_count', async () => {
    const s = await dynamic();
    expect(await read(s.id)).toEqual({ ...s, membership_count: 2 });
  });

  test('unknown ids are 404; a non-UUID id is 400', async () => {
    answered(await max().GET('/api/segments/{id}', { params: { path: { id: unknownId } } }), 404, '/api/segments/{id}', 'get');
    answered(await max().GET('/api/segments/{id}', { params: { path: { id: 'nope' } } }), 400, '/api/segments/{id}', 'get');
    answered(await max().PATCH('/api/segments/{id}', { params: { path: { id: unknownId } }, body: { name: 'x' } }), 404, '/api/segments/{id}', 'patch');
    answered(await max().DELETE('/api/segments/{id}', { params: { path: { id: unknownId } } }), 404, '/api/segments/{id}', 'delete');
    answered(await max().POST('/api/segments/{id}/refresh', { params: { path: { id: unknownId } } }), 404, '/api/segments/{id}/refresh', 'post');
  });

  test('PATCH name and description leave the evaluation alone; a criteria change re-evaluates at once', async () => {
    const s = await dynamic();
    mail.clock.advance(60_000);
    const renamed = answered(await max().PATCH('/api/segments/{id}', { params: { path: { id: s.id } }, body: { name: 'Renamed', description: 'about' } }), 200, '/api/segments/{id}', 'patch').data;
    expect(renamed).toMatchObject({ name: 'Renamed', description: 'about', contact_count: 2, last_calculated_at: s.last_calculated_at });
    expect(renamed.updated_at).toBe(new Date(mail.clock.now()).toISOString());
    const cleared = answered(await max().PATCH('/api/segments/{id}', { params: { path: { id: s.id } }, body: { description: null } }), 200, '/api/segments/{id}', 'patch').data;
    expect(cleared.description).toBeNull();
    mail.clock.advance(60_000);
    const changed = answered(await max().PATCH('/api/segments/{id}', { params: { path: { id: s.id } }, body: { filter_criteria: subscribed } }), 200, '/api/segments/{id}', 'patch').data;
    expect(changed).toMatchObject({ contact_count: 3, filter_criteria: subscribed, last_calculated_at: new Date(mail.clock.now()).toISOString() });
    expect((await members(s.id)).data.contact_ids).toHaveLength(3);
  });

  test('PATCH carrying segment_type, or none of the fields, is a 400', async () => {
    const s = await dynamic();
    const typed = answered(await max().PATCH('/api/segments/{id}', { params: { path: { id: s.id } }, body: { segment_type: 'static', name: 'x' } as never }), 400, '/api/segments/{id}', 'patch');
    expect(typed.details.fieldErrors).toHaveProperty('segment_type');
    answered(await max().PATCH('/api/segments/{id}', { params: { path: { id: s.id } }, body: {} as never }), 400, '/api/segments/{id}', 'patch');
    expect((await read(s.id)).segment_type).toBe('dynamic');
  });

  test('delete removes the segment and its membership rows, never the contacts', async () => {
    const s = await staticSegment(subscribed);
    const before = mail.app.contacts.count('usr_max');
    const deleted = answered(await max().DELETE('/api/segments/{id}', { params: { path: { id: s.id } } }), 200, '/api/segments/{id}', 'delete');
    expect(deleted).toEqual({ success: true });
    expect(mail.app.contacts.count('usr_max')).toBe(before);
    answered(await max().GET('/api/segments/{id}', { params: { path: { id: s.id } } }), 404, '/api/segments/{id}', 'get');
    answered(await mail.key('msk_test_max').GET('/v1/segments/{id}/members', { params: { path: { id: s.id } } }), 404, '/v1/segments/{id}/members', 'get');
  });
});

describe('dynamic segments: contact_count is cached, membership_count is live', () => {
  test('a new matching contact joins only on refresh', async () => {
    const s = await dynamic();
    mail.clock.advance(60_000);
    const joined = newContact('late@example.com', ['newsletter']);
    expect(await read(s.id)).toMatchObject({ contact_count: 2, membership_count: 2 });
    expect((await members(s.id)).data.contact_ids).not.toContain(joined.id);
    const refreshed = await refresh(s.id);
    expect(refreshed).toEqual({ segment_id: s.id, contact_count: 3, last_calculated_at: new Date(mail.clock.now()).toISOString() });
    expect(await read(s.id)).toMatchObject({ contact_count: 3, membership_count: 3, last_calculated_at: refreshed.last_calculated_at });
    expect((await members(s.id)).data.contact_ids).toContain(joined.id);
  });

  test('a deleted contact leaves the membership rows at once; contact_count keeps the last evaluation until refresh', async () => {
    const s = await dynamic();
    const gone = maxContactIds('newsletter')[0]!;
    answered(await mail.key('msk_test_max').DELETE('/v1/contacts', { params: { query: { id: gone } } }), 200, '/v1/contacts', 'delete');
    expect(await read(s.id)).toMatchObject({ contact_count: 2, membership_count: 1 });
    expect((await members(s.id)).data.contact_ids).not.toContain(gone);
    expect((await refresh(s.id)).contact_count).toBe(1);
  });
});

describe('static segments: evaluated once, then managed by hand (DECISIONS mail-5)', () => {
  test('members are added and removed; unknown and other users\' ids are skipped and reported; contacts survive removal', async () => {
    const s = await staticSegment();
    const alan = mail.app.contacts.of('usr_max').find((c) => c.tags.length === 0)!.id;
    const proContact = mail.app.contacts.of('usr_pro')[0]!.id;
    const added = answered(
      await max().POST('/api/segments/{id}/members', { params: { path: { id: s.id } }, body: { contact_ids: [alan, alan, proContact, unknownId, ...maxContactIds('newsletter')] } }),
      200,
      '/api/segments/{id}/members',
      'post',
    );
    expect(added).toEqual({ success: true, data: { segment_id: s.id, added: 1, not_found: [proContact, unknownId], membership_count: 3 } });
    expect(await read(s.id)).toMatchObject({ contact_count: 2, membership_count: 3 });
    const removed = answered(await max().DELETE('/api/segments/{id}/members', { params: { path: { id: s.id } }, body: { contact_ids: [alan, unknownId] } }), 200, '/api/segments/{id}/members', 'delete');
    expect(removed).toEqual({ success: true, data: { segment_id: s.id, removed: 1, not_found: [unknownId], membership_count: 2 } });
    expect(mail.app.contacts.get('usr_max', alan)).toBeDefined();
    const again = answered(await max().DELETE('/api/segments/{id}/members', { params: { path: { id: s.id } }, body: { contact_ids: [alan] } }), 200, '/api/segments/{id}/members', 'delete');
    expect(again.data).toMatchObject({ removed: 0, membership_count: 2 });
  });

  test('new matching contacts never join; a criteria change keeps the members; refresh recounts the member rows', async () => {
    const s = await staticSegment();
    const original = maxContactIds('newsletter');
    const late = newContact('late@example.com', ['newsletter']);
    const changed = answered(await max().PATCH('/api/segments/{id}', { params: { path: { id: s.id } }, body: { filter_criteria: subscribed } }), 200, '/api/segments/{id}', 'patch').data;
    expect(changed).toMatchObject({ contact_count: 2, filter_criteria: subscribed });
    const alan = mail.app.contacts.of('usr_max').find((c) => c.email.startsWith('alan'))!.id;
    answered(await max().POST('/api/segments/{id}/members', { params: { path: { id: s.id } }, body: { contact_ids: [alan] } }), 200, '/api/segments/{id}/members', 'post');
    expect(await refresh(s.id)).toMatchObject({ contact_count: 3 });
    const ids = (await members(s.id)).data.contact_ids;
    expect(ids).not.toContain(late.id);
    expect([...ids].sort()).toEqual([...original, alan].sort());
  });

  test('member changes on a dynamic segment are 409; unknown segment 404; bad bodies 400', async () => {
    const s = await dynamic();
    const ids = maxContactIds('newsletter');
    const conflict = answered(await max().POST('/api/segments/{id}/members', { params: { path: { id: s.id } }, body: { contact_ids: ids } }), 409, '/api/segments/{id}/members', 'post');
    expect(conflict.error).toMatch(/dynamic/);
    answered(await max().DELETE('/api/segments/{id}/members', { params: { path: { id: s.id } }, body: { contact_ids: ids } }), 409, '/api/segments/{id}/members', 'delete');
    answered(await max().POST('/api/segments/{id}/members', { params: { path: { id: unknownId } }, body: { contact_ids: ids } }), 404, '/api/segments/{id}/members', 'post');
    answered(await max().POST('/api/segments/{id}/members', { params: { path: { id: s.id } }, body: { contact_ids: [] } }), 400, '/api/segments/{id}/members', 'post');
    answered(await max().POST('/api/segments/{id}/members', { params: { path: { id: s.id } }, body: { contact_ids: ['not-a-uuid'] } }), 400, '/api/segments/{id}/members', 'post');
    const tooMany = Array.from({ length: 501 }, () => unknownId);
    answered(await max().DELETE('/api/segments/{id}/members', { params: { path: { id: s.id } }, body: { contact_ids: tooMany } }), 400, '/api/segments/{id}/members', 'delete');
  });
});

describe('the central contacts platform segment (DECISIONS mail-5)', () => {
  test('readable with its members; refresh is 422; changes, deletion and member changes are 409', async () => {
    const central = await read(centralSegmentId);
    expect(central).toMatchObject({ filter_criteria: null, contact_count: 2, membership_count: 2 });
    expect((await members(centralSegmentId)).data.contact_ids.sort()).toEqual(maxContactIds('newsletter').sort());
    const refused = answered(await max().POST('/api/segments/{id}/refresh', { params: { path: { id: centralSegmentId } } }), 422, '/api/segments/{id}/refresh', 'post');
    expect(refused).toEqual({ success: false, error: 'Segment has no filter criteria' });
    answered(await max().PATCH('/api/segments/{id}', { params: { path: { id: centralSegmentId } }, body: { name: 'Mine now' } }), 409, '/api/segments/{id}', 'patch');
    answered(await max().DELETE('/api/segments/{id}', { params: { path: { id: centralSegmentId } } }), 409, '/api/segments/{id}', 'delete');
    const ids = maxContactIds('newsletter');
    answered(await max().DELETE('/api/segments/{id}/members', { params: { path: { id: centralSegmentId } }, body: { contact_ids: ids } }), 409, '/api/segments/{id}/members', 'delete');
    expect((await read(centralSegmentId)).name).toBe(central.name);
  });

  test('other users do not see it', async () => {
    answered(await pro().GET('/api/segments/{id}', { params: { path: { id: centralSegmentId } } }), 404, '/api/segments/{id}', 'get');
  });
});

describe('preview', () => {
  test('count and up to 5 samples in the published shape; the path id is ignored; nothing persisted', async () => {
    for (let i = 0; i < 4; i++) newContact(`extra${i}@example.com`);
    const before = await list();
    const body = answered(await max().POST('/api/segments/{id}/preview', { params: { path: { id: 'new' } }, body: { filter_criteria: subscribed } }), 200, '/api/segments/{id}/preview', 'post');
    expect(body.data.count).toBe(7);
    expect(body.data.sampleContacts).toHaveLength(5);
    expect(Object.keys(body.data.sampleContacts[0]).sort()).toEqual(['email', 'engagement_tier', 'first_name', 'id', 'last_name', 'status']);
    const s = await dynamic(newsletter);
    const viaId = answered(await max().POST('/api/segments/{id}/preview', { params: { path: { id: s.id } }, body: { filter_criteria: subscribed } }), 200, '/api/segments/{id}/preview', 'post');
    expect(viaId.data.count).toBe(7);
    expect(await read(s.id)).toMatchObject({ contact_count: 2, membership_count: 2, filter_criteria: newsletter });
    expect((await list()).pagination.total).toBe(before.pagination.total + 1);
  });

  test('filter_criteria is required (400); API keys are refused (401)', async () => {
    answered(await max().POST('/api/segments/{id}/preview', { params: { path: { id: 'new' } }, body: {} as never }), 400, '/api/segments/{id}/preview', 'post');
    answered(await mail.key('msk_test_max').POST('/api/segments/{id}/preview', { params: { path: { id: 'new' } }, body: { filter_criteria: subscribed } }), 401, '/api/segments/{id}/preview', 'post');
  });
});

describe('GET /v1/segments/{id}/members (API key)', () => {
  test('pages the member ids: default 100, max 500', async () => {
    const s = await staticSegment({ operator: 'AND', rules: [{ field: 'email', operator: 'is_empty', value: null }] });
    const ids = Array.from({ length: 7 }, (_, i) => newContact(`m${i}@example.com`).id);
    answered(await max().POST('/api/segments/{id}/members', { params: { path: { id: s.id } }, body: { contact_ids: ids } }), 200, '/api/segments/{id}/members', 'post');
    const all = await members(s.id);
    expect(all.data).toEqual({ segment_id: s.id, contact_ids: ids });
    expect(all.pagination).toEqual({ page: 1, limit: 100, total: 7, totalPages: 1 });
    const third = await members(s.id, { page: 3, limit: 3 });
    expect(third.data.contact_ids).toEqual(ids.slice(6));
    expect(third.pagination).toEqual({ page: 3, limit: 3, total: 7, totalPages: 3 });
    expect((await members(s.id, { limit: 500 })).pagination.limit).toBe(500);
    answered(await mail.key('msk_test_max').GET('/v1/segments/{id}/members', { params: { path: { id: s.id }, query: { limit: 501 } } }), 400, '/v1/segments/{id}/members', 'get');
  });

  test('a token without read, segments or contacts scope is 403; a session is not an API key (401)', async () => {
    const s = await dynamic();
    answered(await mail.key('msk_test_oauth_send').GET('/v1/segments/{id}/members', { params: { path: { id: s.id } } }), 403, '/v1/segments/{id}/members', 'get');
    answered(await mail.anonymous().GET('/v1/segments/{id}/members', { params: { path: { id: s.id } } }), 401, '/v1/segments/{id}/members', 'get');
  });
});

describe('segments are per user: another user\'s segment is 404 everywhere', () => {
  test('read, update, delete, refresh, members (both kinds) by another user', async () => {
    const s = await staticSegment();
    const path = { params: { path: { id: s.id } } };
    answered(await pro().GET('/api/segments/{id}', path), 404, '/api/segments/{id}', 'get');
    answered(await pro().PATCH('/api/segments/{id}', { ...path, body: { name: 'stolen' } }), 404, '/api/segments/{id}', 'patch');
    answered(await pro().DELETE('/api/segments/{id}', path), 404, '/api/segments/{id}', 'delete');
    answered(await pro().POST('/api/segments/{id}/refresh', path), 404, '/api/segments/{id}/refresh', 'post');
    const proIds = mail.app.contacts.of('usr_pro').map((c) => c.id);
    answered(await pro().POST('/api/segments/{id}/members', { ...path, body: { contact_ids: proIds } }), 404, '/api/segments/{id}/members', 'post');
    answered(await pro().DELETE('/api/segments/{id}/members', { ...path, body: { contact_ids: proIds } }), 404, '/api/segments/{id}/members', 'delete');
    answered(await mail.key('msk_test_pro').GET('/v1/segments/{id}/members', path), 404, '/v1/segments/{id}/members', 'get');
    expect(await read(s.id)).toMatchObject({ name: 'Hand-picked', membership_count: 2 });
  });

  test('a preview sees only the caller\'s contacts', async () => {
    const body = answered(await pro().POST('/api/segments/{id}/preview', { params: { path: { id: 'new' } }, body: { filter_criteria: subscribed } }), 200, '/api/segments/{id}/preview', 'post');
    const proIds = new Set(mail.app.contacts.of('usr_pro').map((c) => c.id));
    expect(body.data.count).toBe(proIds.size);
    expect(body.data.sampleContacts.every((c: { id: string }) => proIds.has(c.id))).toBe(true);
  });
});
