import type { Clock } from '../../lib/clock.js';
import type { Cell, Collection, StateStore } from '../../lib/store.js';

export type ProviderSource = 'fbl' | 'mailserver-a' | 'mailserver-b';

/** One thing a mail server or feedback loop reported about a sent message, in one shape whoever sent it. */
export interface EmailEventRecord {
  source: ProviderSource;
  kind: 'sent' | 'delivered' | 'delayed' | 'held' | 'bounced' | 'failed' | 'clicked' | 'complained';
  /** the outbox message the event is about, when the report named one of ours */
  messageId: string | null;
  /** the users the event was filed under (the message's sender, else every user with a contact at the address) */
  userIds: string[];
  email: string | null;
  /** when the provider says it happened (epoch ms), else when it was received */
  occurredAt: number;
  receivedAt: number;
  details: Record<string, unknown>;
}

export interface BounceRecord {
  source: Exclude<ProviderSource, 'fbl'>;
  messageId: string | null;
  userIds: string[];
  email: string;
  bounceType: 'hard' | 'soft';
  bounceCode: string | null;
  bounceMessage: string | null;
  occurredAt: number;
}

export interface DnsErrorRecord {
  domain: string | null;
  details: Record<string, unknown>;
  receivedAt: number;
}

/** What the provider webhooks recorded: email events, bounces, feedback reports and webhook ids seen. */
export class ProviderLog {
  private readonly clock: Clock;
  private readonly eventLog: Cell<EmailEventRecord[]>;
  private readonly bounceLog: Cell<BounceRecord[]>;
  private readonly dnsErrorLog: Cell<DnsErrorRecord[]>;
  /** report keys (see arf.ts) and mail-server-B request uuids already handled: a repeat changes nothing */
  private readonly seen: Collection<{ at: number }>;

  constructor(state: StateStore) {
    this.clock = state.clock;
    this.eventLog = state.cell('providerLog.events', () => []);
    this.bounceLog = state.cell('providerLog.bounces', () => []);
    this.dnsErrorLog = state.cell('providerLog.dnsErrors', () => []);
    this.seen = state.collection('providerLog.seen');
  }

  /** Every email event, in the order received. */
  get events(): EmailEventRecord[] {
    return this.eventLog.get();
  }

  get bounces(): BounceRecord[] {
    return this.bounceLog.get();
  }

  get dnsErrors(): DnsErrorRecord[] {
    return this.dnsErrorLog.get();
  }

  /** True the first time a key is offered; false for a repeat. */
  firstTime(key: string): boolean {
    if (this.seen.has(key)) return false;
    this.seen.set(key, { at: this.clock.now() });
    return true;
  }

  recordEvent(event: Omit<EmailEventRecord, 'receivedAt' | 'occurredAt'> & { occurredAt?: number | null }): EmailEventRecord {
    const receivedAt = this.clock.now();
    const record = { ...event, occurredAt: event.occurredAt ?? receivedAt, receivedAt };
    this.events.push(record);
    return record;
  }

  recordBounce(bounce: BounceRecord): void {
    this.bounces.push(bounce);
  }

  recordDnsError(domain: string | null, details: Record<string, unknown>): void {
    this.dnsErrors.push({ domain, details, receivedAt: this.clock.now() });
  }

  /** Hard-bounced addresses of a message, lower-cased. */
  hardBounced(messageId: string): Set<string> {
    return new Set(this.bounces.filter((b) => b.messageId === messageId && b.bounceType === 'hard').map((b) => b.email.toLowerCase()));
  }
}
