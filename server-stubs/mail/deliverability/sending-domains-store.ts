import { createPublicKey, randomBytes, randomUUID } from 'node:crypto';
import type { components } from '../../../generated/mail/types.gen.js';
import type { Clock } from '../../lib/clock.js';
import type { RecordResolver } from '../../lib/dns-records.js';
import type { Collection, StateStore } from '../../lib/store.js';
import type { MailEventBus } from '../events.js';
import { checkSendingRecords, type SendingCheck, type SendingExpectations } from './dns-check.js';

type DnsRecord = components['schemas']['SendingDomain']['dns_records'][number];
export type SendingStatus = components['schemas']['SendingDomain']['status'];

/** What every sending domain is asked to publish points at these hosts of the service (designed; see the contract). */
export const sendingHosts = {
  spfInclude: 'spf.mail.platform.example',
  returnPathTarget: 'bounces.mail.platform.example',
  dkimSelector: 'svc',
} as const;

/** Designed cadence (the contract's `SendingDomain` documents it): checks of pending domains on the stub clock. */
export const verification = {
  /** `runDue` re-checks a pending domain this long after its last check */
  recheckEveryMs: 10 * 60_000,
  /** a list re-checks a pending domain whose last check is at least this old */
  listRecheckAfterMs: 60_000,
  /** still missing SPF or DKIM this long after creation: `failed` */
  giveUpAfterMs: 72 * 3600_000,
} as const;

export interface SendingDomainRecord {
  id: string;
  userId: string;
  domain: string;
  status: SendingStatus;
  expected: SendingExpectations;
  valid: SendingCheck;
  createdAt: number;
  verifiedAt: number | null;
  lastCheckedAt: number;
}

/**
 * The DKIM `p=` value: base64 of the DER SubjectPublicKeyInfo (RFC 6376 §3.6.1) of a 2048-bit RSA
 * key. The stub signs nothing, so no private key exists to keep: the modulus is 2048 random bits
 * (top bit set, odd) rather than the product of two primes: their search was most of the cost of
 * adding a domain, for a private key thrown away at once.
 */
function newDkimPublicKey(): string {
  const modulus = randomBytes(256);
  modulus[0]! |= 0x80;
  modulus[255]! |= 0x01;
  const publicKey = createPublicKey({ key: { kty: 'RSA', n: modulus.toString('base64url'), e: 'AQAB' }, format: 'jwk' });
  return publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
}

/** The records a domain is asked to publish, with the result of its last check. */
export function dnsRecordsOf(d: SendingDomainRecord): DnsRecord[] {
  return [
    { type: 'TXT', purpose: 'spf', name: d.domain, value: `v=spf1 include:${d.expected.spfInclude} ~all`, valid: d.valid.spf },
    { type: 'TXT', purpose: 'dkim', name: `${d.expected.dkimSelector}._domainkey.${d.domain}`, value: `v=DKIM1; k=rsa; p=${d.expected.dkimPublicKey}`, valid: d.valid.dkim },
    { type: 'TXT', purpose: 'dmarc', name: `_dmarc.${d.domain}`, value: `v=DMARC1; p=quarantine; rua=mailto:dmarc@${d.domain}`, valid: d.valid.dmarc },
    { type: 'CNAME', purpose: 'return_path', name: d.expected.returnPathName, value: d.expected.returnPathTarget, valid: d.valid.returnPath },
  ];
}

/**
 * Sending domains per user and their verification: `pending` until SPF and DKIM are found
 * (`verified`), or `failed` when they are still missing 72 hours after creation. Checks run at
 * creation, when a list is read and from `runDue` (the stub clock); the outcome is announced on the bus.
 */
export class SendingDomainsStore {
  private readonly clock: Clock;
  private readonly domains: Collection<SendingDomainRecord>;

  constructor(
    state: StateStore,
    private dns: RecordResolver,
    private events: MailEventBus,
  ) {
    this.clock = state.clock;
    this.domains = state.collection('sendingDomains.domains', { tenantOf: (d) => d.userId, createdAtOf: (d) => d.createdAt });
  }

  /** The user's domains, newest first. */
  of(userId: string): SendingDomainRecord[] {
    return this.domains.newest(userId);
  }

  byDomain(userId: string, domain: string): SendingDomainRecord | undefined {
    return this.of(userId).find((d) => d.domain === domain);
  }

  /** A new pending domain with a fresh DKIM key, checked at once; undefined when the user added it meanwhile. */
  async add(userId: string, domain: string): Promise<SendingDomainRecord | undefined> {
    const dkimPublicKey = newDkimPublicKey();
    if (this.byDomain(userId, domain)) return undefined;
    const now = this.clock.now();
    const record: SendingDomainRecord = {
      id: randomUUID(),
      userId,
      domain,
      status: 'pending',
      expected: { spfInclude: sendingHosts.spfInclude, dkimSelector: sendingHosts.dkimSelector, dkimPublicKey, returnPathName: `bounces.${domain}`, returnPathTarget: sendingHosts.returnPathTarget },
      valid: { spf: false, dkim: false, dmarc: false, returnPath: false },
      createdAt: now,
      verifiedAt: null,
      lastCheckedAt: now,
    };
    this.domains.set(record.id, record);
    await this.check(record);
    return record;
  }

  delete(userId: string, id: string): boolean {
    return this.domains.ownedBy(userId, id) !== undefined && this.domains.delete(id);
  }

  /** Before a list is shown: pending domains of the user not checked in the last minute. */
  async recheckPendingOf(userId: string): Promise<void> {
    const now = this.clock.now();
    await Promise.all(this.of(userId).filter((d) => d.status === 'pending' && now - d.lastCheckedAt >= verification.listRecheckAfterMs).map((d) => this.check(d)));
  }

  /** Re-checks the DNS of pending domains that fell due; `POST /_stub/clock` waits for it. */
  async runDue(): Promise<void> {
    const now = this.clock.now();
    const due = this.domains.filter(
      (d) => d.status === 'pending' && (now - d.lastCheckedAt >= verification.recheckEveryMs || now - d.createdAt >= verification.giveUpAfterMs),
    );
    await Promise.all(due.map((d) => this.check(d)));
  }

  /** One check and the transition it leads to; a domain deleted meanwhile is left alone. */
  private async check(record: SendingDomainRecord): Promise<void> {
    const valid = await checkSendingRecords(this.dns, record.domain, record.expected);
    if (record.status !== 'pending' || this.domains.get(record.id) !== record) return;
    const now = this.clock.now();
    record.valid = valid;
    record.lastCheckedAt = now;
    const announce = { userId: record.userId, domainId: record.id, domain: record.domain };
    if (valid.spf && valid.dkim) {
      record.status = 'verified';
      record.verifiedAt = now;
      this.events.emit('domain.verified', announce);
    } else if (now - record.createdAt >= verification.giveUpAfterMs) {
      record.status = 'failed';
      this.events.emit('domain.failed', announce);
    }
  }
}
