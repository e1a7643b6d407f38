/**
 * DMARC monitoring through HTTP (issue 13): crafted DNS zones on a loopback DNS server (a perfect
 * `reject` set-up, two SPF records, no DKIM, `p=none`, no MX, SERVFAIL and more), the score and its
 * bands, issues a user can act on, duplicates, the plan's allowance, unknown and other users' ids,
 * host names and scopes. No look-up leaves the machine.
 */
import { describe, expect, test } from 'vitest';
import { planQuotas } from '../../server-stubs/mail/identity/plans.js';
import { dnsServerForTests, resolverAsking, type Zone } from '../helpers/dns-server.js';
import { answered, mailForEachTest } from './identity-support.js';

const key = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA';
const mx = [{ exchange: 'mx1.mail.test', priority: 10 }];

/** A complete set-up of `domain`, overridable per record. */
function setUp(domain: string, parts: { root?: string[]; mx?: typeof mx; dkim?: Array<string | string[]> | null; dmarc?: string[] | null; selector?: string } = {}): Zone {
  const zone: Zone = { [domain]: { txt: parts.root ?? ['v=spf1 include:_spf.mail.test -all'], mx: parts.mx ?? mx } };
  if (parts.dkim !== null) zone[`${parts.selector ?? 'default'}._domainkey.${domain}`] = { txt: parts.dkim ?? [`v=DKIM1; k=rsa; p=${key}`] };
  if (parts.dmarc !== null) zone[`_dmarc.${domain}`] = { txt: parts.dmarc ?? [`v=DMARC1; p=reject; rua=mailto:dmarc@${domain}; pct=100`] };
  return zone;
}

const zone: Zone = {
  ...setUp('perfect.test'),
  ...setUp('twospf.test', { root: ['v=spf1 include:_spf.mail.test -all', 'v=spf1 include:other.test ~all'] }),
  ...setUp('nodkim.test', { dkim: null }),
  ...setUp('pnone.test', { dmarc: ['v=DMARC1; p=none; rua=mailto:dmarc@pnone.test'] }),
  ...setUp('nomx.test', { mx: [] }),
  ...setUp('plusall.test', { root: ['v=spf1 +all'] }),
  ...setUp('neutral.test', { root: ['v=spf1 include:_spf.mail.test ?all'] }),
  ...setUp('halfway.test', { dmarc: ['v=DMARC1; p=quarantine; pct=50; rua=mailto:dmarc@halfway.test; ruf=mailto:forensic@halfway.test'] }),
  ...setUp('nopolicy.test', { dmarc: ['v=DMARC1; rua=mailto:dmarc@nopolicy.test'] }),
  ...setUp('badrua.test', { dmarc: ['v=DMARC1; p=reject; rua=dmarc@badrua.test'] }),
  ...setUp('revoked.test', { dkim: ['v=DKIM1; k=rsa; p='] }),
  ...setUp('split.test', { selector: 'mail2026', dkim: [['v=DKIM1; k=rsa; ', `p=${key}`]] }),
  'servfail.test': { servfail: true },
  'default._domainkey.servfail.test': { servfail: true },
  '_dmarc.servfail.test': { servfail: true },
  'bare.test': { txt: ['google-site-verification=abc'] },
};

const dns = dnsServerForTests(zone);
const mail = mailForEachTest(() => ({ dns: resolverAsking(dns) }));

const max = () => mail.key('msk_test_max');
const path = '/v1/dmarc/domains';

async function add(domain: string, client = max(), dkim_selector?: string) {
  return answered(await client.POST(path, { body: { domain, ...(dkim_selector && { dkim_selector }) } }), 201, path, 'post').data;
}

async function listed(client = max()) {
  return answered(await client.GET(path), 200, path, 'get').data;
}

describe('crafted zones: what the immediate check finds', () => {
  test('a perfect reject set-up scores 90+ with no issues and reads healthy', async () => {
    const added = await add('perfect.test');
    expect(added.overall_score).toBeGreaterThanOrEqual(90);
    expect(added.overall_score).toBe(100);
    expect(added.dkim_selector).toBe('default');
    expect(added.dns_check).toEqual({
      spf: { valid: true, value: 'v=spf1 include:_spf.mail.test -all', issues: [] },
      dkim: { valid: true, value: `v=DKIM1; k=rsa; p=${key}`, issues: [] },
      dmarc: { valid: true, value: 'v=DMARC1; p=reject; rua=mailto:dmarc@perfect.test; pct=100', issues: [], policy: 'reject' },
      mx: [{ priority: 10, exchange: 'mx1.mail.test' }],
      overallScore: 100,
    });
    expect(dns.queries).toEqual(expect.arrayContaining(['perfect.test', 'default._domainkey.perfect.test', '_dmarc.perfect.test']));
    const [domain] = await listed();
    expect(domain).toEqual({
      id: added.id,
      domain: 'perfect.test',
      spf_valid: true,
      dkim_valid: true,
      dmarc_valid: true,
      dkim_selector: 'default',
      dmarc_policy: 'reject',
      mx_records: [{ priority: 10, exchange: 'mx1.mail.test' }],
      overall_score: 100,
      last_checked_at: new Date(mail.clock.now()).toISOString(),
      billing_active: true,
      status: 'healthy',
      created_at: added.created_at,
    });
  });

  test('a reject set-up without report address or MX still scores 90 (the floor of a reject set-up)', async () => {
    dnsZoneSet(setUp('minimal.test', { mx: [], dmarc: ['v=DMARC1; p=reject'] }));
    const added = await add('minimal.test');
    expect(added.overall_score).toBe(90);
    expect(added.dns_check.dmarc.issues).toEqual([expect.stringMatching(/asks for no reports: add "rua=mailto:dmarc@minimal.test"/)]);
  });

  test('two SPF records: invalid, with an issue telling to merge them', async () => {
    const added = await add('twospf.test');
    expect(added.dns_check.spf.valid).toBe(false);
    expect(added.dns_check.spf.issues).toEqual([expect.stringMatching(/^Publish one SPF record: found 2 at twospf\.test; merge them/)]);
    expect(added.overall_score).toBe(75);
  });

  test('no SPF record at all: invalid, with the record to publish', async () => {
    dnsZoneSet(setUp('nospf.test', { root: ['google-site-verification=abc'] }));
    const added = await add('nospf.test');
    expect(added.dns_check.spf).toEqual({ valid: false, value: '', issues: [expect.stringMatching(/^No SPF record found at nospf\.test: publish one TXT record starting "v=spf1"/)] });
  });

  test('no DKIM record: value null and the selector named in the issue', async () => {
    const added = await add('nodkim.test');
    expect(added.dns_check.dkim).toEqual({ valid: false, value: null, issues: [expect.stringMatching(/^No DKIM record found at default\._domainkey\.nodkim\.test/)] });
    expect(added.overall_score).toBe(75);
    expect((await listed())[0]).toMatchObject({ dkim_valid: false, status: 'good' });
  });

  test('p=none: valid, policy none, an issue to move to quarantine and reject, Warning band', async () => {
    const added = await add('pnone.test');
    expect(added.dns_check.dmarc).toMatchObject({ valid: true, policy: 'none', value: 'v=DMARC1; p=none; rua=mailto:dmarc@pnone.test' });
    expect(added.dns_check.dmarc.issues).toEqual([expect.stringMatching(/policy of pnone\.test is "none".*move to "p=quarantine", then "p=reject"/)]);
    expect(added.overall_score).toBe(65);
    expect((await listed())[0]).toMatchObject({ dmarc_policy: 'none', status: 'warning' });
  });

  test('no MX: an empty list, 5 points less, still healthy (MX is optional)', async () => {
    const added = await add('nomx.test');
    expect(added.dns_check.mx).toEqual([]);
    expect(added.overall_score).toBe(95);
    expect((await listed())[0]).toMatchObject({ mx_records: [], status: 'healthy' });
  });

  // "At once" is told by the cause each issue quotes: the server's SERVFAIL, not the look-up's timeout.
  test('SERVFAIL: answered at once, every record "could not be checked", status unknown', async () => {
    const added = await add('servfail.test');
    for (const part of ['spf', 'dkim', 'dmarc'] as const) {
      expect(added.dns_check[part].valid).toBe(false);
      expect(added.dns_check[part].issues).toEqual([
        expect.stringMatching(/could not be checked: the DNS server did not answer \(TXT look-up of (?:\S+\.)?servfail\.test failed \(ESERVFAIL\)\); check again later/),
      ]);
    }
    expect(added.dns_check.mx).toEqual([]);
    expect(added.overall_score).toBe(0);
    expect((await listed())[0]!.status).toBe('unknown');
  });

  test('a name with no mail records at all is Critical', async () => {
    const added = await add('bare.test');
    expect(added.overall_score).toBe(0);
    expect(added.dns_check.dmarc).toMatchObject({ valid: false, value: '', policy: 'none', issues: [expect.stringMatching(/^No DMARC record found at _dmarc\.bare\.test/)] });
    expect((await listed())[0]!.status).toBe('critical');
  });

  test('SPF "+all" lets anyone send: invalid; "?all" stays valid with an issue and scores less', async () => {
    const plus = await add('plusall.test');
    expect(plus.dns_check.spf.valid).toBe(false);
    expect(plus.dns_check.spf.issues).toEqual([expect.stringMatching(/ends with "\+all", which lets any server.*replace it with "~all" or "-all"/)]);
    const neutral = await add('neutral.test');
    expect(neutral.dns_check.spf.valid).toBe(true);
    expect(neutral.dns_check.spf.issues).toEqual([expect.stringMatching(/ends with "\?all" \(neutral\)/)]);
    expect(neutral.overall_score).toBe(90);
  });

  test('quarantine at pct 50: valid, an issue to raise pct, the policy points halved', async () => {
    const added = await add('halfway.test');
    expect(added.dns_check.dmarc).toMatchObject({ valid: true, policy: 'quarantine' });
    expect(added.dns_check.dmarc.issues).toEqual([expect.stringMatching(/applies to only 50% of failing mail: raise "pct" to 100/)]);
    expect(added.overall_score).toBe(25 + 25 + 5 + 10 + 5 + 5);
  });

  test('a DMARC record without a policy or with report addresses that are not mailto: is flagged', async () => {
    const noPolicy = await add('nopolicy.test');
    expect(noPolicy.dns_check.dmarc).toMatchObject({ valid: false, policy: 'none', issues: [expect.stringMatching(/has no valid policy: it needs "p=none", "p=quarantine" or "p=reject"/)] });
    const badRua = await add('badrua.test');
    expect(badRua.dns_check.dmarc.valid).toBe(true);
    expect(badRua.dns_check.dmarc.issues).toEqual(expect.arrayContaining([expect.stringMatching(/\("rua=dmarc@badrua\.test"\) is not a list of mailto: addresses/)]));
    expect(badRua.overall_score).toBe(95);
  });

  test('a DKIM record with an empty p= (revoked key) is invalid', async () => {
    const added = await add('revoked.test');
    expect(added.dns_check.dkim).toMatchObject({ valid: false, issues: [expect.stringMatching(/empty "p=" \(the key is revoked\)/)] });
  });

  test('a custom selector is looked up at <selector>._domainkey.<domain>; a key split over character-strings is joined', async () => {
    const added = await add('split.test', max(), 'mail2026');
    expect(added.dkim_selector).toBe('mail2026');
    expect(added.dns_check.dkim).toEqual({ valid: true, value: `v=DKIM1; k=rsa; p=${key}`, issues: [] });
    expect(dns.queries).toContain('mail2026._domainkey.split.test');
    expect((await add('perfect.test', max(), 'mail2026')).dns_check.dkim.valid).toBe(false);
  });
});

function dnsZoneSet(records: Zone) {
  Object.assign(zone, records);
}

describe('refusals', () => {
  test('the same domain twice for a user: 409, case-insensitively and ignoring a trailing dot; another user may add it', async () => {
    await add('perfect.test');
    for (const domain of ['perfect.test', 'PERFECT.Test', 'perfect.test.']) {
      expect(answered(await max().POST(path, { body: { domain } }), 409, path, 'post')).toEqual({ success: false, error: 'Domain already monitored' });
    }
    expect((await add('Perfect.Test.', mail.key('msk_test_pro'))).domain).toBe('perfect.test');
    expect(await listed()).toHaveLength(1);
  });

  test("at the plan's monitored-domain allowance: 403 (Free allows 1); removing one makes room", async () => {
    const free = mail.key('msk_test_free');
    expect(planQuotas.free.monitored_domains).toBe(1);
    const first = await add('perfect.test', free);
    const refused = answered(await free.POST(path, { body: { domain: 'nomx.test' } }), 403, path, 'post');
    expect(refused).toEqual({ success: false, error: 'Monitored domain limit reached for your plan (Free)' });
    expect(await listed(free)).toHaveLength(1);
    answered(await free.DELETE(path, { params: { query: { domain_id: first.id } } }), 200, path, 'delete');
    await add('nomx.test', free);
  });

  test('the Pro allowance is 5', async () => {
    const pro = mail.key('msk_test_pro');
    for (const domain of ['perfect.test', 'nomx.test', 'pnone.test', 'nodkim.test', 'twospf.test']) await add(domain, pro);
    answered(await pro.POST(path, { body: { domain: 'bare.test' } }), 403, path, 'post');
    const limits = answered(await pro.GET('/v1/plan-limits'), 200, '/v1/plan-limits', 'get').data;
    expect({ quota: limits.quotas.monitored_domains, used: limits.usage.monitored_domains }).toEqual({ quota: 5, used: 5 });
  });

  test('not a host name with a top-level domain: 400 Validation failed naming the field; nothing is looked up', async () => {
    const before = dns.queries.length;
    for (const domain of ['localhost', '192.0.2.1', 'exa_mple.test', 'no spaces.test', '-dash.test']) {
      const refused = answered(await max().POST(path, { body: { domain } }), 400, path, 'post');
      expect(refused.error, domain).toBe('Validation failed');
      expect(Object.keys(refused.details.fieldErrors), domain).toEqual(['domain']);
    }
    const selector = answered(await max().POST(path, { body: { domain: 'perfect.test', dkim_selector: 'bad selector' } }), 400, path, 'post');
    expect(selector.details).toEqual({ fieldErrors: { dkim_selector: ['Invalid DKIM selector'] } });
    answered(await max().POST(path, { body: { domain: 42 } as never }), 400, path, 'post');
    answered(await max().POST(path, { body: {} as never }), 400, path, 'post');
    expect(dns.queries.length).toBe(before);
    expect(await listed()).toEqual([]);
  });

  test("unknown ids and another user's domain: 404; removing leaves the user's list without it", async () => {
    const mine = await add('perfect.test');
    const theirs = await add('nomx.test', mail.key('msk_test_pro'));
    expect(answered(await max().DELETE(path, { params: { query: { domain_id: 'no-such-id' } } }), 404, path, 'delete')).toEqual({ success: false, error: 'Domain not found' });
    answered(await max().DELETE(path, { params: { query: { domain_id: theirs.id } } }), 404, path, 'delete');
    expect(await listed(mail.key('msk_test_pro'))).toHaveLength(1);
    expect(answered(await max().DELETE(path, { params: { query: { domain_id: mine.id } } }), 200, path, 'delete')).toEqual({ success: true });
    expect(await listed()).toEqual([]);
    answered(await max().DELETE(path, { params: { query: { domain_id: mine.id } } }), 404, path, 'delete');
  });

  test('each user lists only their own domains, newest first', async () => {
    await add('perfect.test');
    mail.clock.advance(1000);
    await add('nomx.test');
    await add('pnone.test', mail.key('msk_test_pro'));
    expect((await listed()).map((d: { domain: string }) => d.domain)).toEqual(['nomx.test', 'perfect.test']);
    expect((await listed(mail.key('msk_test_pro'))).map((d: { domain: string }) => d.domain)).toEqual(['pnone.test']);
  });

  test('a token without the read or write scope: 403 on every route', async () => {
    const scoped = mail.key('msk_test_oauth_send');
    answered(await scoped.GET(path), 403, path, 'get');
    answered(await scoped.POST(path, { body: { domain: 'perfect.test' } }), 403, path, 'post');
    answered(await scoped.DELETE(path, { params: { query: { domain_id: 'x' } } }), 403, path, 'delete');
    expect(await listed()).toEqual([]);
  });

  test('without a key: 401; a body that is not JSON: 415', async () => {
    answered(await mail.anonymous().GET(path), 401, path, 'get');
    const response = await fetch(`${mail.baseUrl}${path}`, { method: 'POST', headers: { authorization: 'Bearer msk_test_max', 'content-type': 'text/plain' }, body: 'perfect.test' });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({ success: false, error: 'Content-Type must be application/json' });
  });
});
