/**
 * Inbound routes through HTTP (issue 14): configure a domain whose received mail is posted as
 * `email.received` to an HTTPS URL; the MX records to publish, `pending` until the domain's MX
 * names one of them (checked against a loopback DNS server at creation and on list reads, at most
 * once a minute), one route per domain across the service (409), host-name and URL rules (400),
 * ids of nobody or another user (404), scopes, paging.
 */
import { beforeEach, describe, expect, test } from 'vitest';
import { dnsServerForTests, resolverAsking, type Zone } from '../helpers/dns-server.js';
import { answered, mailForEachTest } from './identity-support.js';

const zone: Zone = {};
const ours = { exchange: 'mx2.mail.platform.example', priority: 5 };

const dns = dnsServerForTests(zone);
const mail = mailForEachTest(() => ({ dns: resolverAsking(dns) }));
beforeEach(() => {
  for (const name of Object.keys(zone)) delete zone[name];
  dns.queries.length = 0;
});

const max = () => mail.key('msk_test_max');
const pro = () => mail.key('msk_test_pro');
const path = '/v1/inbound';
const unknownId = '0f0e0d0c-0b0a-4909-8807-060504030201';
const hook = 'https://app.example.com/hooks/inbound';

type Route = { id: string; domain: string; webhook_url: string; status: string; mx_records: unknown; created_at: string };

async function create(body: { domain: string; webhook_url?: string; secret?: string }, client = max()): Promise<Route> {
  return answered(await client.POST(path, { body: { webhook_url: hook, ...body } }), 201, path, 'post').data;
}

async function list(query: Record<string, unknown> = {}, client = max()): Promise<{ data: Route[]; pagination: unknown }> {
  return answered(await client.GET(path, { params: { query } }), 200, path, 'get');
}

describe('create', () => {
  test('pending with the MX records to publish, domain lower-cased without its trailing dot, DNS asked at once', async () => {
    const r = await create({ domain: 'Inbound.Example.Test.', secret: 'whsec_0123456789abcdef' });
    expect(r).toEqual({
      id: r.id,
      domain: 'inbound.example.test',
      webhook_url: hook,
      mx_records: [
        { priority: 10, exchange: 'mx1.mail.platform.example' },
        { priority: 20, exchange: 'mx2.mail.platform.example' },
      ],
      status: 'pending',
      created_at: new Date(mail.clock.now()).toISOString(),
    });
    expect(dns.queries).toContain('inbound.example.test');
    expect(mail.app.infrastructure.inbound.forDomain('inbound.example.test')).toMatchObject({ userId: 'usr_max', secret: 'whsec_0123456789abcdef' });
  });

  test('a domain already publishing one of our MX hosts: active at creation; another MX host only: pending', async () => {
    zone['ready.example.test'] = { mx: [{ exchange: 'mx.other.example', priority: 1 }, ours] };
    zone['elsewhere.example.test'] = { mx: [{ exchange: 'mx.other.example', priority: 1 }] };
    expect((await create({ domain: 'ready.example.test' })).status).toBe('active');
    expect((await create({ domain: 'elsewhere.example.test' })).status).toBe('pending');
  });

  test('a broken DNS server leaves it pending', async () => {
    zone['broken.example.test'] = { servfail: true };
    expect((await create({ domain: 'broken.example.test' })).status).toBe('pending');
  });

  test('the same domain again (any case, trailing dot), by the same or another user: 409', async () => {
    await create({ domain: 'twice.example.test' });
    for (const [client, domain] of [[max(), 'TWICE.example.test.'], [pro(), 'twice.example.test']] as const) {
      expect(answered(await client.POST(path, { body: { domain, webhook_url: hook } }), 409, path, 'post')).toEqual({ success: false, error: 'Inbound domain already configured' });
    }
    expect((await list({}, pro())).data).toEqual([]);
  });

  test('not a host name with a top-level domain, an http URL, an address-literal URL, a short secret: 400', async () => {
    for (const domain of ['localhost', '198.51.100.7', 'under_score.example.test']) {
      const refused = answered(await max().POST(path, { body: { domain, webhook_url: hook } }), 400, path, 'post');
      expect(refused.details.fieldErrors, domain).toHaveProperty('domain');
    }
    for (const webhook_url of ['https://127.0.0.1/hook', 'https://10.0.0.5/hook', 'https://[::1]/hook', 'https://169.254.169.254/latest', 'https://localhost/hook']) {
      const refused = answered(await max().POST(path, { body: { domain: 'ok.example.test', webhook_url } }), 400, path, 'post');
      expect(refused.details.fieldErrors, webhook_url).toHaveProperty('webhook_url');
    }
    answered(await max().POST(path, { body: { domain: 'ok.example.test', webhook_url: 'http://app.example.com/hook' } }), 400, path, 'post');
    answered(await max().POST(path, { body: { domain: 'ok.example.test', webhook_url: hook, secret: 'short' } }), 400, path, 'post');
    answered(await max().POST(path, { body: { domain: 'ok.example.test' } as never }), 400, path, 'post');
    expect((await list()).data).toEqual([]);
  });

  test('a token without the write scope: 403; no key 401; nothing configured', async () => {
    answered(await mail.key('msk_test_oauth_send').POST(path, { body: { domain: 'scoped.example.test', webhook_url: hook } }), 403, path, 'post');
    answered(await mail.anonymous().POST(path, { body: { domain: 'scoped.example.test', webhook_url: hook } }), 401, path, 'post');
    expect(mail.app.infrastructure.inbound.forDomain('scoped.example.test')).toBeUndefined();
  });
});

describe('list', () => {
  test('a pending route becomes active on a list read once its MX is published, checked at most once a minute', async () => {
    const r = await create({ domain: 'later.example.test' });
    zone['later.example.test'] = { mx: [ours] };
    mail.clock.advance(59_000);
    expect((await list()).data[0]!.status).toBe('pending');
    mail.clock.advance(1000);
    expect((await list()).data).toEqual([{ ...r, status: 'active' }]);
    const asked = dns.queries.filter((q) => q === 'later.example.test').length;
    mail.clock.advance(10 * 60_000);
    await list();
    expect(dns.queries.filter((q) => q === 'later.example.test').length, 'an active route is not looked up again').toBe(asked);
  });

  test('newest first, paged, only the caller\'s; page size over 100: 400; read scope: 403', async () => {
    for (const name of ['a', 'b', 'c']) {
      await create({ domain: `${name}.example.test` });
      mail.clock.advance(1000);
    }
    await create({ domain: 'theirs.example.test' }, pro());
    const page = await list({ limit: 2 });
    expect(page.data.map((r) => r.domain)).toEqual(['c.example.test', 'b.example.test']);
    expect(page.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect((await list({ limit: 2, page: 2 })).data.map((r) => r.domain)).toEqual(['a.example.test']);
    answered(await max().GET(path, { params: { query: { limit: 101 } } }), 400, path, 'get');
    answered(await mail.key('msk_test_oauth_send').GET(path), 403, path, 'get');
  });
});

describe('delete', () => {
  test('removed from the list and from routing; the domain can be configured again; a second delete 404', async () => {
    const r = await create({ domain: 'gone.example.test' });
    answered(await pro().DELETE(path, { params: { query: { id: r.id } } }), 404, path, 'delete');
    answered(await mail.key('msk_test_oauth_send').DELETE(path, { params: { query: { id: r.id } } }), 403, path, 'delete');
    expect(answered(await max().DELETE(path, { params: { query: { id: r.id } } }), 200, path, 'delete')).toEqual({ success: true });
    expect(mail.app.infrastructure.inbound.forDomain('gone.example.test')).toBeUndefined();
    expect((await list()).data).toEqual([]);
    expect(answered(await max().DELETE(path, { params: { query: { id: r.id } } }), 404, path, 'delete')).toEqual({ success: false, error: 'Inbound route not found' });
    answered(await max().DELETE(path, { params: { query: { id: 'nope' } } }), 400, path, 'delete');
    answered(await max().DELETE(path, { params: { query: { id: unknownId } } }), 404, path, 'delete');
    expect((await create({ domain: 'gone.example.test' }, pro())).domain).toBe('gone.example.test');
  });
});
