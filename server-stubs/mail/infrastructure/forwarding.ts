import type { SendingDomainsStore } from '../deliverability/sending-domains-store.js';
import type { AliasBook } from './aliases.js';

/**
 * Where mail received at an address is forwarded (for the receiving side, part 4): the targets of
 * every enabled alias with that address whose sending domain is still the account's and verified.
 * An alias may be created while its domain is pending; it forwards only once the domain is verified.
 */
export function forwardTargets(aliases: AliasBook, sendingDomains: SendingDomainsStore, address: string): string[] {
  const targets = aliases
    .enabledAt(address)
    .filter((a) => sendingDomains.of(a.userId).some((d) => d.id === a.domainId && d.status === 'verified'))
    .flatMap((a) => a.forwardTo);
  return [...new Set(targets)];
}
