import type { components } from '../../../../generated/mail/types.gen.js';
import type { Clock } from '../../../lib/clock.js';
import type { RecordResolver } from '../../../lib/dns-records.js';
import { LookupFailed } from '../../../lib/net-guard.js';
import { isDisposable, isFreeProvider, isRoleAccount, providerOf } from './domain-lists.js';
import { parseAddress } from './syntax.js';
import { classOf, isValid, scoreOf, type MxState, type ResultClass } from './verdict.js';

export type ValidationResult = components['schemas']['ValidationResult'];

export interface Validated {
  result: ValidationResult;
  class: ResultClass;
}

interface MxAnswer {
  state: MxState;
  exchanges: string[];
}

/** Look-ups in flight at once: a batch of 500 addresses on 500 domains should not flood the resolver. */
const lookupConcurrency = 64;

/**
 * Validates each distinct address once (repeats get the same result) and each distinct domain's
 * MX once. No SMTP probe is made: the stub never connects to a mail server, so `checks.smtp` and
 * `flags.catch_all` are null, probe asked for or not (the contract allows null for "inconclusive").
 */
export async function validateAddresses(addresses: readonly string[], dns: RecordResolver, clock: Clock): Promise<Validated[]> {
  const distinct = [...new Set(addresses)];
  const parsed = new Map(distinct.map((raw) => [raw, parseAddress(raw)] as const));
  const domains = [...new Set([...parsed.values()].flatMap((p) => (p.valid ? [p.asciiDomain] : [])))];
  const mx = await lookUpAll(domains, dns);
  const verifiedAt = new Date(clock.now()).toISOString();
  const done = new Map<string, Validated>();
  for (const [raw, address] of parsed) {
    const answer: MxAnswer = address.valid ? mx.get(address.asciiDomain)! : { state: 'unchecked', exchanges: [] };
    const flags = address.valid
      ? { disposable: isDisposable(address.asciiDomain), role_account: isRoleAccount(address.local), catch_all: null, free_provider: isFreeProvider(address.asciiDomain) }
      : { disposable: false, role_account: false, catch_all: null, free_provider: false };
    const findings = { syntax: address.valid, mx: answer.state, smtp: null, catchAll: flags.catch_all, disposable: flags.disposable, roleAccount: flags.role_account };
    done.set(raw, {
      class: classOf(findings),
      result: {
        email: raw,
        is_valid: isValid(findings),
        score: scoreOf(findings),
        checks: { syntax: address.valid, mx: answer.state === 'found', smtp: null },
        flags,
        domain: address.domain,
        provider: providerOf(answer.exchanges),
        mx_records: answer.exchanges,
        verified_at: verifiedAt,
      },
    });
  }
  return addresses.map((raw) => done.get(raw)!);
}

async function lookUpAll(domains: string[], dns: RecordResolver): Promise<Map<string, MxAnswer>> {
  const answers = new Map<string, MxAnswer>();
  const queue = [...domains];
  const worker = async () => {
    for (let domain = queue.shift(); domain !== undefined; domain = queue.shift()) answers.set(domain, await lookUp(domain, dns));
  };
  await Promise.all(Array.from({ length: Math.min(lookupConcurrency, domains.length) }, worker));
  return answers;
}

async function lookUp(domain: string, dns: RecordResolver): Promise<MxAnswer> {
  try {
    // A null MX (RFC 7505: one record, exchange ".", which resolvers hand back as "") says "no mail here".
    const exchanges = (await dns.mx(domain)).map((r) => r.exchange.replace(/\.$/, '').toLowerCase()).filter((host) => host !== '');
    return { state: exchanges.length ? 'found' : 'none', exchanges };
  } catch (error) {
    if (error instanceof LookupFailed) return { state: 'unanswered', exchanges: [] };
    throw error;
  }
}
