/**
 * Aliases through HTTP (issue 14): an address on one of the account's sending domains forwarded
 * to 1-10 addresses; 422 outside the account's domains, 409 for a duplicate (case-insensitive),
 * 400 for a forwarding loop, 404 for ids of nobody or of another user, paging newest first,
 * scopes, and forwarding only once the domain is verified.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { RecordResolver } from '../../server-stubs/lib/dns-records.js';
import { forwardTargets } from '../../server-stubs/mail/infrastructure/forwarding.js';
import { answered, startMail, type MailStub } from './identity-support.js';

/** Sending domains answered by a zone in memory: nothing published unless a test publishes it. */
const published = new Map<string, string[]>();
const dns: RecordResolver = { txt: async (name) => published.get(name) ?? [], mx: async () => [], cname: async () => [], addresses: async () => [] };

let mail: MailStub;
beforeAll(async () => {
  mail = await startMail({ dns });
});
afterAll(() => mail.close());
beforeEach(() => {
  mail.app.reset();
  published.clear();
});

const max = () => mail.key('msk_test_max');
const pro = () => mail.key('msk_test_pro');
const path = '/v1/aliases';
const unknownId = '0f0e0d0c-0b0a-4909-8807-060504030201';

async function sendingDomain(domain: string, client = max()): Promise<{ id: string; dns_records: Array<{ purpose: string; name: string; value: string }> }> {
  return answered(await client.POST('/v1/domains', { body: { domain } }), 201, '/v1/domains', 'post').data;
}

async function create(body: { alias: string; forward_to: string[]; enabled?: boolean }, client = max()) {
  return answered(await client.POST(path, { body }), 201, path, 'post').data;
}

async function list(query: Record<string, unknown> = {}, client = max()) {
  return answered(await client.GET(path, { params: { query } }), 200, path, 'get');
}

describe('create', () => {
  test('on a sending domain of the account (still pending): 201, enabled by default, lower-cased, stamped with the stub clock', async () => {
    const domain = await sendingDomain('example.test');
    const a = await create({ alias: 'Support@Example.TEST', forward_to: ['ada@example.org', 'grace@example.org'] });
    const at = new Date(mail.clock.now()).toISOString();
    expect(a).toEqual({ id: a.id, alias: 'support@example.test', forward_to: ['ada@example.org', 'grace@example.org'], domain_id: domain.id, enabled: true, created_at: at, updated_at: at });
    expect((await create({ alias: 'billing@example.test', forward_to: ['finance@example.org'], enabled: false })).enabled).toBe(false);
  });

  test('an address outside the account\'s sending domains: 422, also when another user has the domain', async () => {
    await sendingDomain('theirs.test', pro());
    for (const alias of ['support@nowhere.test', 'support@theirs.test', 'support@sub.theirs.test']) {
      expect(answered(await max().POST(path, { body: { alias, forward_to: ['ada@example.org'] } }), 422, path, 'post')).toEqual({
        success: false,
        error: 'Alias domain is not a sending domain of the account',
      });
    }
    expect((await list()).data).toEqual([]);
  });

  test('the same alias twice (another case): 409; another user with the same domain may have it', async () => {
    await sendingDomain('example.test');
    await create({ alias: 'twice@example.test', forward_to: ['ada@example.org'] });
    expect(answered(await max().POST(path, { body: { alias: 'TWICE@example.test', forward_to: ['b@example.org'] } }), 409, path, 'post')).toEqual({ success: false, error: 'Alias already exists' });
    await sendingDomain('example.test', pro());
    await create({ alias: 'twice@example.test', forward_to: ['ada@example.org'] }, pro());
    expect((await list()).data).toHaveLength(1);
  });

  test('forward_to with the alias itself or an address twice in another case: 400 with field errors', async () => {
    await sendingDomain('example.test');
    const loop = answered(await max().POST(path, { body: { alias: 'loop@example.test', forward_to: ['a@example.org', 'LOOP@example.test'] } }), 400, path, 'post');
    expect(loop.details.fieldErrors).toEqual({ forward_to: ['Must not include the alias itself'] });
    const twice = answered(await max().POST(path, { body: { alias: 'x@example.test', forward_to: ['a@example.org', 'A@example.org'] } }), 400, path, 'post');
    expect(twice.details.fieldErrors).toEqual({ forward_to: ['Lists the same address twice'] });
    expect((await list()).data).toEqual([]);
  });

  test('schema rules: no targets, 11 targets, not an address: 400', async () => {
    await sendingDomain('example.test');
    const eleven = Array.from({ length: 11 }, (_, i) => `t${i}@example.org`);
    for (const body of [{ alias: 'a@example.test', forward_to: [] }, { alias: 'a@example.test', forward_to: eleven }, { alias: 'not-an-address', forward_to: ['a@example.org'] }]) {
      answered(await max().POST(path, { body: body as never }), 400, path, 'post');
    }
    expect(await create({ alias: 'a@example.test', forward_to: Array.from({ length: 10 }, (_, i) => `t${i}@example.org`) })).toHaveProperty('forward_to.length', 10);
  });

  test('a token without the write scope: 403; no key: 401', async () => {
    await sendingDomain('example.test');
    answered(await mail.key('msk_test_oauth_send').POST(path, { body: { alias: 'a@example.test', forward_to: ['b@example.org'] } }), 403, path, 'post');
    answered(await mail.anonymous().POST(path, { body: { alias: 'a@example.test', forward_to: ['b@example.org'] } }), 401, path, 'post');
    expect((await list()).data).toEqual([]);
  });
});

describe('list', () => {
  test('newest first, paged; each user sees only their own', async () => {
    await sendingDomain('example.test');
    for (const name of ['one', 'two', 'three']) {
      await create({ alias: `${name}@example.test`, forward_to: ['a@example.org'] });
      mail.clock.advance(1000);
    }
    const first = await list({ limit: 2 });
    expect(first.data.map((a: { alias: string }) => a.alias)).toEqual(['three@example.test', 'two@example.test']);
    expect(first.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect((await list({ limit: 2, page: 2 })).data.map((a: { alias: string }) => a.alias)).toEqual(['one@example.test']);
    expect((await list({}, pro())).data).toEqual([]);
    answered(await max().GET(path, { params: { query: { limit: 101 } } }), 400, path, 'get');
    answered(await mail.key('msk_test_oauth_send').GET(path), 403, path, 'get');
  });

  test('made at the same instant: still newest first', async () => {
    await sendingDomain('example.test');
    await create({ alias: 'first@example.test', forward_to: ['a@example.org'] });
    await create({ alias: 'second@example.test', forward_to: ['a@example.org'] });
    expect((await list()).data.map((a: { alias: string }) => a.alias)).toEqual(['second@example.test', 'first@example.test']);
  });
});

describe('update and delete', () => {
  test('PATCH changes only what is sent and moves updated_at', async () => {
    await sendingDomain('example.test');
    const a = await create({ alias: 'a@example.test', forward_to: ['x@example.org'] });
    mail.clock.advance(60_000);
    const disabled = answered(await max().PATCH(path, { params: { query: { id: a.id } }, body: { enabled: false } }), 200, path, 'patch').data;
    expect(disabled).toEqual({ ...a, enabled: false, updated_at: new Date(mail.clock.now()).toISOString() });
    const retargeted = answered(await max().PATCH(path, { params: { query: { id: a.id } }, body: { forward_to: ['y@example.org'] } }), 200, path, 'patch').data;
    expect(retargeted).toMatchObject({ enabled: false, forward_to: ['y@example.org'], alias: 'a@example.test' });
    expect((await list()).data).toEqual([retargeted]);
  });

  test('PATCH: loop 400, empty body or the address itself 400, unknown or another user\'s id 404', async () => {
    await sendingDomain('example.test');
    const a = await create({ alias: 'a@example.test', forward_to: ['x@example.org'] });
    expect(answered(await max().PATCH(path, { params: { query: { id: a.id } }, body: { forward_to: ['A@example.test'] } }), 400, path, 'patch').details.fieldErrors).toEqual({ forward_to: ['Must not include the alias itself'] });
    answered(await max().PATCH(path, { params: { query: { id: a.id } }, body: {} as never }), 400, path, 'patch');
    answered(await max().PATCH(path, { params: { query: { id: a.id } }, body: { alias: 'b@example.test' } as never }), 400, path, 'patch');
    for (const [client, id] of [[max(), unknownId], [pro(), a.id]] as const) {
      expect(answered(await client.PATCH(path, { params: { query: { id } }, body: { enabled: false } }), 404, path, 'patch')).toEqual({ success: false, error: 'Alias not found' });
    }
    answered(await mail.key('msk_test_oauth_send').PATCH(path, { params: { query: { id: a.id } }, body: { enabled: false } }), 403, path, 'patch');
    expect((await list()).data).toEqual([a]);
  });

  test('DELETE: gone from the list, a second delete 404, another user\'s id 404, not a UUID 400', async () => {
    await sendingDomain('example.test');
    const a = await create({ alias: 'a@example.test', forward_to: ['x@example.org'] });
    answered(await pro().DELETE(path, { params: { query: { id: a.id } } }), 404, path, 'delete');
    answered(await mail.key('msk_test_oauth_send').DELETE(path, { params: { query: { id: a.id } } }), 403, path, 'delete');
    expect(answered(await max().DELETE(path, { params: { query: { id: a.id } } }), 200, path, 'delete')).toEqual({ success: true });
    answered(await max().DELETE(path, { params: { query: { id: a.id } } }), 404, path, 'delete');
    answered(await max().DELETE(path, { params: { query: { id: 'not-a-uuid' } } }), 400, path, 'delete');
    expect((await list()).data).toEqual([]);
    await create({ alias: 'a@example.test', forward_to: ['x@example.org'] });
  });
});

describe('forwarding (what the receiving side asks)', () => {
  test('only enabled aliases on a verified domain forward; a deleted domain stops them', async () => {
    const domain = await sendingDomain('example.test');
    await create({ alias: 'help@example.test', forward_to: ['ada@example.org', 'grace@example.org'] });
    await create({ alias: 'off@example.test', forward_to: ['x@example.org'], enabled: false });
    const targets = (address: string) => forwardTargets(mail.app.infrastructure.aliases, mail.app.sendingDomains, address);
    expect(targets('help@example.test')).toEqual([]);
    // Publish what the domain was asked to; the 10-minute re-check verifies it.
    for (const r of domain.dns_records.filter((x) => x.purpose === 'spf' || x.purpose === 'dkim')) published.set(r.name, [r.value]);
    mail.clock.advance(10 * 60_000);
    await mail.app.runDue();
    expect(mail.app.sendingDomains.of('usr_max')[0]!.status).toBe('verified');
    expect(targets('HELP@example.test')).toEqual(['ada@example.org', 'grace@example.org']);
    expect(targets('off@example.test')).toEqual([]);
    answered(await max().DELETE('/v1/domains', { params: { query: { id: domain.id } } }), 200, '/v1/domains', 'delete');
    expect(targets('help@example.test')).toEqual([]);
  });
});
