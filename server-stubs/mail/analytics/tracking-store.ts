import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/mail/types.gen.js';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';

type PurchaseItem = components['schemas']['PurchaseItem'];

export interface TrackedEventRecord {
  id: string;
  userId: string;
  contactId: string;
  event: string;
  properties: Record<string, unknown>;
  occurredAt: number;
  createdAt: number;
}

export interface TrackedPurchaseRecord {
  id: string;
  userId: string;
  contactId: string;
  orderId: string;
  amount: number;
  currency: string;
  items: PurchaseItem[];
  campaignId: string | null;
  occurredAt: number;
  createdAt: number;
}

/** Custom events and purchases per user, as `POST /v1/track/*` recorded them; an order id is recorded once per user. */
export class TrackingStore {
  private readonly clock: Clock;
  private readonly events: Collection<TrackedEventRecord>;
  /** by `[user, order id]` */
  private readonly purchases: Collection<TrackedPurchaseRecord>;

  constructor(state: StateStore) {
    this.clock = state.clock;
    this.events = state.collection('tracking.events');
    this.purchases = state.collection('tracking.purchases');
  }

  recordEvent(input: Omit<TrackedEventRecord, 'id' | 'createdAt'>): TrackedEventRecord {
    const record = { ...input, id: randomUUID(), createdAt: this.clock.now() };
    return this.events.set(record.id, record);
  }

  hasOrder(userId: string, orderId: string): boolean {
    return this.purchases.has(JSON.stringify([userId, orderId]));
  }

  recordPurchase(input: Omit<TrackedPurchaseRecord, 'id' | 'createdAt'>): TrackedPurchaseRecord {
    const record = { ...input, id: randomUUID(), createdAt: this.clock.now() };
    this.purchases.set(JSON.stringify([input.userId, input.orderId]), record);
    return record;
  }
}
