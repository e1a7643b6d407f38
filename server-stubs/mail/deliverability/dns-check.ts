import validator from 'validator';
import type { components } from '../../../generated/mail/types.gen.js';
import type { RecordResolver } from '../../lib/dns-records.js';
import { LookupFailed } from '../../lib/net-guard.js';

/**
 * The ONE place that reads and judges a domain's SPF, DKIM, DMARC and MX records, for DMARC
 * monitoring (a full check with a score) and for sending domains (are the records we asked for
 * published). Every issue is a sentence the domain's owner can act on. A look-up the DNS server
 * could not answer is reported as "could not be checked", never as a missing record.
 */
export type DnsCheck = components['schemas']['DnsCheck'];
export type DmarcPolicy = DnsCheck['dmarc']['policy'];
type Mx = DnsCheck['mx'][number];

/** Lower case, without the trailing dot: the form a domain is stored and compared in. */
export const normalizedDomain = (domain: string) => domain.trim().toLowerCase().replace(/\.$/, '');

/** A host name with a top-level domain (the schema's `hostname` format also lets `localhost` and `1.2.3.4` through). */
export const isDomainName = (domain: string) =>
  validator.isFQDN(domain, { require_tld: true, allow_trailing_dot: true, allow_numeric_tld: false, allow_underscores: false });

/** A DKIM selector forms the DNS name `<selector>._domainkey.<domain>`: dot-separated labels of 1-63 letters, digits, `-`, `_`. */
export const isDkimSelector = (selector: string) =>
  selector.length <= 200 && selector.split('.').every((label) => /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/.test(label));

const unreachable = (what: string, name: string, error: LookupFailed) =>
  `The ${what} record at ${name} could not be checked: the DNS server did not answer (${error.message}); check again later.`;

/** `undefined` when the look-up could not be answered (the issue says so), else the records. */
async function lookUp<T>(issues: string[], what: string, name: string, query: () => Promise<T[]>): Promise<T[] | undefined> {
  try {
    return await query();
  } catch (error) {
    if (!(error instanceof LookupFailed)) throw error;
    issues.push(unreachable(what, name, error));
    return undefined;
  }
}

/** `k=v; k=v` tag lists of DKIM (RFC 6376 §3.2) and DMARC (RFC 7489 §6.4): tag names lower-cased, the first occurrence wins. */
function tagsOf(record: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of record.split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const name = part.slice(0, at).trim().toLowerCase();
    if (name && !tags.has(name)) tags.set(name, part.slice(at + 1).trim());
  }
  return tags;
}

const startsWithTag = (record: string, version: string) => new RegExp(`^\\s*v\\s*=\\s*${version}\\s*(;|$)`, 'i').test(record);

export interface SpfResult {
  valid: boolean;
  value: string;
  issues: string[];
  /** answered by the DNS server (false: could not be checked) */
  checked: boolean;
  /** ends with `?all` or has no `all`: published, but leaves failing mail undecided */
  lenient: boolean;
}

/** Exactly one `v=spf1` TXT record at the root; `+all` (anyone may send) makes it worthless, `?all` and a missing `all` are weak. */
export async function checkSpf(dns: RecordResolver, domain: string): Promise<SpfResult> {
  const issues: string[] = [];
  const txt = await lookUp(issues, 'SPF', domain, () => dns.txt(domain));
  if (!txt) return { valid: false, value: '', issues, checked: false, lenient: false };
  const spf = txt.filter((r) => /^v=spf1(\s|$)/i.test(r.trim()));
  if (spf.length === 0) {
    issues.push(`No SPF record found at ${domain}: publish one TXT record starting "v=spf1" that lists the servers sending for ${domain}, ending with "~all" or "-all".`);
    return { valid: false, value: '', issues, checked: true, lenient: false };
  }
  const value = spf[0]!.trim();
  if (spf.length > 1) {
    issues.push(`Publish one SPF record: found ${spf.length} at ${domain}; merge them into a single "v=spf1" record (receivers treat several as an error).`);
    return { valid: false, value, issues, checked: true, lenient: false };
  }
  const terms = value.toLowerCase().split(/\s+/).slice(1);
  const all = terms.find((t) => /^[+?~-]?all$/.test(t));
  if (all === 'all' || all === '+all') {
    issues.push(`The SPF record at ${domain} ends with "${all}", which lets any server on the internet send as ${domain}: replace it with "~all" or "-all".`);
    return { valid: false, value, issues, checked: true, lenient: false };
  }
  let lenient = false;
  if (all === '?all') {
    issues.push(`The SPF record at ${domain} ends with "?all" (neutral), so mail from servers it does not list is not marked as failing: replace it with "~all" or "-all".`);
    lenient = true;
  } else if (!all && !terms.some((t) => t.startsWith('redirect='))) {
    issues.push(`The SPF record at ${domain} has no "all" mechanism, so mail from servers it does not list is not marked as failing: end it with "~all" or "-all".`);
    lenient = true;
  }
  return { valid: true, value, issues, checked: true, lenient };
}

export interface DkimResult {
  valid: boolean;
  value: string | null;
  issues: string[];
  checked: boolean;
  /** the published public key (`p=`), when there is one */
  publicKey: string | null;
}

/** A `v=DKIM1` TXT record at `<selector>._domainkey.<domain>` with a non-empty base64 `p=` key. */
export async function checkDkim(dns: RecordResolver, domain: string, selector: string): Promise<DkimResult> {
  const name = `${selector}._domainkey.${domain}`;
  const issues: string[] = [];
  const txt = await lookUp(issues, 'DKIM', name, () => dns.txt(name));
  if (!txt) return { valid: false, value: null, issues, checked: false, publicKey: null };
  const keys = txt.filter((r) => /(^|;)\s*(v|p)\s*=/i.test(r));
  if (keys.length === 0) {
    issues.push(`No DKIM record found at ${name}: publish the public key of the "${selector}" selector your mail provider gives you as a TXT record there (or check the selector name).`);
    return { valid: false, value: null, issues, checked: true, publicKey: null };
  }
  const value = keys[0]!.trim();
  if (keys.length > 1) {
    issues.push(`Found ${keys.length} DKIM records at ${name}: keep only the one with the key your mail provider signs with.`);
    return { valid: false, value, issues, checked: true, publicKey: null };
  }
  const tags = tagsOf(value);
  const key = (tags.get('p') ?? '').replace(/\s+/g, '');
  if (!startsWithTag(value, 'DKIM1')) issues.push(`The DKIM record at ${name} does not start with "v=DKIM1": publish it as "v=DKIM1; k=rsa; p=<public key>".`);
  if (!tags.has('p')) issues.push(`The DKIM record at ${name} carries no public key: add "p=" followed by the base64 public key of the "${selector}" selector.`);
  else if (key === '') issues.push(`The DKIM record at ${name} has an empty "p=" (the key is revoked): publish the current public key of the "${selector}" selector.`);
  else if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key)) issues.push(`The public key ("p=") of the DKIM record at ${name} is not valid base64: copy the key again from your mail provider.`);
  return { valid: issues.length === 0, value, issues, checked: true, publicKey: key || null };
}

export interface DmarcResult {
  valid: boolean;
  value: string;
  issues: string[];
  policy: DmarcPolicy;
  checked: boolean;
  /** share of failing mail the policy applies to (`pct`, default 100) */
  pct: number;
  rua: string[];
  ruf: string[];
}

const policies: ReadonlySet<string> = new Set<DmarcPolicy>(['none', 'quarantine', 'reject']);

/** Report addresses must be `mailto:` URIs (RFC 7489 §6.2), comma-separated, each optionally with a `!size` limit. */
function reportAddresses(value: string | undefined): { uris: string[]; ok: boolean } {
  if (value === undefined) return { uris: [], ok: true };
  const uris = value.split(',').map((u) => u.trim()).filter(Boolean);
  const ok = uris.length > 0 && uris.every((u) => /^mailto:[^@\s]+@[^@\s!]+(![0-9]+[kmgt]?)?$/i.test(u));
  return { uris, ok };
}

/** The `v=DMARC1` TXT record at `_dmarc.<domain>`: policy `p`, `pct`, `rua`, `ruf` parsed and judged. */
export async function checkDmarc(dns: RecordResolver, domain: string): Promise<DmarcResult> {
  const name = `_dmarc.${domain}`;
  const issues: string[] = [];
  const none = { policy: 'none' as const, pct: 100, rua: [], ruf: [] };
  const txt = await lookUp(issues, 'DMARC', name, () => dns.txt(name));
  if (!txt) return { valid: false, value: '', issues, checked: false, ...none };
  const records = txt.filter((r) => /^\s*v\s*=\s*DMARC1/i.test(r));
  if (records.length === 0) {
    issues.push(`No DMARC record found at ${name}: publish "v=DMARC1; p=none; rua=mailto:dmarc@${domain}" to start receiving reports, then move to p=quarantine and p=reject.`);
    return { valid: false, value: '', issues, checked: true, ...none };
  }
  const value = records[0]!.trim();
  if (records.length > 1) {
    issues.push(`Found ${records.length} DMARC records at ${name}: receivers ignore them all; keep a single "v=DMARC1" record.`);
    return { valid: false, value, issues, checked: true, ...none };
  }
  const tags = tagsOf(value);
  const p = (tags.get('p') ?? '').toLowerCase();
  const pctText = tags.get('pct');
  const pct = pctText === undefined ? 100 : /^\d{1,3}$/.test(pctText) && Number(pctText) <= 100 ? Number(pctText) : NaN;
  const rua = reportAddresses(tags.get('rua'));
  const ruf = reportAddresses(tags.get('ruf'));
  let valid = true;
  if (!startsWithTag(value, 'DMARC1')) {
    issues.push(`The DMARC record at ${name} must start exactly with "v=DMARC1;".`);
    valid = false;
  }
  if (!policies.has(p)) {
    issues.push(`The DMARC record at ${name} has no valid policy: it needs "p=none", "p=quarantine" or "p=reject" right after "v=DMARC1;".`);
    valid = false;
  }
  if (Number.isNaN(pct)) {
    issues.push(`The DMARC record at ${name} has an invalid "pct=${pctText}": use a whole number from 0 to 100 (or leave it out for 100).`);
    valid = false;
  }
  if (!rua.ok) issues.push(`The aggregate report address of the DMARC record at ${name} ("rua=${tags.get('rua')}") is not a list of mailto: addresses: use "rua=mailto:dmarc@${domain}".`);
  if (!ruf.ok) issues.push(`The forensic report address of the DMARC record at ${name} ("ruf=${tags.get('ruf')}") is not a list of mailto: addresses: use "ruf=mailto:dmarc@${domain}".`);
  const policy: DmarcPolicy = policies.has(p) ? (p as DmarcPolicy) : 'none';
  if (valid) {
    if (rua.uris.length === 0) issues.push(`The DMARC record at ${name} asks for no reports: add "rua=mailto:dmarc@${domain}" to see who sends mail as ${domain}.`);
    if (policy === 'none') issues.push(`The DMARC policy of ${domain} is "none", so mail failing SPF and DKIM is still delivered: once the reports show only your own senders, move to "p=quarantine", then "p=reject".`);
    else if (pct < 100) issues.push(`The DMARC policy of ${domain} applies to only ${pct}% of failing mail: raise "pct" to 100 (or remove it).`);
  }
  return { valid, value, issues, policy, checked: true, pct: Number.isNaN(pct) ? 100 : pct, rua: rua.ok ? rua.uris : [], ruf: ruf.ok ? ruf.uris : [] };
}

/** MX records at the root, lowest preference first; none (or unanswerable) is an empty list: MX is optional. */
export async function checkMx(dns: RecordResolver, domain: string): Promise<{ records: Mx[]; checked: boolean }> {
  try {
    return { records: (await dns.mx(domain)).map(({ priority, exchange }) => ({ priority, exchange })), checked: true };
  } catch (error) {
    if (error instanceof LookupFailed) return { records: [], checked: false };
    throw error;
  }
}

/**
 * The score (documented on `MonitoredDomain.overall_score`): SPF 25 (15 when lenient), DKIM 25,
 * DMARC record 5 plus its policy (reject 35, quarantine 20, none 0) times pct/100, report address
 * (rua) 5, MX 5. A `reject` set-up (SPF + DKIM + DMARC p=reject, pct 100) scores at least 90.
 */
export function scoreOf(spf: SpfResult, dkim: DkimResult, dmarc: DmarcResult, mx: Mx[]): number {
  const policyPoints = { reject: 35, quarantine: 20, none: 0 }[dmarc.policy];
  let score = 0;
  if (spf.valid) score += spf.lenient ? 15 : 25;
  if (dkim.valid) score += 25;
  if (dmarc.valid) score += 5 + Math.round((policyPoints * dmarc.pct) / 100) + (dmarc.rua.length > 0 ? 5 : 0);
  if (mx.length > 0) score += 5;
  return score;
}

export type HealthStatus = 'healthy' | 'good' | 'warning' | 'critical' | 'unknown';

/** The published bands as a status; `unknown` when a record could not be checked, so a DNS outage does not read as a broken set-up. */
export function statusOf(score: number, allChecked: boolean): HealthStatus {
  if (!allChecked) return 'unknown';
  if (score >= 90) return 'healthy';
  if (score >= 70) return 'good';
  if (score >= 50) return 'warning';
  return 'critical';
}

export interface FullCheck {
  dnsCheck: DnsCheck;
  status: HealthStatus;
}

/** Every record of a monitored domain, looked up in parallel so one check waits at most one resolver timeout. */
export async function fullCheck(dns: RecordResolver, domain: string, selector: string): Promise<FullCheck> {
  const [spf, dkim, dmarc, mx] = await Promise.all([checkSpf(dns, domain), checkDkim(dns, domain, selector), checkDmarc(dns, domain), checkMx(dns, domain)]);
  const overallScore = scoreOf(spf, dkim, dmarc, mx.records);
  return {
    dnsCheck: {
      spf: { valid: spf.valid, value: spf.value, issues: spf.issues },
      dkim: { valid: dkim.valid, value: dkim.value, issues: dkim.issues },
      dmarc: { valid: dmarc.valid, value: dmarc.value, issues: dmarc.issues, policy: dmarc.policy },
      mx: mx.records,
      overallScore,
    },
    status: statusOf(overallScore, spf.checked && dkim.checked && dmarc.checked && mx.checked),
  };
}

/** What a sending domain was asked to publish. */
export interface SendingExpectations {
  spfInclude: string;
  dkimSelector: string;
  dkimPublicKey: string;
  returnPathName: string;
  returnPathTarget: string;
}

export interface SendingCheck {
  spf: boolean;
  dkim: boolean;
  dmarc: boolean;
  returnPath: boolean;
}

const sameHost = (a: string, b: string) => normalizedDomain(a) === normalizedDomain(b);

/**
 * Whether each record a sending domain must publish is there: the root's single SPF record includes
 * ours, the DKIM record carries our key, a valid DMARC record exists, the return path points at our
 * bounce host. A look-up that could not be answered counts as not (yet) there.
 */
export async function checkSendingRecords(dns: RecordResolver, domain: string, expected: SendingExpectations): Promise<SendingCheck> {
  const cname = async () => {
    try {
      return (await dns.cname(expected.returnPathName)).some((target) => sameHost(target, expected.returnPathTarget));
    } catch (error) {
      if (error instanceof LookupFailed) return false;
      throw error;
    }
  };
  const [spf, dkim, dmarc, returnPath] = await Promise.all([checkSpf(dns, domain), checkDkim(dns, domain, expected.dkimSelector), checkDmarc(dns, domain), cname()]);
  const includes = spf.valid && spf.value.toLowerCase().split(/\s+/).some((t) => t.replace(/^\+/, '') === `include:${expected.spfInclude}`);
  return { spf: includes, dkim: dkim.valid && dkim.publicKey === expected.dkimPublicKey, dmarc: dmarc.valid, returnPath };
}
