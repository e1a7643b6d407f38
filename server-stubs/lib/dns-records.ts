import { Resolver as DnsResolver } from 'node:dns/promises';
import { LookupFailed, NO_RECORDS, withinTime } from './net-guard.js';

/**
 * Look-ups of the records mail deliverability reads (MX, TXT, CNAME), injectable so a stub can be
 * pointed at a crafted zone. The default asks the system's DNS servers, or `STUB_DNS_SERVER`
 * (CONVENTIONS §6) when that is set.
 *
 * "No such record" is an answer (an empty list): a domain without MX is a fact a check reports.
 * A look-up that could not be answered (timeout, SERVFAIL, refused) throws `LookupFailed`, so a
 * check can say "unknown" instead of claiming the record is missing.
 */
export interface RecordResolver {
  /** Each TXT record as one string (its character-strings joined, as RFC 7208 reads SPF). */
  txt(name: string): Promise<string[]>;
  /** Sorted by preference, lowest first. */
  mx(name: string): Promise<MxRecord[]>;
  cname(name: string): Promise<string[]>;
  /** IPv4 and IPv6 addresses (A and AAAA) of a name, for forward-confirming a PTR name. */
  addresses(name: string): Promise<string[]>;
}

export interface MxRecord {
  exchange: string;
  priority: number;
}

export interface RecordResolverOptions {
  timeoutMs?: number;
  /** `host:port` of the DNS server to ask. Not given: `STUB_DNS_SERVER`; empty: the system's servers. */
  dnsServer?: string;
}

export function createRecordResolver(options: RecordResolverOptions = {}): RecordResolver {
  const timeoutMs = options.timeoutMs ?? 3000;
  const dnsServer = options.dnsServer ?? process.env.STUB_DNS_SERVER;
  const server = new DnsResolver({ timeout: timeoutMs, tries: 1 });
  if (dnsServer) server.setServers([dnsServer]); // a malformed value throws at start, not at the first look-up

  async function ask<T>(kind: string, name: string, query: (host: string) => Promise<T[]>): Promise<T[]> {
    const host = name.trim().replace(/\.$/, '').toLowerCase();
    try {
      return await withinTime(query(host), timeoutMs, `${kind} look-up of ${host} timed out`);
    } catch (error) {
      if (error instanceof LookupFailed) throw error;
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      if (NO_RECORDS.has(code)) return [];
      throw new LookupFailed(`${kind} look-up of ${host} failed (${code})`);
    }
  }

  return {
    txt: (name) => ask('TXT', name, async (host) => (await server.resolveTxt(host)).map((chunks) => chunks.join(''))),
    mx: (name) => ask('MX', name, async (host) => (await server.resolveMx(host)).sort((a, b) => a.priority - b.priority)),
    cname: (name) => ask('CNAME', name, (host) => server.resolveCname(host)),
    addresses: async (name) => [...(await ask('A', name, (host) => server.resolve4(host))), ...(await ask('AAAA', name, (host) => server.resolve6(host)))],
  };
}

