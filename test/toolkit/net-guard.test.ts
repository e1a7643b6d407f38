import { createSocket } from 'node:dgram';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  allowLoopbackFromEnv,
  createResolver,
  documentationAddress,
  isBlockedAddress,
  LookupFailed,
  resolverFromEnv,
} from '../../server-stubs/lib/net-guard.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

// [address, why]; rows marked "bypass" passed the guard before it used ipaddr.js.
const blocked: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback /8'],
  ['0.0.0.0', 'this network'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'shared address space'],
  ['169.254.169.254', 'link-local, cloud metadata'],
  ['224.0.0.1', 'bypass: IPv4 multicast'],
  ['239.255.255.250', 'bypass: IPv4 multicast (SSDP)'],
  ['255.255.255.255', 'bypass: broadcast'],
  ['240.0.0.1', 'bypass: reserved 240/4'],
  ['198.18.0.1', 'bypass: benchmarking 198.18/15'],
  ['198.19.255.254', 'bypass: benchmarking 198.18/15, upper half'],
  ['192.0.0.8', 'bypass: IETF protocol assignments 192.0.0/24'],
  ['192.0.0.170', 'bypass: IETF protocol assignments (NAT64 discovery)'],
  ['192.0.2.11', 'bypass: TEST-NET-1 other than the documentation address'],
  ['198.51.100.9', 'bypass: TEST-NET-2'],
  ['203.0.113.7', 'bypass: TEST-NET-3'],
  ['::1', 'IPv6 loopback'],
  ['::', 'IPv6 unspecified'],
  ['[::1]', 'bracketed loopback'],
  ['[fe80::1]', 'bracketed link-local'],
  ['fc00::1', 'unique local'],
  ['fd12:3456::1', 'unique local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local with a zone id'],
  ['::1%lo', 'zone id on loopback'],
  ['fec0::1', 'bypass: deprecated site-local'],
  ['ff02::1', 'bypass: IPv6 multicast'],
  ['ff05::1:3', 'bypass: IPv6 multicast, site scope'],
  ['2001:db8::1', 'bypass: IPv6 documentation'],
  ['100::1', 'bypass: IPv6 discard'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex form'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:224.0.0.1', 'bypass: IPv4-mapped multicast'],
  ['64:ff9b::7f00:1', 'bypass: NAT64 (RFC 6052) of 127.0.0.1'],
  ['64:ff9b::a9fe:a9fe', 'bypass: NAT64 of 169.254.169.254'],
  ['64:ff9b::10.0.0.1', 'bypass: NAT64 of 10.0.0.1, dotted form'],
  ['64:ff9b:1::1', 'bypass: NAT64 local-use prefix (RFC 8215)'],
  ['2002:7f00:1::1', 'bypass: 6to4 of 127.0.0.1'],
  ['2002:c0a8:101::1', 'bypass: 6to4 of 192.168.1.1'],
  ['::127.0.0.1', 'bypass: IPv4-compatible 127.0.0.1'],
  ['::7f00:1', 'bypass: IPv4-compatible 127.0.0.1, hex form'],
  ['::a00:1', 'bypass: IPv4-compatible 10.0.0.1'],
  ['::ffff:0:7f00:1', 'bypass: IPv4-translated (RFC 6145) 127.0.0.1'],
  ['::ffff:0:a9fe:a9fe', 'bypass: IPv4-translated 169.254.169.254'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'bypass: Teredo, client 127.0.0.1'],
  ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'bypass: Teredo, client 10.0.0.1'],
  ['2001:0:a00:1:8000:63bf:f7f7:f7f7', 'bypass: Teredo, server 10.0.0.1'],
  ['', 'empty'],
  ['localhost', 'a name, not an address'],
  ['127.1', 'short IPv4 form'],
  ['0177.0.0.1', 'octal IPv4 form'],
  ['0x7f.0.0.1', 'hex IPv4 form'],
  ['2130706433', 'integer IPv4 form'],
  [' 127.0.0.1', 'surrounding space'],
  ['[127.0.0.1]', 'IPv4 in brackets'],
  ['[::1', 'unbalanced bracket'],
  ['1::2::3', 'two ::'],
  ['fe80::1%', 'empty zone id'],
];

const allowed: [string, string][] = [
  [documentationAddress, 'the documentation names resolve here: offline crawls of example.com'],
  ['93.184.216.34', 'public IPv4'],
  ['8.8.8.8', 'public IPv4'],
  ['2606:4700:4700::1111', 'public IPv6'],
  ['[2606:4700:4700::1111]', 'bracketed public IPv6'],
  ['2a00:1450:4001:80b::200e', 'public IPv6'],
  ['::ffff:8.8.8.8', 'IPv4-mapped public'],
  ['::ffff:192.0.2.10', 'IPv4-mapped documentation address'],
  ['64:ff9b::808:808', 'NAT64 of a public address'],
  ['2002:808:808::1', '6to4 of a public address'],
  ['::ffff:0:808:808', 'IPv4-translated public address'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'Teredo, public server and client 8.8.8.8'],
];

describe('isBlockedAddress', () => {
  it.each(blocked)('blocks %s (%s)', (address) => {
    expect(isBlockedAddress(address, { allowLoopback: false })).toBe(true);
  });

  it.each(allowed)('allows %s (%s)', (address) => {
    expect(isBlockedAddress(address, { allowLoopback: false })).toBe(false);
  });

  it('works as an Array#find callback (the index is not taken for options)', () => {
    vi.stubEnv('STUB_ALLOW_LOOPBACK', '');
    expect(['8.8.8.8', '::ffff:0:7f00:1', '127.0.0.1'].find(isBlockedAddress)).toBe('::ffff:0:7f00:1');
  });
});

describe('the loopback switch (STUB_ALLOW_LOOPBACK)', () => {
  const loopback = ['127.0.0.1', '127.8.9.10', '::1', '[::1]', '::ffff:127.0.0.1', '::ffff:0:7f00:1', '::127.0.0.1', '64:ff9b::7f00:1', '2002:7f00:1::1'];
  const stillBlocked = ['0.0.0.0', '10.0.0.1', '172.16.0.1', '192.168.1.1', '100.64.0.1', '169.254.169.254', '224.0.0.1', '::', 'fe80::1', 'fc00::1', '::1%lo', '::ffff:10.0.0.1', '64:ff9b::a9fe:a9fe', 'localhost', '127.1'];

  it.each(loopback)('allowLoopback lets %s through', (address) => {
    expect(isBlockedAddress(address, { allowLoopback: true })).toBe(false);
  });

  it.each(stillBlocked)('allowLoopback still blocks %s', (address) => {
    expect(isBlockedAddress(address, { allowLoopback: true })).toBe(true);
  });

  it('reads STUB_ALLOW_LOOPBACK=1 only', () => {
    expect(allowLoopbackFromEnv({ STUB_ALLOW_LOOPBACK: '1' })).toBe(true);
    for (const value of [undefined, '', '0', 'true', 'yes']) expect(allowLoopbackFromEnv({ STUB_ALLOW_LOOPBACK: value })).toBe(false);
  });

  it('follows the environment when no option is given, off by default', () => {
    vi.stubEnv('STUB_ALLOW_LOOPBACK', '');
    expect(isBlockedAddress('127.0.0.1')).toBe(true);
    vi.stubEnv('STUB_ALLOW_LOOPBACK', '1');
    expect(isBlockedAddress('127.0.0.1')).toBe(false);
    expect(isBlockedAddress('::1')).toBe(false);
    expect(isBlockedAddress('10.0.0.1')).toBe(true);
    expect(isBlockedAddress('127.0.0.1', { allowLoopback: false })).toBe(true);
  });
});

describe('createResolver with a DNS server (STUB_DNS_SERVER)', () => {
  let dns: TestDnsServer;

  beforeAll(async () => {
    dns = await startDnsServer({
      'crawl.test': ['203.0.113.7', '2001:db8::7'],
      'example.com': ['198.51.100.9'],
      'v6only.test': ['2001:db8::8'],
    });
  });
  afterAll(async () => {
    await dns.close();
  });

  it('answers A and AAAA from the server', async () => {
    const resolver = createResolver({ dnsServer: dns.address });
    expect((await resolver.resolve('crawl.test.')).sort()).toEqual(['2001:db8::7', '203.0.113.7']);
    expect(await resolver.resolve('v6only.test')).toEqual(['2001:db8::8']);
  });

  it('asks the server for documentation names instead of answering them locally', async () => {
    const resolver = createResolver({ dnsServer: dns.address });
    expect(await resolver.resolve('example.com')).toEqual(['198.51.100.9']);
    expect(dns.queries).toContain('example.com');
  });

  it('answers nothing from /etc/hosts: an unknown name, even localhost, is LookupFailed', async () => {
    const resolver = createResolver({ dnsServer: dns.address });
    await expect(resolver.resolve('unknown.test')).rejects.toThrow(LookupFailed);
    await expect(resolver.resolve('unknown.test')).rejects.toThrow(/unknown\.test did not resolve \(ENOTFOUND\)/);
    await expect(resolver.resolve('localhost')).rejects.toThrow(LookupFailed);
    expect(dns.queries).toContain('localhost');
  });

  it('resolves IP literals to themselves without asking', async () => {
    const resolver = createResolver({ dnsServer: dns.address });
    const before = dns.queries.length;
    expect(await resolver.resolve('203.0.113.9')).toEqual(['203.0.113.9']);
    expect(await resolver.resolve('[::1]')).toEqual(['::1']);
    expect(dns.queries.length).toBe(before);
  });

  it('takes the server from the environment', async () => {
    expect(await resolverFromEnv({ STUB_DNS_SERVER: dns.address }).resolve('crawl.test')).toContain('203.0.113.7');
    vi.stubEnv('STUB_DNS_SERVER', dns.address);
    expect(await createResolver().resolve('example.com')).toEqual(['198.51.100.9']);
  });

  it('keeps the documentation shortcut without a server', async () => {
    vi.stubEnv('STUB_DNS_SERVER', dns.address);
    expect(await createResolver({ dnsServer: '' }).resolve('www.example.com')).toEqual([documentationAddress]);
    expect(await resolverFromEnv({}).resolve('example.org')).toEqual([documentationAddress]);
  });

  it('fails with LookupFailed when the server does not answer in time', async () => {
    const silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    try {
      const resolver = createResolver({ dnsServer: `127.0.0.1:${silent.address().port}`, timeoutMs: 200 });
      await expect(resolver.resolve('crawl.test')).rejects.toThrow(LookupFailed);
    } finally {
      silent.close();
    }
  });

  it('rejects a malformed server at creation', () => {
    expect(() => createResolver({ dnsServer: 'dns.invalid:53' })).toThrow();
  });
});
