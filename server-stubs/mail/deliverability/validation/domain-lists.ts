import { createRequire } from 'node:module';

/**
 * The maintained domain lists (disposable-email-domains, email-providers), read once on first use:
 * together some 130 000 names, which a stub that never validates should not load.
 */
const load = createRequire(import.meta.url);
let disposable: Set<string> | undefined;
let free: Set<string> | undefined;

const disposableDomains = () => (disposable ??= new Set(load('disposable-email-domains') as string[]));
const freeDomains = () => (free ??= new Set(load('email-providers/all.json') as string[]));

/** The name and each parent under its top-level domain: `a.b.example.com` → itself, `b.example.com`, `example.com`. */
function withParents(asciiDomain: string): string[] {
  const labels = asciiDomain.split('.');
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
}

/** On the disposable list, itself or a parent (throwaway services hand out subdomains). */
export function isDisposable(asciiDomain: string): boolean {
  const list = disposableDomains();
  return withParents(asciiDomain).some((name) => list.has(name));
}

/** A free mailbox provider; a domain also on the disposable list is disposable, not free. */
export function isFreeProvider(asciiDomain: string): boolean {
  return freeDomains().has(asciiDomain) && !isDisposable(asciiDomain);
}

/**
 * Local parts that name a function rather than a person (RFC 2142 mailbox names and their common
 * kin). No maintained npm list exists; this one is designed and documented in the contract.
 */
const roleLocalParts = new Set([
  'abuse', 'admin', 'administrator', 'billing', 'contact', 'help', 'hello', 'hostmaster', 'info', 'jobs', 'marketing',
  'noc', 'no-reply', 'noreply', 'office', 'postmaster', 'privacy', 'sales', 'security', 'support', 'team', 'webmaster',
]);

/** `Support+eu@x` is still the support mailbox: the sub-address tag is left out. */
export function isRoleAccount(local: string): boolean {
  return roleLocalParts.has(local.toLowerCase().split('+')[0]!);
}

/**
 * Mailbox providers recognized from the host names of a domain's MX records (designed; the
 * contract's `provider` lists them). Suffixes match whole labels: `aspmx.l.google.com` is Google.
 */
const mxProviders: ReadonlyArray<[suffix: string, provider: string]> = [
  ['google.com', 'Google'],
  ['googlemail.com', 'Google'],
  ['outlook.com', 'Microsoft'],
  ['hotmail.com', 'Microsoft'],
  ['yahoodns.net', 'Yahoo'],
  ['icloud.com', 'Apple'],
  ['zoho.com', 'Zoho'],
  ['zoho.eu', 'Zoho'],
  ['protonmail.ch', 'Proton'],
  ['messagingengine.com', 'Fastmail'],
  ['yandex.net', 'Yandex'],
  ['yandex.ru', 'Yandex'],
  ['mimecast.com', 'Mimecast'],
  ['pphosted.com', 'Proofpoint'],
];

/** The provider of the most preferred MX host that is recognized, or null. */
export function providerOf(exchanges: readonly string[]): string | null {
  for (const exchange of exchanges) {
    const host = exchange.toLowerCase().replace(/\.$/, '');
    const match = mxProviders.find(([suffix]) => host === suffix || host.endsWith(`.${suffix}`));
    if (match) return match[1];
  }
  return null;
}
