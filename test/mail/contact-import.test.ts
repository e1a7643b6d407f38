/**
 * Contact import from CSV and per-row errors, and the readable suppression list (issue 13,
 * "Contacts"; DECISIONS mail-5), through HTTP: a CSV file is read whole before anything is
 * imported, a broken file is a 400 naming the line, a bad cell fails its row alone and is
 * reported with its line; `GET /v1/suppressions` lists what unsubscribes and complaints put there.
 */
import { describe, expect, test } from 'vitest';
import { planQuotas } from '../../server-stubs/mail/identity/plans.js';
import { answered, contract, mailForEachTest } from './identity-support.js';

const mail = mailForEachTest();

const max = () => mail.key('msk_test_max');

/** Uploads a CSV file as a client would: `text/csv`, the options in the query. */
async function upload(csv: string, query = '', key = 'msk_test_max', type = 'text/csv') {
  const response = await fetch(`${mail.baseUrl}/v1/contacts/import${query}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': type }, body: csv });
  const body = await response.json();
  expect(contract.responseErrors('/v1/contacts/import', 'post', String(response.status), body)).toEqual([]);
  return { status: response.status, body };
}

async function contact(email: string) {
  const page = answered(await max().GET('/v1/contacts', { params: { query: { email } } }), 200, '/v1/contacts', 'get');
  return page.data[0];
}

const total = async () => answered(await max().GET('/v1/contacts'), 200, '/v1/contacts', 'get').pagination.total as number;

describe('CSV import', () => {
  test('maps the known columns, `;`-separated tags and custom fields; header names ignore case and spaces; the query carries the import tags', async () => {
    const csv = '\uFEFF Email ,First_Name,last_name,phone,status,Tags,company\r\nada.csv@example.com,Ada,Lovelace,+14155550100,subscribed,newsletter; vip,Example Ltd\r\ngrace.csv@example.com,Grace,,,,,\r\n';
    const { status, body } = await upload(csv, '?tags=imported&tags=csv');
    expect(status).toBe(202);
    expect(body.data).toMatchObject({ status: 'completed', total: 2, created: 2, updated: 0, skipped: 0, failed: 0, errors: [] });
    expect(await contact('ada.csv@example.com')).toMatchObject({
      first_name: 'Ada',
      last_name: 'Lovelace',
      phone: '+14155550100',
      status: 'subscribed',
      tags: ['imported', 'csv', 'newsletter', 'vip'],
      custom_fields: { company: 'Example Ltd' },
    });
    expect(await contact('grace.csv@example.com')).toMatchObject({ first_name: 'Grace', last_name: null, phone: null, custom_fields: {} });
  });

  test('columns named like prototype keys are custom fields like any other', async () => {
    await upload('email,__proto__,constructor\nproto@example.com,a,b\n');
    expect((await contact('proto@example.com')).custom_fields).toEqual(JSON.parse('{"__proto__":"a","constructor":"b"}'));
  });

  test('a cell quoted over several lines, with commas and doubled quotes, is one value', async () => {
    const { body } = await upload('email,first_name,note\nq@example.com,"Ada, ""the first""","line one\nline two"\n');
    expect(body.data.created).toBe(1);
    expect(await contact('q@example.com')).toMatchObject({ first_name: 'Ada, "the first"', custom_fields: { note: 'line one\nline two' } });
  });

  test('a bad cell fails its row alone: the row is reported with its line number and why, the other rows are imported; a row of empty cells is a blank line', async () => {
    const csv = ['email,phone,status', 'good1@example.com,,', 'not-an-address,,', '', 'good2@example.com,12345,', 'good3@example.com,,sleeping', ',+14155550100,', ',,'].join('\n');
    const { status, body } = await upload(csv);
    expect(status).toBe(202);
    expect(body.data).toMatchObject({ total: 5, created: 1, failed: 4 });
    expect(body.data.errors.map((e: { row: number; email: string | null }) => [e.row, e.email])).toEqual([
      [3, 'not-an-address'],
      [5, 'good2@example.com'],
      [6, 'good3@example.com'],
      [7, null],
    ]);
    const messages = body.data.errors.map((e: { message: string }) => e.message);
    expect(messages[0]).toMatch(/^email: .*email/);
    expect(messages[1]).toMatch(/^phone: /);
    expect(messages[2]).toMatch(/^status: /);
    expect(messages[3]).toMatch(/^email: /);
    expect(await contact('good1@example.com')).toBeDefined();
  });

  test('existing addresses are skipped, or updated with `update_existing=true` in the query', async () => {
    await upload('email,first_name\nsame@example.com,Old\n');
    const skipped = await upload('email,first_name\nsame@example.com,New\nSAME@example.com,Newer\n');
    expect(skipped.body.data).toMatchObject({ created: 0, skipped: 2 });
    expect((await contact('same@example.com')).first_name).toBe('Old');
    const updated = await upload('email,first_name\nsame@example.com,New\n', '?update_existing=true');
    expect(updated.body.data).toMatchObject({ created: 0, updated: 1 });
    expect((await contact('same@example.com')).first_name).toBe('New');
  });

  test.each([
    ['an unclosed quote', 'email,first_name\na@example.com,Ada\nb@example.com,"Grace\n', /^Line 3: a quoted cell is not closed$/],
    ['a row wider than the header', 'email\na@example.com\nb@example.com,extra\n', /^Line 3: the row has more cells than the header$/],
    ['a quote inside an unquoted cell', 'email,first_name\na@example.com,Ad"a\n', /^Line 2: a quote appears inside an unquoted cell/],
    ['no email column', 'name,phone\nAda,+14155550100\n', /^Line 1: the header has no email column$/],
    ['a header and nothing else', 'email\n\n', /^Line 1: the file has no rows after the header$/],
    ['only blank lines', '\n \n', /^Line 1: the file has no header row$/],
    ['a column named twice', 'email,Email\na@example.com,b@example.com\n', /^Line 1: the header names the column "email" twice$/],
  ])('a file that cannot be read whole (%s) is a 400 naming the line, and nothing of it is imported', async (_name, csv, problem) => {
    const before = await total();
    const { status, body } = await upload(`${csv}`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ success: false, error: 'Invalid CSV file' });
    expect(body.details.formErrors).toHaveLength(1);
    expect(body.details.formErrors[0]).toMatch(problem);
    expect(await total()).toBe(before);
  });

  test('more than 10000 rows is a 400 naming the first line too many, nothing imported', async () => {
    const rows = Array.from({ length: 10_001 }, (_, i) => `r${i}@example.com`);
    const { status, body } = await upload(['email', ...rows].join('\n'));
    expect(status).toBe(400);
    expect(body.details.formErrors).toEqual(['Line 10002: the file has more than 10000 rows']);
    expect(await total()).toBe(3);
  });

  test('rows past the plan contact limit fail one by one with the reason (Free)', async () => {
    const room = planQuotas.free.contacts! - 3; // the Free user starts with three seeded contacts
    const rows = Array.from({ length: room + 2 }, (_, i) => `free${i}@example.com`);
    const { body } = await upload(['email', ...rows].join('\n'), '', 'msk_test_free');
    expect(body.data).toMatchObject({ created: room, failed: 2 });
    expect(body.data.errors).toEqual([
      { row: room + 2, email: `free${room}@example.com`, message: 'The contact limit of the Free plan is reached' },
      { row: room + 3, email: `free${room + 1}@example.com`, message: 'The contact limit of the Free plan is reached' },
    ]);
  });

  test('a JSON body with the CSV query options is a 400 naming them; another media type is a 415 naming both accepted ones', async () => {
    const json = await max().POST('/v1/contacts/import', { params: { query: { update_existing: true } }, body: { contacts: [{ email: 'j@example.com' }] } });
    expect(answered(json, 400, '/v1/contacts/import', 'post').details.fieldErrors).toEqual({ update_existing: ['Only for CSV uploads; a JSON body carries update_existing itself'] });
    const other = await upload('email\nx@example.com\n', '', 'msk_test_max', 'application/xml');
    expect(other).toEqual({ status: 415, body: { success: false, error: 'Content-Type must be application/json or text/csv' } });
    expect(await total()).toBe(3);
  });

  test('JSON rows past the plan limit are reported with their position', async () => {
    const room = planQuotas.free.contacts! - 3;
    const contacts = Array.from({ length: room + 1 }, (_, i) => ({ email: `j${i}@example.com` }));
    const job = answered(await mail.key('msk_test_free').POST('/v1/contacts/import', { body: { contacts } }), 202, '/v1/contacts/import', 'post').data;
    expect(job.errors).toEqual([{ row: room + 1, email: `j${room}@example.com`, message: 'The contact limit of the Free plan is reached' }]);
  });
});

describe('the suppression list, GET /v1/suppressions (DECISIONS mail-5)', () => {
  const suppressions = async (query: Record<string, unknown> = {}, client = max()) => answered(await client.GET('/v1/suppressions', { params: { query } }), 200, '/v1/suppressions', 'get');

  test('seeded users start with none', async () => {
    expect(await suppressions()).toEqual({ success: true, data: [], pagination: { page: 1, limit: 20, total: 0, totalPages: 0 } });
  });

  test('unsubscribes and complaints enter it with their reason and time, newest first; the entry outlives the contact', async () => {
    const created = answered(await max().POST('/v1/contacts', { body: { email: 'Leaver@example.com' } }), 201, '/v1/contacts', 'post').data;
    answered(await max().PATCH('/v1/contacts/{id}', { params: { path: { id: created.id } }, body: { status: 'unsubscribed' } }), 200, '/v1/contacts/{id}', 'patch');
    const unsubscribedAt = new Date(mail.clock.now()).toISOString();
    mail.clock.advance(60_000);
    await upload('email,status\nangry@example.com,complained\n');
    const list = await suppressions();
    expect(list.data).toEqual([
      { email: 'angry@example.com', reason: 'complained', contact_id: (await contact('angry@example.com')).id, created_at: new Date(mail.clock.now()).toISOString() },
      { email: 'leaver@example.com', reason: 'unsubscribed', contact_id: created.id, created_at: unsubscribedAt },
    ]);
    expect((await suppressions({ reason: 'complained' })).data.map((s: { email: string }) => s.email)).toEqual(['angry@example.com']);
    answered(await max().DELETE('/v1/contacts', { params: { query: { id: created.id } } }), 200, '/v1/contacts', 'delete');
    expect((await suppressions({ reason: 'unsubscribed' })).data).toEqual([{ email: 'leaver@example.com', reason: 'unsubscribed', contact_id: null, created_at: unsubscribedAt }]);
  });

  test('the first reason is kept, resubscribing does not lift it, and each user has their own list', async () => {
    const c = answered(await max().POST('/v1/contacts', { body: { email: 'twice@example.com', status: 'unsubscribed' } }), 201, '/v1/contacts', 'post').data;
    answered(await max().PATCH('/v1/contacts/{id}', { params: { path: { id: c.id } }, body: { status: 'complained' } }), 200, '/v1/contacts/{id}', 'patch');
    answered(await max().PATCH('/v1/contacts/{id}', { params: { path: { id: c.id } }, body: { status: 'subscribed' } }), 200, '/v1/contacts/{id}', 'patch');
    expect((await suppressions()).data.map((s: { reason: string }) => s.reason)).toEqual(['unsubscribed']);
    expect((await suppressions({}, mail.key('msk_test_pro'))).data).toEqual([]);
  });

  test('pages, refuses a bad reason or page size (400) and a token without read or contacts scope (403)', async () => {
    for (const i of [1, 2, 3]) answered(await max().POST('/v1/contacts', { body: { email: `u${i}@example.com`, status: 'unsubscribed' } }), 201, '/v1/contacts', 'post');
    expect(await suppressions({ limit: 2, page: 2 })).toMatchObject({ pagination: { page: 2, limit: 2, total: 3, totalPages: 2 } });
    answered(await max().GET('/v1/suppressions', { params: { query: { reason: 'bored' as never } } }), 400, '/v1/suppressions', 'get');
    answered(await max().GET('/v1/suppressions', { params: { query: { limit: 101 } } }), 400, '/v1/suppressions', 'get');
    answered(await mail.key('msk_test_oauth_send').GET('/v1/suppressions'), 403, '/v1/suppressions', 'get');
    answered(await mail.anonymous().GET('/v1/suppressions'), 401, '/v1/suppressions', 'get');
  });
});
