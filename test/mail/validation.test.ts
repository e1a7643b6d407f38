/**
 * E-mail validation through HTTP with the generated mail client (issue 13, "Email validation"):
 * syntax as providers apply it, MX through a DNS server on loopback (found, none, unanswered, IDN),
 * disposable/role/free flags, provider from the MX hosts, the score and verdict, batch summaries,
 * credit metering (one per started 100 addresses, 402 charging nothing), the plan gate and scopes.
 */
import { beforeEach, describe, expect, test } from 'vitest';
import { validationCredits } from '../../server-stubs/mail/identity/plans.js';
import { dnsServerForTests, resolverAsking } from '../helpers/dns-server.js';
import { answered, mailForEachTest, startMail } from './identity-support.js';

const dns = dnsServerForTests({
  'lovelace.example': { mx: [{ exchange: 'mx2.lovelace.example', priority: 20 }, { exchange: 'mx1.lovelace.example', priority: 10 }] },
  'workspace.example': { mx: [{ exchange: 'aspmx.l.google.com', priority: 1 }] },
  'gmail.com': { mx: [{ exchange: 'gmail-smtp-in.l.google.com', priority: 5 }] },
  'outlook-hosted.example': { mx: [{ exchange: 'outlook-hosted-example.mail.protection.outlook.com', priority: 0 }] },
  'xn--bcher-kva.example': { mx: [{ exchange: 'mx.xn--bcher-kva.example', priority: 10 }] },
  'mailinator.com': { mx: [{ exchange: 'mail.mailinator.com', priority: 1 }] },
  'inbox.mailinator.com': { mx: [{ exchange: 'mail.mailinator.com', priority: 1 }] },
  'a-only.example': { addresses: ['192.0.2.10'] },
  'null-mx.example': { mx: [{ exchange: '.', priority: 0 }] },
  'broken.example': { servfail: true },
});
const mail = mailForEachTest(() => ({ dns: resolverAsking(dns) }));
beforeEach(() => {
  dns.queries.length = 0;
});

const max = () => mail.key('msk_test_max');
const pro = () => mail.key('msk_test_pro');
const free = () => mail.key('msk_test_free');
const path = '/v1/validate';

async function one(email: string, client = max(), options?: { skip_smtp: boolean }) {
  return answered(await client.POST(path, { body: { email, ...(options && { options }) } }), 200, path, 'post');
}

async function batch(emails: string[], client = max()) {
  return answered(await client.POST(path, { body: { emails } }), 200, path, 'post');
}

async function balance(client = max()): Promise<number> {
  return answered(await client.GET(path), 200, path, 'get').credits.balance;
}

describe('a single address', () => {
  test('a mailbox on a domain with MX: valid, MX hosts most preferred first, checked at the stub clock, one credit', async () => {
    const body = await one('ada@lovelace.example');
    expect(body.data).toEqual({
      email: 'ada@lovelace.example',
      is_valid: true,
      score: 85, // 100 - 10 (no SMTP probe) - 5 (catch-all undetermined)
      checks: { syntax: true, mx: true, smtp: null },
      flags: { disposable: false, role_account: false, catch_all: null, free_provider: false },
      domain: 'lovelace.example',
      provider: null,
      mx_records: ['mx1.lovelace.example', 'mx2.lovelace.example'],
      verified_at: new Date(mail.clock.now()).toISOString(),
    });
    expect(body.credits).toEqual({ used: 1, balance_after: validationCredits.max - 1 });
    expect(dns.queries).toContain('lovelace.example');
  });

  test('options.skip_smtp false still probes nothing: smtp stays null', async () => {
    expect((await one('ada@lovelace.example', max(), { skip_smtp: false })).data.checks.smtp).toBeNull();
    expect((await one('ada@lovelace.example', max(), { skip_smtp: true })).data.checks.smtp).toBeNull();
  });

  test('a domain without MX (an A record only: no implicit MX) or with no DNS entry at all: invalid, score 0', async () => {
    for (const email of ['ada@a-only.example', 'ada@nxdomain.example']) {
      const { data } = await one(email);
      expect(data).toMatchObject({ is_valid: false, score: 0, checks: { syntax: true, mx: false }, mx_records: [], provider: null });
    }
  });

  test('a null MX (RFC 7505: the domain takes no mail): invalid, no MX host listed', async () => {
    const { data } = await one('ada@null-mx.example');
    expect(data).toMatchObject({ is_valid: false, score: 0, checks: { mx: false }, mx_records: [] });
    expect(dns.queries).toContain('null-mx.example');
  });

  test('an MX look-up the DNS does not answer (SERVFAIL): not valid, but scored above 0 (unknown, not missing)', async () => {
    const { data } = await one('ada@broken.example');
    expect(data).toMatchObject({ is_valid: false, score: 45, checks: { syntax: true, mx: false, smtp: null }, mx_records: [] });
  });

  test('the provider is recognized from the MX hosts, whatever the address domain', async () => {
    expect((await one('ada@workspace.example')).data).toMatchObject({ provider: 'Google', flags: { free_provider: false } });
    expect((await one('ada@outlook-hosted.example')).data.provider).toBe('Microsoft');
  });

  test('a free mailbox provider is flagged and still valid, at full score', async () => {
    const { data } = await one('ada.lovelace@gmail.com');
    expect(data).toMatchObject({ is_valid: true, score: 85, provider: 'Google', flags: { free_provider: true, disposable: false } });
  });

  test('a disposable domain (or a subdomain of one) is flagged, not counted free, valid but scored low', async () => {
    for (const email of ['throwaway@mailinator.com', 'throwaway@inbox.mailinator.com']) {
      const { data } = await one(email);
      expect(data).toMatchObject({ is_valid: true, score: 35, flags: { disposable: true, free_provider: false } });
    }
  });

  test('role accounts, case-insensitive and with a sub-address tag, are flagged; a person is not', async () => {
    for (const email of ['info@lovelace.example', 'Support+eu@lovelace.example', 'postmaster@lovelace.example', 'noreply@lovelace.example']) {
      expect((await one(email)).data).toMatchObject({ is_valid: true, score: 65, flags: { role_account: true } });
    }
    expect((await one('information.desk@lovelace.example')).data.flags.role_account).toBe(false);
  });

  test('an internationalized domain: accepted, looked up in its ASCII form, reported as written', async () => {
    const { data } = await one('user@Bücher.example');
    expect(data).toMatchObject({ email: 'user@Bücher.example', is_valid: true, domain: 'bücher.example', checks: { syntax: true, mx: true }, mx_records: ['mx.xn--bcher-kva.example'] });
    expect(dns.queries).toContain('xn--bcher-kva.example');
  });

  test('a UTF-8 local part (RFC 6531) is valid syntax', async () => {
    expect((await one('józsef@lovelace.example')).data.checks.syntax).toBe(true);
  });
});

describe('syntax', () => {
  const local64 = 'a'.repeat(64);
  const domain189 = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`; // 189 octets: 64 + 1 + 189 = 254

  test.each([
    ['no @', 'plainaddress'],
    ['no domain', 'ada@'],
    ['no local part', '@lovelace.example'],
    ['no top-level domain', 'ada@localhost'],
    ['a quoted local part', '"ada lovelace"@lovelace.example'],
    ['an IP-literal domain', 'ada@[192.0.2.1]'],
    ['a bare IP domain', 'ada@192.0.2.1'],
    ['a display name', 'Ada <ada@lovelace.example>'],
    ['surrounding spaces', ' ada@lovelace.example '],
    ['consecutive dots', 'ada..lovelace@lovelace.example'],
    ['a leading dot', '.ada@lovelace.example'],
    ['two @', 'ada@lovelace@lovelace.example'],
    ['an underscore in the domain', 'ada@exa_mple.com'],
    ['a trailing dot on the domain', 'ada@lovelace.example.'],
    ['a local part of 65 octets', `${'a'.repeat(65)}@lovelace.example`],
    ['a local part of 65 octets in UTF-8 (33 two-octet letters)', `${'é'.repeat(33)}@lovelace.example`],
    ['255 octets in all', `${local64}@${domain189.replace('d'.repeat(57), 'd'.repeat(58))}`],
    ['a label over 63 octets', `ada@${'x'.repeat(64)}.com`],
  ])('%s: syntax false, nothing else checked, no DNS look-up', async (_why, email) => {
    const { data, credits } = await one(email);
    expect(data).toEqual({
      email,
      is_valid: false,
      score: 0,
      checks: { syntax: false, mx: false, smtp: null },
      flags: { disposable: false, role_account: false, catch_all: null, free_provider: false },
      domain: expect.any(String),
      provider: null,
      mx_records: [],
      verified_at: expect.any(String),
    });
    expect(credits.used).toBe(1); // a malformed address is a result, and metered like any other
    expect(dns.queries).toEqual([]);
  });

  test('the limits themselves pass: a 64-octet local part, 254 octets in all', async () => {
    expect((await one(`${local64}@lovelace.example`)).data.checks.syntax).toBe(true);
    const longest = `${local64}@${domain189}`;
    expect(Buffer.byteLength(longest)).toBe(254);
    expect((await one(longest)).data).toMatchObject({ checks: { syntax: true, mx: false }, domain: domain189 });
  });

  test('the domain of a malformed address is reported when there is one', async () => {
    expect((await one('ada@[192.0.2.1]')).data.domain).toBe('[192.0.2.1]');
    expect((await one('plainaddress')).data.domain).toBe('');
  });
});

describe('a batch', () => {
  test('results in request order, each counted in exactly one class', async () => {
    const emails = ['ada@lovelace.example', 'info@lovelace.example', 'throwaway@mailinator.com', 'ada@broken.example', 'ada@nxdomain.example', 'not-an-address', 'grace@gmail.com'];
    const body = await batch(emails);
    expect(body.results.map((r: { email: string }) => r.email)).toEqual(emails);
    expect(body.summary).toEqual({ total: 7, valid: 2, invalid: 2, risky: 2, unknown: 1, duration_ms: 0 });
    expect(body.credits).toEqual({ used: 1, balance_after: validationCredits.max - 1 });
  });

  test('a repeated address is metered and answered at each place, but looked up once per domain', async () => {
    const body = await batch(['ada@lovelace.example', 'bob@lovelace.example', 'ada@lovelace.example']);
    expect(body.results).toHaveLength(3);
    expect(body.results[2]).toEqual(body.results[0]);
    expect(body.summary.total).toBe(3);
    expect(dns.queries.filter((q) => q === 'lovelace.example')).toHaveLength(1);
  });

  test('an answer of one address comes back as a batch when sent as `emails`', async () => {
    const body = await batch(['ada@lovelace.example']);
    expect(body).toMatchObject({ success: true, summary: { total: 1, valid: 1 }, credits: { used: 1 } });
    expect(body.data).toBeUndefined();
  });
});

describe('credits', () => {
  const addresses = (n: number) => Array.from({ length: n }, (_, i) => `user${i}@lovelace.example`);

  test('one credit per started 100 addresses: 1 → 1, 100 → 1, 101 → 2, 500 → 5; the balance follows', async () => {
    expect(await balance()).toBe(validationCredits.max);
    let left = validationCredits.max;
    for (const [n, used] of [[1, 1], [100, 1], [101, 2], [200, 2], [201, 3], [500, 5]] as const) {
      const body = n === 1 ? await one('ada@lovelace.example') : await batch(addresses(n));
      left -= used;
      expect(body.credits, `${n} addresses`).toEqual({ used, balance_after: left });
    }
    expect(await balance()).toBe(left);
  });

  test('short of credits: 402 with the required amount and the balance, nothing validated, nothing charged', async () => {
    for (let i = 0; i < 9; i++) await one('ada@lovelace.example', pro()); // Pro: 10 → 1
    expect(await balance(pro())).toBe(1);
    dns.queries.length = 0;
    const refused = answered(await pro().POST(path, { body: { emails: addresses(101) } }), 402, path, 'post');
    expect(refused).toEqual({ success: false, error: 'Insufficient credits: 2 required, balance 1', credits_required: 2, balance: 1 });
    expect(dns.queries).toEqual([]);
    expect(await balance(pro())).toBe(1);
    expect((await one('ada@lovelace.example', pro())).credits).toEqual({ used: 1, balance_after: 0 });
    answered(await pro().POST(path, { body: { email: 'ada@lovelace.example' } }), 402, path, 'post');
    expect(await balance(pro())).toBe(0);
  });

  test('each user has their own balance, and a reset restores the plan allowance', async () => {
    await batch(addresses(101));
    expect(await balance(pro())).toBe(validationCredits.pro);
    expect(await balance()).toBe(validationCredits.max - 2);
    mail.app.reset();
    expect(await balance()).toBe(validationCredits.max);
  });
});

describe('a resolver that fails unexpectedly', () => {
  test('500, and the credits charged for the request are given back', async () => {
    const broken = await startMail({
      dns: { mx: () => Promise.reject(new Error('resolver bug')), txt: async () => [], cname: async () => [], addresses: async () => [] },
    });
    try {
      const client = broken.key('msk_test_pro');
      expect((await client.POST(path, { body: { email: 'ada@lovelace.example' } })).response.status).toBe(500);
      expect(answered(await client.GET(path), 200, path, 'get').credits.balance).toBe(validationCredits.pro);
    } finally {
      await broken.close();
    }
  });
});

describe('plan and scopes', () => {
  test('Free (0 credits): 403 naming the feature and the plan, on both routes: the plan is checked before the credits', async () => {
    const expected = { success: false, error: 'This feature requires the Pro plan', feature: 'validation', required_plan: 'pro' };
    expect(answered(await free().GET(path), 403, path, 'get')).toEqual(expected);
    expect(answered(await free().POST(path, { body: { email: 'ada@lovelace.example' } }), 403, path, 'post')).toEqual(expected);
    expect(dns.queries).toEqual([]);
  });

  test('Pro: validation allowed, balance 10', async () => {
    expect(await balance(pro())).toBe(10);
    expect((await one('ada@lovelace.example', pro())).data.is_valid).toBe(true);
  });

  test('an OAuth token with the scope send or validate may validate; one with neither: 403 on both routes', async () => {
    expect((await one('ada@lovelace.example', mail.key('msk_test_oauth_send'))).credits.used).toBe(1);
    const validateOnly = mail.app.identity.issueKey({ userId: 'usr_max', name: 'validate only', kind: 'oauth', scopes: ['validate'] }).raw;
    expect(await balance(mail.key(validateOnly))).toBe(validationCredits.max - 1);
    const readOnly = mail.key(mail.app.identity.issueKey({ userId: 'usr_max', name: 'read only', kind: 'oauth', scopes: ['read'] }).raw);
    answered(await readOnly.GET(path), 403, path, 'get');
    answered(await readOnly.POST(path, { body: { email: 'ada@lovelace.example' } }), 403, path, 'post');
    expect(await balance()).toBe(validationCredits.max - 1);
  });

  test('no key, or a revoked one: 401', async () => {
    answered(await mail.anonymous().GET(path), 401, path, 'get');
    answered(await mail.key('msk_test_revoked').POST(path, { body: { email: 'ada@lovelace.example' } }), 401, path, 'post');
  });
});

describe('malformed requests: 400 or 415, nothing charged', () => {
  test.each([
    ['both email and emails', { email: 'ada@lovelace.example', emails: ['bob@lovelace.example'] }],
    ['neither', {}],
    ['only options', { options: { skip_smtp: true } }],
    ['an empty batch', { emails: [] }],
    ['501 addresses', { emails: Array.from({ length: 501 }, (_, i) => `u${i}@lovelace.example`) }],
    ['email not a string', { email: 42 }],
    ['emails not strings', { emails: [42] }],
    ['emails a string', { emails: 'ada@lovelace.example' }],
    ['skip_smtp not a boolean', { email: 'ada@lovelace.example', options: { skip_smtp: 'yes' } }],
  ])('%s: 400 Validation failed, with field errors', async (_why, body) => {
    const refused = answered(await max().POST(path, { body: body as never }), 400, path, 'post');
    expect(refused).toMatchObject({ success: false, error: 'Validation failed', details: { fieldErrors: expect.any(Object) } });
    expect(await balance()).toBe(validationCredits.max);
  });

  test('an unknown field is ignored (tolerant reader, DECISIONS G-1), but the other kind\'s field is not unknown', async () => {
    expect((await max().POST(path, { body: { email: 'ada@lovelace.example', mode: 'fast' } as never })).response.status).toBe(200);
    const both = answered(await max().POST(path, { body: { email: 'ada@lovelace.example', emails: ['bob@lovelace.example'] } as never }), 400, path, 'post');
    expect(both.details.fieldErrors).toMatchObject({ email: ['is not allowed together with the other fields given'], emails: ['is not allowed together with the other fields given'] });
    expect(both.details.formErrors).toBeUndefined();
    const neither = answered(await max().POST(path, { body: {} as never }), 400, path, 'post');
    expect(neither.details.fieldErrors).toMatchObject({ email: [expect.stringMatching(/required/)], emails: [expect.stringMatching(/required/)] });
  });

  test('a body that is not JSON: 415; malformed JSON: 400 Invalid JSON body', async () => {
    const send = (contentType: string, body: string) =>
      fetch(`${mail.baseUrl}${path}`, { method: 'POST', headers: { authorization: 'Bearer msk_test_max', 'content-type': contentType }, body });
    const notJson = await send('text/plain', 'ada@lovelace.example');
    expect(notJson.status).toBe(415);
    expect(await notJson.json()).toEqual({ success: false, error: 'Content-Type must be application/json' });
    const broken = await send('application/json', '{"email": ');
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({ success: false, error: 'Invalid JSON body' });
    expect(await balance()).toBe(validationCredits.max);
  });
});
