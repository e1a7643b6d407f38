/**
 * Truth tables of the segment filter operators, through HTTP (issue 13, "Segments"): five crafted
 * contacts, and for each of the 14 operators the member set it selects on text, numbers, dates,
 * lists (`tags`) and empty values, read from a preview (which samples up to 5 contacts, so all of
 * them here) and, for a few, from a saved dynamic segment's members. Also the values that cannot
 * fit their operator (400 naming the rule path), unknown fields and the nesting limit.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ContactFields } from '../../server-stubs/mail/audience/contacts-store.js';
import { answered, startMail, type MailStub } from './identity-support.js';

let mail: MailStub;
const user = 'usr_pro';
const dashboard = () => mail.session('sess_test_pro');
const labelOf = new Map<string, string>();

type Crafted = ContactFields & { email: string; label: string; created: string; tier?: 'high' | 'medium' | 'low' | 'inactive' | null };

/** A: full record; B: missing values and non-numeric/non-date text; C: blanks and numeric text; D: other case; E: nulls and booleans. */
const crafted: Crafted[] = [
  {
    label: 'A',
    email: 'ada@alpha.io',
    firstName: 'Ada',
    lastName: 'Lovelace',
    phone: '+441234',
    status: 'subscribed',
    tier: 'high',
    tags: ['newsletter', 'vip'],
    customFields: { plan: 'pro', score: 42, since: '2026-01-15', age: '37' },
    created: '2026-01-10T00:00:00Z',
  },
  {
    label: 'B',
    email: 'bob@beta.com',
    firstName: 'Bob',
    lastName: null,
    phone: null,
    status: 'unsubscribed',
    tier: null,
    tags: ['newsletter'],
    customFields: { plan: 'free', score: 7, since: 'not a date', age: 'n/a' },
    created: '2026-02-10T00:00:00Z',
  },
  {
    label: 'C',
    email: 'CARA@Alpha.io',
    firstName: '  ',
    lastName: 'Cole',
    status: 'complained',
    tier: 'low',
    tags: [],
    customFields: { score: '100', since: '2026-03-01T12:00:00+02:00', colours: ['red', 'blue'] },
    created: '2026-03-10T00:00:00Z',
  },
  { label: 'D', email: 'dan@gamma.org', firstName: 'Dan', lastName: 'Dunn', status: 'subscribed', tier: 'medium', tags: ['VIP'], customFields: {}, created: '2026-04-10T00:00:00Z' },
  { label: 'E', email: 'eve@delta.net', firstName: null, lastName: 'Eve', status: 'bounced', tier: null, tags: ['trial'], customFields: { plan: null, score: true }, created: '2026-05-10T00:00:00Z' },
];

beforeAll(async () => {
  mail = await startMail();
  for (const c of mail.app.contacts.of(user)) mail.app.contacts.delete(user, c.id);
  for (const { label, created, tier, ...fields } of crafted) {
    const record = mail.app.contacts.create(user, fields);
    record.engagementTier = tier ?? null;
    record.createdAt = record.updatedAt = Date.parse(created);
    labelOf.set(record.id, label);
  }
});
afterAll(() => mail.close());

type Rule = { field: string; operator: string; value: unknown };
const group = (rules: unknown[], operator: 'AND' | 'OR' = 'AND') => ({ operator, rules });

async function previewed(criteria: unknown) {
  return answered(await dashboard().POST('/api/segments/{id}/preview', { params: { path: { id: 'new' } }, body: { filter_criteria: criteria as never } }), 200, '/api/segments/{id}/preview', 'post');
}

/** The labels of the contacts the rule selects, sorted. */
async function selected(...rules: Rule[]): Promise<string> {
  const body = await previewed(group(rules));
  const labels = body.data.sampleContacts.map((c: { id: string }) => labelOf.get(c.id)).sort();
  expect(labels.length).toBe(body.data.count);
  return labels.join('');
}

type Row = [field: string, value: unknown, expected: string, why: string];

function table(operator: string, rows: Row[]) {
  describe(operator, () => {
    test.each(rows)(`${operator} %s %j → %s (%s)`, async (field, value, expected) => {
      expect(await selected({ field, operator, value })).toBe(expected);
    });
  });
}

table('equals', [
  ['status', 'subscribed', 'AD', 'text'],
  ['first_name', 'ADA', 'A', 'letter case ignored'],
  ['email', 'cara@alpha.io', 'C', 'letter case ignored'],
  ['first_name', 'Ad', '', 'whole value, not a prefix'],
  ['custom_fields.score', 42, 'A', 'number equals number'],
  ['custom_fields.score', '42', '', 'text never equals a number'],
  ['custom_fields.score', true, 'E', 'boolean'],
  ['tags', 'vip', 'AD', 'list: an element equals, letter case ignored'],
  ['created_at', '2026-02-10T00:00:00Z', 'B', 'date field: the same instant'],
  ['created_at', '2026-02-10', 'B', 'date only: midnight UTC'],
  ['created_at', 'yesterday', '', 'not a date: no match'],
  ['last_name', 'null', '', 'a null field never equals text'],
]);

table('not_equals', [
  ['status', 'subscribed', 'BCE', 'text'],
  ['last_name', 'Cole', 'ABDE', 'an empty field (B) matches every not_*'],
  ['custom_fields.plan', 'pro', 'BCDE', 'missing (C, D) and null (E) custom fields match'],
  ['tags', 'newsletter', 'CDE', 'list: no element equals'],
]);

table('contains', [
  ['email', 'ALPHA', 'AC', 'substring, letter case ignored'],
  ['tags', 'vip', 'AD', 'list membership'],
  ['tags', 'news', '', 'list membership is whole elements, not substrings'],
  ['custom_fields.colours', 'red', 'C', 'a list custom field'],
  ['custom_fields.score', '4', '', 'a number is not text'],
  ['last_name', 'o', 'AC', 'null (B) never contains'],
]);

table('not_contains', [
  ['email', 'alpha', 'BDE', 'substring'],
  ['tags', 'newsletter', 'CDE', 'empty list (C) matches'],
  ['last_name', 'ole', 'ABDE', 'null (B) matches'],
]);

table('starts_with', [
  ['email', 'cara@', 'C', 'prefix, letter case ignored'],
  ['phone', '+44', 'A', 'null phones never match'],
  ['tags', 'news', 'AB', 'list: any element'],
  ['first_name', ' ', 'C', 'blank text is text'],
]);

table('ends_with', [
  ['email', '.IO', 'AC', 'suffix, letter case ignored'],
  ['last_name', 'n', 'D', 'Dunn'],
  ['tags', 'al', 'E', 'list: any element (trial)'],
]);

table('greater_than', [
  ['custom_fields.score', 10, 'AC', 'numbers and numeric text (C "100"); boolean E never'],
  ['custom_fields.age', 30, 'A', 'non-numeric text (B "n/a") never matches'],
  ['created_at', '2026-03-10T00:00:00Z', 'DE', 'date: strictly after'],
  ['custom_fields.since', '2026-02-01', 'C', 'date text in a custom field; "not a date" never'],
  ['email', 5, '', 'text is not a number'],
  ['custom_fields.plan', 0, '', 'missing and null never'],
]);

table('less_than', [
  ['custom_fields.score', 42, 'B', 'strictly less'],
  ['created_at', '2026-02-10', 'A', 'date: strictly before'],
  ['custom_fields.since', '2026-03-01T11:00:00Z', 'AC', 'offsets count: C is 10:00Z'],
  ['custom_fields.since', '2026-03-01T09:00:00Z', 'A', 'offsets count: C is 10:00Z'],
]);

table('before', [
  ['created_at', '2026-03-10T00:00:00Z', 'AB', 'strictly before'],
  ['updated_at', '2026-01-01', '', 'none before'],
  ['custom_fields.since', '2026-03-01T10:30:00Z', 'AC', 'C at 10:00Z with its +02:00 offset'],
  ['first_name', '2030-01-01', '', 'text that is not a date never matches'],
]);

table('after', [
  ['created_at', '2026-04-10T00:00:00Z', 'E', 'strictly after'],
  ['created_at', '2026-01-01', 'ABCDE', 'all'],
  ['custom_fields.since', '2026-01-14', 'AC', 'date text; B "not a date" never'],
]);

table('is_empty', [
  ['first_name', null, 'CE', 'blank text (C) and null (E)'],
  ['last_name', 'ignored', 'B', 'the value is ignored'],
  ['tags', null, 'C', 'empty list'],
  ['custom_fields.plan', null, 'CDE', 'missing (C, D) and null (E)'],
  ['engagement_tier', null, 'BE', 'null tier'],
  ['email', null, '', 'every contact has an address'],
]);

table('is_not_empty', [
  ['first_name', null, 'ABD', 'text that is not blank'],
  ['tags', null, 'ABDE', 'non-empty lists'],
  ['custom_fields.score', null, 'ABCE', 'D has no score'],
]);

table('in', [
  ['status', ['subscribed', 'bounced'], 'ADE', 'any listed value'],
  ['engagement_tier', ['HIGH', 'low'], 'AC', 'letter case ignored'],
  ['tags', ['trial', 'vip'], 'ADE', 'list: any element in the list'],
  ['custom_fields.score', [7, 42], 'AB', 'numbers'],
  ['first_name', ['x'], '', 'no match'],
]);

table('not_in', [
  ['status', ['subscribed', 'bounced'], 'BC', 'none of the values'],
  ['tags', ['newsletter'], 'CDE', 'empty list (C) matches'],
  ['engagement_tier', ['high', 'medium', 'low'], 'BE', 'null tiers match'],
]);

describe('groups', () => {
  test('AND needs every rule, OR any, and groups nest', async () => {
    expect(await selected({ field: 'status', operator: 'equals', value: 'subscribed' }, { field: 'tags', operator: 'contains', value: 'newsletter' })).toBe('A');
    const or = await previewed(group([{ field: 'status', operator: 'equals', value: 'bounced' }, { field: 'last_name', operator: 'is_empty', value: null }], 'OR'));
    expect(or.data.count).toBe(2);
    const nested = await previewed(group([{ field: 'email', operator: 'contains', value: 'alpha' }, group([{ field: 'status', operator: 'equals', value: 'complained' }, { field: 'tags', operator: 'contains', value: 'vip' }], 'OR')]));
    expect(nested.data.sampleContacts.map((c: { id: string }) => labelOf.get(c.id)).sort()).toEqual(['A', 'C']);
  });

  test('groups nest 5 levels deep; a sixth is a 400 naming the group', async () => {
    const leaf = { field: 'status', operator: 'equals', value: 'subscribed' };
    const deep = (levels: number): unknown => (levels === 1 ? group([leaf]) : group([deep(levels - 1)]));
    expect((await previewed(deep(5))).data.count).toBe(2);
    const refused = answered(await dashboard().POST('/api/segments/{id}/preview', { params: { path: { id: 'new' } }, body: { filter_criteria: deep(6) as never } }), 400, '/api/segments/{id}/preview', 'post');
    expect(refused.details.fieldErrors).toEqual({ 'filter_criteria.rules.0.rules.0.rules.0.rules.0.rules.0': ['Groups nest at most 5 levels deep'] });
  });

  test('a dynamic segment saved with the criteria has exactly the previewed members', async () => {
    const criteria = group([{ field: 'tags', operator: 'contains', value: 'newsletter' }]);
    const created = answered(await dashboard().POST('/api/segments', { body: { name: 'Newsletter', segment_type: 'dynamic', filter_criteria: criteria as never } }), 201, '/api/segments', 'post');
    const members = answered(await mail.key('msk_test_pro').GET('/v1/segments/{id}/members', { params: { path: { id: created.data.id } } }), 200, '/v1/segments/{id}/members', 'get');
    expect(members.data.contact_ids.map((id: string) => labelOf.get(id)).sort()).toEqual(['A', 'B']);
    expect(created.data.contact_count).toBe(2);
  });
});

describe('a value that cannot fit its operator is a 400 naming the rule path', () => {
  const cases: Array<[string, Rule, string]> = [
    ['in without a list', { field: 'status', operator: 'in', value: 'subscribed' }, 'in needs a non-empty list of values'],
    ['not_in with an empty list', { field: 'status', operator: 'not_in', value: [] }, 'not_in needs a non-empty list of values'],
    ['before with a non-date', { field: 'created_at', operator: 'before', value: 'last week' }, 'before needs an ISO 8601 date (2026-01-01 or 2026-01-01T00:00:00Z)'],
    ['after with a date-time without offset', { field: 'created_at', operator: 'after', value: '2026-01-01T00:00:00' }, 'after needs an ISO 8601 date (2026-01-01 or 2026-01-01T00:00:00Z)'],
    ['after with an impossible date', { field: 'created_at', operator: 'after', value: '2026-02-30' }, 'after needs an ISO 8601 date (2026-01-01 or 2026-01-01T00:00:00Z)'],
    ['greater_than with text', { field: 'custom_fields.score', operator: 'greater_than', value: 'ten' }, 'greater_than needs a number or an ISO 8601 date (2026-01-01 or 2026-01-01T00:00:00Z)'],
    ['less_than with a list', { field: 'custom_fields.score', operator: 'less_than', value: [1] }, 'less_than needs a number or an ISO 8601 date (2026-01-01 or 2026-01-01T00:00:00Z)'],
    ['contains with a number', { field: 'email', operator: 'contains', value: 5 }, 'contains needs a non-empty string value'],
    ['starts_with with empty text', { field: 'email', operator: 'starts_with', value: '' }, 'starts_with needs a non-empty string value'],
    ['equals with null', { field: 'first_name', operator: 'equals', value: null }, 'equals needs a string, number or boolean value (use is_empty for empty values)'],
    ['not_equals with a list', { field: 'first_name', operator: 'not_equals', value: ['a'] }, 'not_equals needs a string, number or boolean value (use is_not_empty for empty values)'],
  ];
  test.each(cases)('%s', async (_why, rule, message) => {
    const criteria = group([{ field: 'status', operator: 'is_not_empty', value: null }, group([rule], 'OR')]);
    const refused = answered(await dashboard().POST('/api/segments/{id}/preview', { params: { path: { id: 'new' } }, body: { filter_criteria: criteria as never } }), 400, '/api/segments/{id}/preview', 'post');
    expect(refused).toEqual({ success: false, error: 'Validation failed', details: { fieldErrors: { 'filter_criteria.rules.1.rules.0.value': [message] } } });
  });

  test('an unknown field is a 400 on the field; custom_fields needs a key', async () => {
    for (const field of ['favourite_colour', 'custom_fields.', 'customFields.plan']) {
      const refused = answered(await dashboard().POST('/api/segments/{id}/preview', { params: { path: { id: 'new' } }, body: { filter_criteria: group([{ field, operator: 'is_empty', value: null }]) as never } }), 400, '/api/segments/{id}/preview', 'post');
      expect(Object.keys(refused.details.fieldErrors)).toEqual(['filter_criteria.rules.0.field']);
    }
  });

  test('create and update check the criteria the same way, and store nothing when refused', async () => {
    const bad = group([{ field: 'created_at', operator: 'before', value: 'soon' }]);
    const before = mail.app.segments.of(user).length;
    const refused = answered(await dashboard().POST('/api/segments', { body: { name: 'Bad', segment_type: 'dynamic', filter_criteria: bad as never } }), 400, '/api/segments', 'post');
    expect(refused.details.fieldErrors).toHaveProperty(['filter_criteria.rules.0.value']);
    expect(mail.app.segments.of(user).length).toBe(before);
    const made = answered(await dashboard().POST('/api/segments', { body: { name: 'Good', segment_type: 'dynamic', filter_criteria: group([{ field: 'status', operator: 'equals', value: 'subscribed' }]) as never } }), 201, '/api/segments', 'post');
    const patch = answered(await dashboard().PATCH('/api/segments/{id}', { params: { path: { id: made.data.id } }, body: { name: 'Renamed', filter_criteria: bad as never } }), 400, '/api/segments/{id}', 'patch');
    expect(patch.details.fieldErrors).toHaveProperty(['filter_criteria.rules.0.value']);
    const kept = answered(await dashboard().GET('/api/segments/{id}', { params: { path: { id: made.data.id } } }), 200, '/api/segments/{id}', 'get');
    expect({ name: kept.data.name, criteria: kept.data.filter_criteria }).toEqual({ name: 'Good', criteria: made.data.filter_criteria });
  });
});
