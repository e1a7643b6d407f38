/**
 * Dedicated IPs through HTTP (issue 14, Max plan): the plan gate (403 with `feature`), the designed
 * lifecycle on the stub clock (provisioning 10 minutes, then an address from 203.0.113.0/24, lowest
 * free first, a 14-day linear warm-up or straight to active), pool changes, forward-confirmed
 * reverse DNS against a loopback DNS server, release (409 afterwards, the address reused), ids.
 */
import { describe, expect, test } from 'vitest';
import { ipLifecycle } from '../../server-stubs/mail/infrastructure/dedicated-ips.js';
import { dnsServerForTests, resolverAsking, type Zone } from '../helpers/dns-server.js';
import { answered, mailForEachTest } from './identity-support.js';

const zone: Zone = {
  'mta1.example.test': ['203.0.113.1'],
  'mta2.example.test': ['203.0.113.2'],
  'elsewhere.example.test': ['198.51.100.7'],
  'broken.example.test': { servfail: true },
};

const dns = dnsServerForTests(zone);
const mail = mailForEachTest(() => ({ dns: resolverAsking(dns) }));

const max = () => mail.key('msk_test_max');
const path = '/v1/dedicated-ips';
const unknownId = '0f0e0d0c-0b0a-4909-8807-060504030201';
const day = 24 * 3600_000;

type Ip = { id: string; ip: string | null; pool: string; status: string; warmup_progress: number; reverse_dns: string | null; created_at: string };

async function request(body: { pool?: string; warmup?: boolean } = {}): Promise<Ip> {
  return answered(await max().POST(path, { body }), 201, path, 'post').data;
}

async function list(query: Record<string, unknown> = {}): Promise<{ data: Ip[]; pagination: unknown }> {
  return answered(await max().GET(path, { params: { query } }), 200, path, 'get');
}

const shown = async (id: string) => (await list({ limit: 100 })).data.find((x) => x.id === id)!;

async function patch(id: string, body: Record<string, unknown>, status = 200) {
  return answered(await max().PATCH(path, { params: { query: { id } }, body: body as never }), status, path, 'patch');
}

describe('the Max plan gate', () => {
  test('Free and Pro get 403 with feature and required_plan on every route; nothing is created', async () => {
    for (const key of ['msk_test_free', 'msk_test_pro']) {
      const client = mail.key(key);
      const refusals = [
        await client.GET(path),
        await client.POST(path, { body: {} }),
        await client.PATCH(path, { params: { query: { id: unknownId } }, body: { pool: 'x' } }),
        await client.DELETE(path, { params: { query: { id: unknownId } } }),
      ];
      for (const [i, method] of (['get', 'post', 'patch', 'delete'] as const).entries()) {
        expect(answered(refusals[i]!, 403, path, method)).toMatchObject({ success: false, feature: 'dedicated_ips', required_plan: 'max' });
      }
    }
    expect((await list()).data).toEqual([]);
  });

  test('a token without the write scope: 403 without a feature (scope, not plan)', async () => {
    const refused = answered(await mail.key('msk_test_oauth_send').POST(path, { body: {} }), 403, path, 'post');
    expect(refused).not.toHaveProperty('feature');
  });
});

describe('lifecycle on the stub clock', () => {
  test('provisioning, then an address after 10 minutes, warming linearly over 14 days, then active', async () => {
    const ip = await request({ pool: 'marketing' });
    expect(ip).toEqual({ id: ip.id, ip: null, pool: 'marketing', status: 'provisioning', warmup_progress: 0, reverse_dns: null, created_at: new Date(mail.clock.now()).toISOString() });
    mail.clock.advance(ipLifecycle.provisioningMs - 1);
    expect(await shown(ip.id)).toMatchObject({ ip: null, status: 'provisioning' });
    mail.clock.advance(1);
    expect(await shown(ip.id)).toMatchObject({ ip: '203.0.113.1', status: 'warming', warmup_progress: 0 });
    mail.clock.advance(7 * day);
    expect(await shown(ip.id)).toMatchObject({ status: 'warming', warmup_progress: 50 });
    mail.clock.advance(7 * day - 1);
    expect(await shown(ip.id)).toMatchObject({ status: 'warming', warmup_progress: 99 });
    mail.clock.advance(1);
    expect(await shown(ip.id)).toMatchObject({ status: 'active', warmup_progress: 100 });
  });

  test('defaults: pool "default" with warm-up; without warm-up, active as soon as assigned', async () => {
    expect(await request()).toMatchObject({ pool: 'default', status: 'provisioning' });
    const cold = await request({ warmup: false });
    mail.clock.advance(ipLifecycle.provisioningMs);
    expect(await shown(cold.id)).toMatchObject({ status: 'active', warmup_progress: 100, ip: '203.0.113.2' });
  });

  test('addresses go lowest free first, oldest request first, across users; a released address is reused', async () => {
    const first = await request();
    mail.clock.advance(1000);
    const second = await request();
    mail.clock.advance(ipLifecycle.provisioningMs);
    expect([(await shown(first.id)).ip, (await shown(second.id)).ip]).toEqual(['203.0.113.1', '203.0.113.2']);
    answered(await max().DELETE(path, { params: { query: { id: first.id } } }), 200, path, 'delete');
    const third = await request();
    mail.clock.advance(ipLifecycle.provisioningMs);
    expect((await shown(third.id)).ip).toBe('203.0.113.1');
    expect(await shown(first.id)).toMatchObject({ ip: '203.0.113.1', status: 'released' });
  });

  test('list: newest first, paged, only the caller\'s', async () => {
    const a = await request({ pool: 'a' });
    mail.clock.advance(1000);
    const b = await request({ pool: 'b' });
    const page = await list({ limit: 1 });
    expect(page.data.map((x) => x.id)).toEqual([b.id]);
    expect(page.pagination).toEqual({ page: 1, limit: 1, total: 2, totalPages: 2 });
    expect((await list({ limit: 1, page: 2 })).data.map((x) => x.id)).toEqual([a.id]);
    expect(mail.app.infrastructure.dedicatedIps.of('usr_pro')).toEqual([]);
    answered(await max().GET(path, { params: { query: { limit: 0 } } }), 400, path, 'get');
  });
});

describe('update', () => {
  test('pool changes alone; bad pool names and empty bodies 400', async () => {
    const ip = await request();
    expect((await patch(ip.id, { pool: 'transactional' })).data).toMatchObject({ pool: 'transactional', status: 'provisioning' });
    for (const body of [{ pool: 'Has Spaces' }, { pool: '' }, {}]) await patch(ip.id, body, 400);
    expect((await shown(ip.id)).pool).toBe('transactional');
  });

  test('reverse_dns resolving to the IP is kept (lower case); another address, no answer or a broken server 422; null clears it', async () => {
    const ip = await request();
    mail.clock.advance(ipLifecycle.provisioningMs);
    expect((await patch(ip.id, { reverse_dns: 'MTA1.example.test' })).data).toMatchObject({ ip: '203.0.113.1', reverse_dns: 'mta1.example.test' });
    for (const name of ['mta2.example.test', 'elsewhere.example.test', 'missing.example.test', 'broken.example.test']) {
      const refused = await patch(ip.id, { reverse_dns: name }, 422);
      expect(refused.error).toMatch(/^reverse_dns must resolve to the IP/);
    }
    expect(dns.queries).toEqual(expect.arrayContaining(['mta1.example.test', 'mta2.example.test', 'missing.example.test']));
    expect((await shown(ip.id)).reverse_dns).toBe('mta1.example.test');
    expect((await patch(ip.id, { reverse_dns: null })).data.reverse_dns).toBeNull();
  });

  test('reverse_dns while provisioning (no address yet): 422; an IP literal: 400', async () => {
    const ip = await request();
    expect((await patch(ip.id, { reverse_dns: 'mta1.example.test' }, 422)).error).toMatch(/provisioning/);
    mail.clock.advance(ipLifecycle.provisioningMs);
    expect((await patch(ip.id, { reverse_dns: '203.0.113.1' }, 400)).details.fieldErrors).toEqual({ reverse_dns: ['Invalid hostname'] });
  });

  test('unknown id and another user\'s id: 404', async () => {
    await patch(unknownId, { pool: 'x' }, 404);
    const ip = await request();
    mail.app.identity.setPlan('usr_pro', 'max');
    try {
      answered(await mail.key('msk_test_pro').PATCH(path, { params: { query: { id: ip.id } }, body: { pool: 'x' } }), 404, path, 'patch');
      answered(await mail.key('msk_test_pro').DELETE(path, { params: { query: { id: ip.id } } }), 404, path, 'delete');
    } finally {
      mail.app.identity.setPlan('usr_pro', 'pro');
    }
    expect((await shown(ip.id)).status).toBe('provisioning');
  });
});

describe('release', () => {
  test('released: listed as released, progress frozen, a second delete succeeds again, PATCH 409', async () => {
    const ip = await request();
    mail.clock.advance(ipLifecycle.provisioningMs + 7 * day);
    expect(answered(await max().DELETE(path, { params: { query: { id: ip.id } } }), 200, path, 'delete')).toEqual({ success: true });
    mail.clock.advance(30 * day);
    expect(await shown(ip.id)).toMatchObject({ status: 'released', warmup_progress: 50, ip: '203.0.113.1' });
    expect(answered(await max().DELETE(path, { params: { query: { id: ip.id } } }), 200, path, 'delete')).toEqual({ success: true });
    expect(await patch(ip.id, { pool: 'again' }, 409)).toEqual({ success: false, error: 'Dedicated IP has been released' });
    expect((await shown(ip.id)).pool).toBe('default');
  });

  test('a request released while provisioning never gets an address', async () => {
    const ip = await request();
    answered(await max().DELETE(path, { params: { query: { id: ip.id } } }), 200, path, 'delete');
    mail.clock.advance(ipLifecycle.provisioningMs);
    expect(await shown(ip.id)).toMatchObject({ ip: null, status: 'released', warmup_progress: 0 });
    answered(await max().DELETE(path, { params: { query: { id: unknownId } } }), 404, path, 'delete');
  });
});
