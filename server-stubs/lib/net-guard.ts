import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Resolves a host name to its addresses; injectable so tests and offline runs need no DNS. */
export interface Resolver {
  resolve(hostname: string): Promise<string[]>;
}

export class LookupFailed extends Error {}

/**
 * Names under the documentation domains (RFC 2606/6761: example.com, example.org, example.net and
 * the `.example` TLD) answer with a fixed documentation address (RFC 5737), which is public in the
 * sense that matters here: not loopback, private or link-local. So a crawl or a webhook can be tried
 * offline. Every other name goes to the system resolver.
 */
export const documentationAddress = '192.0.2.10';

export function isDocumentationName(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return /(^|\.)example\.(com|org|net)$/.test(host) || /(^|\.)example$/.test(host);
}

export function createResolver(options: { timeoutMs?: number } = {}): Resolver {
  const timeoutMs = options.timeoutMs ?? 3000;
  return {
    async resolve(hostname) {
      const host = hostname.replace(/^\[|\]$/g, '');
      if (isIP(host)) return [host];
      if (isDocumentationName(host)) return [documentationAddress];
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        const answers = await Promise.race([
          lookup(host, { all: true, verbatim: true }),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new LookupFailed(`lookup of ${host} timed out`)), timeoutMs);
          }),
        ]);
        if (answers.length === 0) throw new LookupFailed(`${host} has no address`);
        return answers.map((a) => a.address);
      } catch (error) {
        if (error instanceof LookupFailed) throw error;
        throw new LookupFailed(`${host} did not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

const blocked = new BlockList();
blocked.addSubnet('0.0.0.0', 8, 'ipv4'); // "this network", reaches the local host on many systems
blocked.addSubnet('127.0.0.0', 8, 'ipv4'); // loopback
blocked.addSubnet('10.0.0.0', 8, 'ipv4'); // private
blocked.addSubnet('172.16.0.0', 12, 'ipv4'); // private
blocked.addSubnet('192.168.0.0', 16, 'ipv4'); // private
blocked.addSubnet('100.64.0.0', 10, 'ipv4'); // shared (carrier-grade NAT), private in practice
blocked.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, cloud metadata endpoints
blocked.addAddress('::', 'ipv6');
blocked.addAddress('::1', 'ipv6'); // loopback
blocked.addSubnet('fc00::', 7, 'ipv6'); // unique local (private)
blocked.addSubnet('fe80::', 10, 'ipv6'); // link-local

/** True for loopback, private and link-local addresses (IPv4, IPv6 and IPv4-mapped IPv6). */
export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
