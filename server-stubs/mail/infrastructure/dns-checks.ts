import type { RecordResolver } from '../../lib/dns-records.js';
import { LookupFailed } from '../../lib/net-guard.js';
import { normalizedDomain } from '../deliverability/dns-check.js';
import { inboundExchanges } from './inbound-routes.js';

/**
 * Whether the domain publishes one of the service's inbound MX hosts; `undefined` when the DNS
 * server did not answer (the route stays pending rather than being judged on no answer).
 */
export async function publishesInboundMx(dns: RecordResolver, domain: string): Promise<boolean | undefined> {
  try {
    const ours = new Set<string>(inboundExchanges.map((mx) => mx.exchange));
    return (await dns.mx(domain)).some((mx) => ours.has(normalizedDomain(mx.exchange)));
  } catch (error) {
    if (error instanceof LookupFailed) return undefined;
    throw error;
  }
}

export type ForwardCheck = { confirmed: true } | { confirmed: false; reason: string };

/**
 * Forward-confirmed reverse DNS: a PTR name is only believed when it resolves back to the IP,
 * otherwise receivers distrust the IP.
 */
export async function resolvesTo(dns: RecordResolver, name: string, ip: string): Promise<ForwardCheck> {
  try {
    const found = await dns.addresses(normalizedDomain(name));
    if (found.includes(ip)) return { confirmed: true };
    if (found.length === 0) return { confirmed: false, reason: `reverse_dns must resolve to the IP: ${name} has no address` };
    return { confirmed: false, reason: `reverse_dns must resolve to the IP: ${name} resolves to ${found.join(', ')}, not ${ip}` };
  } catch (error) {
    if (!(error instanceof LookupFailed)) throw error;
    return { confirmed: false, reason: `reverse_dns must resolve to the IP: ${name} could not be resolved (${error.message})` };
  }
}
