/**
 * Sending domains through HTTP (issue 13): a domain is added `pending` with the records to publish
 * (SPF include, a DKIM key of its own, DMARC, return-path CNAME), each record judged against a
 * loopback DNS server whose zone the tests change; `verified` once SPF and DKIM are found (at
 * creation, on a list read, or by the 10-minute re-check on the stub clock), `failed` 72 hours
 * after creation; both outcomes announced on the bus. Duplicates, ids, paging, scopes.
 */
import { createPublicKey } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { RecordResolver } from '../../server-stubs/lib/dns-records.js';
import type { MailEvents } from '../../server-stubs/mail/events.js';
import { dnsServerForTests, resolverAsking, type Zone } from '../helpers/dns-server.js';
import { answered, mailForEachTest } from './identity-support.js';

const zone: Zone = {
  'broken.test': { servfail: true },
  'svc._domainkey.broken.test': { servfail: true },
  '_dmarc.broken.test': { servfail: true },
  'bounces.broken.test': { servfail: true },
};

const dns = dnsServerForTests(zone);
/** Why each failed look-up of the service failed: a SERVFAIL answer is told from a look-up that ran out of time. */
const lookupFailures: string[] = [];
function noting(resolver: RecordResolver): RecordResolver {
  const noted =
    <T>(lookup: (name: string) => Promise<T>) =>
    async (name: string): Promise<T> => {
      try {
        return await lookup(name);
      } catch (error) {
        lookupFailures.push((error as Error).message);
        throw error;
      }
    };
  return { txt: noted(resolver.txt), mx: noted(resolver.mx), cname: noted(resolver.cname), addresses: noted(resolver.addresses) };
}
const mail = mailForEachTest(() => ({ dns: noting(resolverAsking(dns)) }));
const outcomes: Array<[keyof MailEvents, unknown]> = [];
beforeAll(() => {
  mail.app.events.on('domain.verified', (e) => outcomes.push(['domain.verified', e]));
  mail.app.events.on('domain.failed', (e) => outcomes.push(['domain.failed', e]));
});
beforeEach(() => {
  outcomes.length = 0;
  for (const name of Object.keys(zone)) if (!name.includes('broken.test')) delete zone[name];
});

const max = () => mail.key('msk_test_max');
const path = '/v1/domains';
const minute = 60_000;
const hour = 60 * minute;

type Domain = { id: string; domain: string; status: string; verified_at: string | null; dns_records: Array<{ purpose: string; name: string; value: string; type: string; valid: boolean }> };

async function create(domain: string, client = max()): Promise<Domain> {
  return answered(await client.POST(path, { body: { domain } }), 201, path, 'post').data;
}

async function list(query: Record<string, unknown> = {}, client = max()): Promise<{ data: Domain[]; pagination: unknown }> {
  return answered(await client.GET(path, { params: { query } }), 200, path, 'get');
}

const recordOf = (d: Domain, purpose: string) => d.dns_records.find((r) => r.purpose === purpose)!;
const validity = (d: Domain) => Object.fromEntries(d.dns_records.map((r) => [r.purpose, r.valid]));

/** A TXT value split into character-strings of at most 255 bytes, as a zone file holds a long DKIM key. */
const chunked = (value: string) => value.match(/.{1,255}/g)!;

/** Publishes what the domain was asked to (or only the named records). */
function publish(d: Domain, only: string[] = ['spf', 'dkim', 'dmarc', 'return_path']) {
  for (const r of d.dns_records.filter((x) => only.includes(x.purpose))) {
    const entry = (zone[r.name] ?? {}) as Exclude<Zone[string], string[]>;
    if (r.type === 'CNAME') entry.cname = [r.value];
    else entry.txt = [...(entry.txt ?? []), chunked(r.value)];
    zone[r.name] = entry;
  }
}

/** The stored state, read without the re-check a list does. */
const stored = (id: string) => mail.app.sendingDomains.of('usr_max').find((d) => d.id === id)!;

describe('create', () => {
  test('pending, with the four records to publish and a 2048-bit RSA DKIM key of its own', async () => {
    const d = await create('Mail.Example.Test.');
    expect(d).toMatchObject({ domain: 'mail.example.test', status: 'pending', verified_at: null, created_at: new Date(mail.clock.now()).toISOString() });
    expect(d.dns_records.map(({ type, purpose, name }) => [type, purpose, name])).toEqual([
      ['TXT', 'spf', 'mail.example.test'],
      ['TXT', 'dkim', 'svc._domainkey.mail.example.test'],
      ['TXT', 'dmarc', '_dmarc.mail.example.test'],
      ['CNAME', 'return_path', 'bounces.mail.example.test'],
    ]);
    expect(recordOf(d, 'spf').value).toBe('v=spf1 include:spf.mail.platform.example ~all');
    expect(recordOf(d, 'dmarc').value).toBe('v=DMARC1; p=quarantine; rua=mailto:dmarc@mail.example.test');
    expect(recordOf(d, 'return_path').value).toBe('bounces.mail.platform.example');
    const p = /^v=DKIM1; k=rsa; p=([A-Za-z0-9+/=]+)$/.exec(recordOf(d, 'dkim').value)![1]!;
    const publicKey = createPublicKey({ key: Buffer.from(p, 'base64'), format: 'der', type: 'spki' });
    expect(publicKey.asymmetricKeyType).toBe('rsa');
    expect(publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(Object.values(validity(d))).toEqual([false, false, false, false]);
    expect(dns.queries).toEqual(expect.arrayContaining(['mail.example.test', 'svc._domainkey.mail.example.test', '_dmarc.mail.example.test', 'bounces.mail.example.test']));
    const other = await create('other.example.test');
    expect(recordOf(other, 'dkim').value).not.toBe(recordOf(d, 'dkim').value);
  });

  test('SPF already including ours at creation: that record is valid, the domain stays pending without DKIM', async () => {
    zone['spf.example.test'] = { txt: ['v=spf1 include:_spf.google.com include:spf.mail.platform.example -all'] };
    const d = await create('spf.example.test');
    expect(validity(d)).toEqual({ spf: true, dkim: false, dmarc: false, return_path: false });
    expect(d.status).toBe('pending');
  });

  test('the same domain twice: 409, case-insensitively; another user may add it', async () => {
    await create('twice.example.test');
    for (const domain of ['twice.example.test', 'TWICE.example.test.']) {
      expect(answered(await max().POST(path, { body: { domain } }), 409, path, 'post')).toEqual({ success: false, error: 'Domain already exists' });
    }
    expect((await create('twice.example.test', mail.key('msk_test_pro'))).domain).toBe('twice.example.test');
    expect((await list()).data).toHaveLength(1);
  });

  test('not a host name with a top-level domain: 400; wrong types 400; nothing is added', async () => {
    for (const domain of ['localhost', '198.51.100.7', 'under_score.test']) {
      const refused = answered(await max().POST(path, { body: { domain } }), 400, path, 'post');
      expect(refused.details.fieldErrors, domain).toHaveProperty('domain');
    }
    answered(await max().POST(path, { body: { domain: ['a.test'] } as never }), 400, path, 'post');
    answered(await max().POST(path, { body: {} as never }), 400, path, 'post');
    expect((await list()).data).toEqual([]);
  });

  test('SERVFAIL: added pending at once (on the answer, not a timeout), nothing valid, no crash', async () => {
    lookupFailures.length = 0;
    const d = await create('broken.test');
    expect(d.status).toBe('pending');
    expect(Object.values(validity(d))).toEqual([false, false, false, false]);
    expect(lookupFailures).not.toEqual([]);
    for (const failure of lookupFailures) expect(failure).toMatch(/^\w+ look-up of (\S+\.)?broken\.test failed \(ESERVFAIL\)$/);
  });
});

describe('verification', () => {
  test('records published: the next list (a minute on) verifies the domain and announces it', async () => {
    const d = await create('verify.example.test');
    publish(d);
    expect((await list()).data[0]!.status).toBe('pending'); // checked less than a minute ago
    mail.clock.advance(minute);
    const [shown] = (await list()).data;
    expect(shown).toMatchObject({ id: d.id, status: 'verified', verified_at: new Date(mail.clock.now()).toISOString() });
    expect(validity(shown!)).toEqual({ spf: true, dkim: true, dmarc: true, return_path: true });
    expect(outcomes).toEqual([['domain.verified', { userId: 'usr_max', domainId: d.id, domain: 'verify.example.test' }]]);
  });

  test('SPF and DKIM are enough to verify; DMARC and return path are reported but not required', async () => {
    const d = await create('partial.example.test');
    publish(d, ['spf', 'dkim']);
    mail.clock.advance(minute);
    const [shown] = (await list()).data;
    expect(shown!.status).toBe('verified');
    expect(validity(shown!)).toEqual({ spf: true, dkim: true, dmarc: false, return_path: false });
  });

  test('the 10-minute re-check verifies without a list; not before it is due', async () => {
    const d = await create('clock.example.test');
    publish(d);
    mail.clock.advance(9 * minute);
    await mail.app.runDue();
    expect(stored(d.id).status).toBe('pending');
    mail.clock.advance(minute);
    await mail.app.runDue();
    expect(stored(d.id).status).toBe('verified');
    expect(outcomes.map(([name]) => name)).toEqual(['domain.verified']);
  });

  test('still missing 72 hours after creation: failed, announced, and final even if the records appear later', async () => {
    const d = await create('late.example.test');
    publish(d, ['spf', 'dmarc']);
    mail.clock.advance(71 * hour);
    await mail.app.runDue();
    expect(stored(d.id).status).toBe('pending');
    mail.clock.advance(hour);
    await mail.app.runDue();
    expect(outcomes).toEqual([['domain.failed', { userId: 'usr_max', domainId: d.id, domain: 'late.example.test' }]]);
    publish(d, ['dkim']);
    mail.clock.advance(hour);
    await mail.app.runDue();
    const [shown] = (await list()).data;
    expect(shown).toMatchObject({ status: 'failed', verified_at: null });
    expect(outcomes).toHaveLength(1);
  });

  test('a verified domain is not checked again and stays verified when its records go', async () => {
    const d = await create('kept.example.test');
    publish(d);
    mail.clock.advance(10 * minute);
    await mail.app.runDue();
    for (const r of d.dns_records) delete zone[r.name];
    delete zone['kept.example.test'];
    mail.clock.advance(73 * hour);
    await mail.app.runDue();
    expect((await list()).data[0]!.status).toBe('verified');
    expect(outcomes.map(([name]) => name)).toEqual(['domain.verified']);
  });

  test('what does not count: two SPF records, SPF without our include, another DKIM key, a CNAME elsewhere', async () => {
    const d = await create('wrong.example.test');
    zone['wrong.example.test'] = { txt: [recordOf(d, 'spf').value, 'v=spf1 -all'] };
    zone['svc._domainkey.wrong.example.test'] = { txt: [chunked('v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA')] };
    zone['bounces.wrong.example.test'] = { cname: ['bounces.elsewhere.test'] };
    zone['_dmarc.wrong.example.test'] = { txt: ['v=DMARC1; p=reject'] };
    mail.clock.advance(minute);
    expect(validity((await list()).data[0]!)).toEqual({ spf: false, dkim: false, dmarc: true, return_path: false });
    zone['wrong.example.test'] = { txt: ['v=spf1 include:spf.other.test ~all'] };
    mail.clock.advance(minute);
    expect(validity((await list()).data[0]!)).toMatchObject({ spf: false });
    expect(outcomes).toEqual([]);
  });
});

describe('list, delete, isolation', () => {
  test('newest first, paged with {page, limit, total, totalPages}; each user sees only their own', async () => {
    for (const n of [1, 2, 3]) {
      await create(`p${n}.example.test`);
      mail.clock.advance(1000);
    }
    await create('theirs.example.test', mail.key('msk_test_pro'));
    const first = await list({ limit: 2 });
    expect(first.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(first.data.map((d) => d.domain)).toEqual(['p3.example.test', 'p2.example.test']);
    expect((await list({ limit: 2, page: 2 })).data.map((d) => d.domain)).toEqual(['p1.example.test']);
    expect((await list({}, mail.key('msk_test_pro'))).data.map((d) => d.domain)).toEqual(['theirs.example.test']);
    answered(await max().GET(path, { params: { query: { limit: 101 } } }), 400, path, 'get');
    answered(await max().GET(path, { params: { query: { page: 0 } } }), 400, path, 'get');
  });

  test("delete: 200 then gone; unknown and another user's ids 404; malformed id 400", async () => {
    const mine = await create('gone.example.test');
    const theirs = await create('kept.example.test', mail.key('msk_test_pro'));
    answered(await max().DELETE(path, { params: { query: { id: theirs.id } } }), 404, path, 'delete');
    answered(await max().DELETE(path, { params: { query: { id: '0f0e0d0c-0b0a-4909-8807-060504030201' } } }), 404, path, 'delete');
    answered(await max().DELETE(path, { params: { query: { id: 'not-a-uuid' } } }), 400, path, 'delete');
    expect(answered(await max().DELETE(path, { params: { query: { id: mine.id } } }), 200, path, 'delete')).toEqual({ success: true });
    expect((await list()).data).toEqual([]);
    expect((await list({}, mail.key('msk_test_pro'))).data).toHaveLength(1);
    answered(await max().DELETE(path, { params: { query: { id: mine.id } } }), 404, path, 'delete');
    await create('gone.example.test');
  });

  test('a domain deleted is no longer checked or announced', async () => {
    const d = await create('dropped.example.test');
    publish(d);
    answered(await max().DELETE(path, { params: { query: { id: d.id } } }), 200, path, 'delete');
    mail.clock.advance(10 * minute);
    await mail.app.runDue();
    expect(outcomes).toEqual([]);
  });

  test('a token without the read or write scope: 403 on every route; no key: 401', async () => {
    const scoped = mail.key('msk_test_oauth_send');
    answered(await scoped.GET(path), 403, path, 'get');
    answered(await scoped.POST(path, { body: { domain: 'scoped.example.test' } }), 403, path, 'post');
    answered(await scoped.DELETE(path, { params: { query: { id: '0f0e0d0c-0b0a-4909-8807-060504030201' } } }), 403, path, 'delete');
    answered(await mail.anonymous().GET(path), 401, path, 'get');
    expect((await list()).data).toEqual([]);
  });
});
