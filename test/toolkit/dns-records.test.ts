import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecordResolver } from '../../server-stubs/lib/dns-records.js';
import { LookupFailed } from '../../server-stubs/lib/net-guard.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';

describe('the record resolver against a DNS server on loopback', () => {
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startDnsServer({
      'mail.test': {
        txt: ['v=spf1 include:spf.mail.platform.example ~all', ['v=DKIM1; k=rsa; ', 'p=ABC']],
        mx: [
          { exchange: 'mx2.mail.test', priority: 20 },
          { exchange: 'mx1.mail.test', priority: 10 },
        ],
      },
      'bounces.mail.test': { cname: ['bounces.mail.platform.example'] },
      'broken.test': { servfail: true },
      'ptr.mail.test': ['203.0.113.5', '2001:db8::5'],
    });
  });
  afterAll(() => dns.close());

  const resolver = () => createRecordResolver({ dnsServer: dns.address, timeoutMs: 2000 });

  it('joins the character-strings of a TXT record and keeps records apart', async () => {
    expect(await resolver().txt('Mail.Test.')).toEqual(['v=spf1 include:spf.mail.platform.example ~all', 'v=DKIM1; k=rsa; p=ABC']);
    expect(dns.queries).toContain('mail.test');
  });

  it('sorts MX records by preference and reads CNAMEs', async () => {
    expect((await resolver().mx('mail.test')).map((m) => m.exchange)).toEqual(['mx1.mail.test', 'mx2.mail.test']);
    expect(await resolver().cname('bounces.mail.test')).toEqual(['bounces.mail.platform.example']);
  });

  it('reads A and AAAA addresses together', async () => {
    expect(await resolver().addresses('ptr.mail.test')).toEqual(['203.0.113.5', '2001:db8::5']);
    expect(await resolver().addresses('mail.test')).toEqual([]);
  });

  it('answers an empty list for a name without the record and for a name that does not exist', async () => {
    expect(await resolver().mx('bounces.mail.test')).toEqual([]);
    expect(await resolver().txt('nowhere.test')).toEqual([]);
  });

  it('throws LookupFailed when the server cannot answer, so a check can say "unknown"', async () => {
    await expect(resolver().txt('broken.test')).rejects.toBeInstanceOf(LookupFailed);
  });
});
