import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';

export interface Address {
  email: string;
  name?: string;
}

export type OutboxStatus = 'queued' | 'delivered' | 'failed';

/** A message the stub accepted for delivery, or captured in the sandbox. */
export interface OutboxMessage {
  id: string;
  userId: string;
  from: Address;
  to: Address[];
  subject: string;
  html: string | null;
  text: string | null;
  /** captured by `X-Service-Sandbox`: never delivered, listed by `GET /v1/sandbox` */
  sandbox: boolean;
  /** the campaign this message is one recipient's copy of; null for a transactional send */
  campaignId: string | null;
  /** the A/B test variant the copy carries; null outside a test group */
  variantId: string | null;
  status: OutboxStatus;
  /** why delivery failed (the relay's answer), when it did */
  error: string | null;
  createdAt: number;
  deliveredAt: number | null;
}

/** The calendar month (UTC) an instant falls in, as its first millisecond: the period monthly quotas count in. */
export function monthStart(epochMs: number): number {
  const at = new Date(epochMs);
  return Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1);
}

/** Every message accepted per user: delivered ones count toward the monthly quota, sandboxed ones are the sandbox. */
export class Outbox {
  private readonly clock: Clock;
  /** by id, in the order they were accepted */
  private readonly messages: Collection<OutboxMessage>;
  /** copies by campaign, derived from the messages: campaign counters look them up on every list */
  private byCampaign = new Map<string, OutboxMessage[]>();

  constructor(state: StateStore) {
    this.clock = state.clock;
    this.messages = state.collection('outbox.messages', { tenantOf: (m) => m.userId });
    state.onReplaced(() => this.indexCampaigns());
  }

  add(message: Omit<OutboxMessage, 'id' | 'status' | 'error' | 'createdAt' | 'deliveredAt'>): OutboxMessage {
    const record: OutboxMessage = { ...message, id: randomUUID(), status: 'queued', error: null, createdAt: this.clock.now(), deliveredAt: null };
    this.messages.set(record.id, record);
    this.indexCopy(record);
    return record;
  }

  /** The user's messages, newest first; `sandbox` picks the captured ones or the real ones. */
  of(userId: string, sandbox: boolean): OutboxMessage[] {
    return this.messages.of(userId, (m) => m.sandbox === sandbox).reverse();
  }

  /** Every message of the user, sandboxed ones included, in the order they were accepted. */
  all(userId: string): OutboxMessage[] {
    return this.messages.of(userId);
  }

  get(id: string): OutboxMessage | undefined {
    return this.messages.get(id);
  }

  /** Every copy a campaign sent, sandboxed ones included. */
  ofCampaign(campaignId: string): OutboxMessage[] {
    return [...(this.byCampaign.get(campaignId) ?? [])];
  }

  clearSandbox(userId: string): void {
    for (const m of this.messages.of(userId, (m) => m.sandbox)) this.messages.delete(m.id);
    this.indexCampaigns();
  }

  private indexCampaigns(): void {
    this.byCampaign = new Map();
    for (const m of this.messages) this.indexCopy(m);
  }

  private indexCopy(message: OutboxMessage): void {
    if (message.campaignId === null) return;
    const copies = this.byCampaign.get(message.campaignId);
    if (copies) copies.push(message);
    else this.byCampaign.set(message.campaignId, [message]);
  }

  /** Recipients of the user's real (not sandboxed) sends this calendar month: what `emails_per_month` counts. */
  sentThisMonth(userId: string): number {
    const since = monthStart(this.clock.now());
    return this.messages.of(userId, (m) => !m.sandbox && m.createdAt >= since).reduce((n, m) => n + m.to.length, 0);
  }
}
