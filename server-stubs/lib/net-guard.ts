import { lookup, Resolver as DnsResolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Resolves a host name to its addresses; injectable so tests and offline runs need no DNS. */
export interface Resolver {
  resolve(hostname: string): Promise<string[]>;
}

export class LookupFailed extends Error {}

/**
 * Names under the documentation domains (RFC 2606/6761: example.com, example.org, example.net and
 * the `.example` TLD) answer with a fixed documentation address (RFC 5737), which is public in the
 * sense that matters here: not loopback, private or link-local. So a crawl or a webhook can be tried
 * offline. Every other name goes to the system resolver, or to `STUB_DNS_SERVER` when that is set.
 */
export const documentationAddress = '192.0.2.10';

export function isDocumentationName(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return /(^|\.)example\.(com|org|net)$/.test(host) || /(^|\.)example$/.test(host);
}

export interface ResolverOptions {
  timeoutMs?: number;
  /**
   * `host:port` (IPv6 as `[host]:port`) of the DNS server that answers every name, A and AAAA, with
   * no local answers: no documentation shortcut, no /etc/hosts. Not given: `STUB_DNS_SERVER`; empty:
   * the system resolver.
   */
  dnsServer?: string;
}

/** Answers a DNS server may give for "this name has no such record" (an answer, not a failure). */
export const NO_RECORDS: ReadonlySet<string> = new Set(['ENODATA', 'ENOTFOUND']);

/** A look-up that has not answered within `timeoutMs` fails with `LookupFailed(message)`. */
export async function withinTime<T>(lookup: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      lookup,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new LookupFailed(message)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function createResolver(options: ResolverOptions = {}): Resolver {
  const timeoutMs = options.timeoutMs ?? 3000;
  const dnsServer = options.dnsServer ?? process.env.STUB_DNS_SERVER;
  let server: DnsResolver | undefined;
  if (dnsServer) {
    // One try bounded by the timeout, so no query outlives the race below.
    server = new DnsResolver({ timeout: timeoutMs, tries: 1 });
    server.setServers([dnsServer]); // throws at start on a malformed value, not on the first look-up
  }

  const ask = async (host: string): Promise<string[]> => {
    if (!server) return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    const results = await Promise.allSettled([server.resolve4(host), server.resolve6(host)]);
    const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as NodeJS.ErrnoException] : []));
    // A family that failed outright could hide an inside address: no partial answers.
    const failure = errors.find((e) => !NO_RECORDS.has(e.code ?? ''));
    if (failure) throw failure;
    const answers = results.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
    if (answers.length === 0 && errors[0]) throw errors[0];
    return answers;
  };

  return {
    async resolve(hostname) {
      const host = hostname.replace(/^\[|\]$/g, '');
      if (isIP(host)) return [host];
      if (!server && isDocumentationName(host)) return [documentationAddress];
      try {
        const answers = await withinTime(ask(host), timeoutMs, `lookup of ${host} timed out`);
        if (answers.length === 0) throw new LookupFailed(`${host} has no address`);
        return answers;
      } catch (error) {
        if (error instanceof LookupFailed) throw error;
        throw new LookupFailed(`${host} did not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      }
    },
  };
}

/** The resolver CONVENTIONS §6 describes: `STUB_DNS_SERVER` from `env`, else the system resolver. */
export function resolverFromEnv(env: NodeJS.ProcessEnv = process.env, options: { timeoutMs?: number } = {}): Resolver {
  return createResolver({ ...options, dnsServer: env.STUB_DNS_SERVER ?? '' });
}

export interface GuardOptions {
  /** Let 127.0.0.0/8 and ::1 (also embedded in IPv6) through. Not given: `STUB_ALLOW_LOOPBACK`. */
  allowLoopback?: boolean;
}

/** `STUB_ALLOW_LOOPBACK=1` (development only; anything else, or unset, keeps loopback blocked). */
export function allowLoopbackFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.STUB_ALLOW_LOOPBACK === '1';
}

const cidr = (text: string) => ipaddr.IPv6.parseCIDR(text);
const ipv4Compatible = cidr('::/96'); // deprecated, but still routed as IPv4 by some stacks
const ipv4Translated = cidr('::ffff:0:0:0/96'); // RFC 6145 (ipaddr: rfc6145)
const nat64 = cidr('64:ff9b::/96'); // RFC 6052 well-known prefix; the /48 local-use one stays blocked
const sixToFour = cidr('2002::/16');
const teredo = cidr('2001::/32');

const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/** The IPv4 addresses an IPv6 address carries, where packets to it may end up; null when none. */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const p = ip.parts;
  if (ip.isIPv4MappedAddress() || ip.match(ipv4Translated) || ip.match(nat64)) return [v4(p[6]!, p[7]!)];
  if (ip.match(ipv4Compatible)) return [v4(p[6]!, p[7]!)];
  if (ip.match(sixToFour)) return [v4(p[1]!, p[2]!)];
  // Teredo: server in bits 32-63, the client's (NAT) address inverted in the last 32 bits.
  if (ip.match(teredo)) return [v4(p[2]!, p[3]!), v4(~p[6]! & 0xffff, ~p[7]! & 0xffff)];
  return null;
}

function isBlockedIPv4(ip: ipaddr.IPv4, allowLoopback: boolean): boolean {
  const range = ip.range();
  if (range === 'loopback') return !allowLoopback;
  // The one address the documentation names resolve to, so offline crawls of example.com pass;
  // the rest of TEST-NET-1 and the other reserved ranges are not routed publicly, so a network
  // that answers on them is a local one.
  if (ip.toString() === documentationAddress) return false;
  return range !== 'unicast';
}

/**
 * True for every address an outbound request must not reach: anything ipaddr.js does not class as
 * `unicast` (loopback, private, link-local, shared, multicast, broadcast, reserved, benchmarking,
 * documentation, site-local, unique local, …) other than `documentationAddress`; IPv6 forms that
 * embed a blocked IPv4 address (mapped, translated, compatible, NAT64, 6to4, Teredo); addresses with
 * a zone id; anything that is not a strict IP literal (`[::1]` is taken as ::1). Loopback passes
 * only with `allowLoopback`.
 */
export function isBlockedAddress(address: string): boolean;
export function isBlockedAddress(address: string, options: GuardOptions): boolean;
export function isBlockedAddress(address: string, options?: GuardOptions): boolean {
  // Used as an Array#find callback the second argument is an index, not options.
  const allowLoopback = (typeof options === 'object' ? options?.allowLoopback : undefined) ?? allowLoopbackFromEnv();
  const bracketed = /^\[(.*)\]$/.exec(address);
  const literal = bracketed ? bracketed[1]! : address;
  // node's check is strict (no `127.1`, octal or hex forms that ipaddr.js and some clients accept).
  const family = isIP(literal);
  if (family === 0 || (bracketed && family !== 6)) return true;
  const ip = ipaddr.parse(literal);
  if (ip.kind() === 'ipv4') return isBlockedIPv4(ip as ipaddr.IPv4, allowLoopback);
  const ip6 = ip as ipaddr.IPv6;
  if (ip6.zoneId) return true; // only scoped (link-local, multicast) addresses take one
  const range = ip6.range();
  if (range === 'loopback') return !allowLoopback;
  if (range === 'unspecified') return true;
  const embedded = embeddedIPv4(ip6);
  if (embedded) return embedded.some((a) => isBlockedIPv4(a, allowLoopback));
  return range !== 'unicast';
}

/**
 * What a refusal tells a developer whose receiver runs on this machine: loopback (`127.0.0.1`, `::1`,
 * `localhost`; a host or a URL) is let through by `STUB_ALLOW_LOOPBACK=1`, which nothing else would tell them.
 * Empty for any other host: private and link-local addresses stay refused whatever is set.
 */
export function loopbackHint(hostOrUrl: string): string {
  const host = hostOrUrl.includes('://') ? (URL.parse(hostOrUrl)?.hostname ?? '') : hostOrUrl;
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const loopback = bare.toLowerCase() === 'localhost' || (isIP(bare) !== 0 && isBlockedAddress(bare, { allowLoopback: false }) && !isBlockedAddress(bare, { allowLoopback: true }));
  return loopback ? ' (a receiver on this machine: start the stubs with STUB_ALLOW_LOOPBACK=1, for development only)' : '';
}

/** A URL the SSRF guard refuses: not http(s), a host that did not resolve, or a blocked address. */
export class BlockedDestination extends Error {}

/**
 * The SSRF guard for one outbound URL: answers the addresses its host resolves to when every one
 * may be reached (loopback only with `allowLoopback`), else throws BlockedDestination.
 */
export async function guardedAddresses(url: URL, resolver: Resolver, options: GuardOptions = {}): Promise<string[]> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new BlockedDestination(`the URL must be http or https, not ${url.protocol}`);
  let addresses: string[];
  try {
    addresses = await resolver.resolve(url.hostname);
  } catch (error) {
    if (error instanceof LookupFailed) throw new BlockedDestination(`the host did not resolve: ${error.message}`);
    throw error;
  }
  const blocked = addresses.find((address) => isBlockedAddress(address, { allowLoopback: options.allowLoopback ?? allowLoopbackFromEnv() }));
  if (blocked) throw new BlockedDestination(`${url.hostname} resolves to ${blocked}, an address the SSRF guard refuses${loopbackHint(blocked)}`);
  return addresses;
}
