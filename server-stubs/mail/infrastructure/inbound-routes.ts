import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';

/** The MX records every inbound domain is asked to publish (designed hosts of the service; see the contract). */
export const inboundExchanges = [
  { priority: 10, exchange: 'mx1.mail.platform.example' },
  { priority: 20, exchange: 'mx2.mail.platform.example' },
] as const;

export type InboundStatus = 'pending' | 'active';

export interface InboundRouteRecord {
  id: string;
  userId: string;
  /** lower case, no trailing dot */
  domain: string;
  webhookUrl: string;
  /** the client's signing secret; null: the dashboard's signing secret signs deliveries */
  secret: string | null;
  status: InboundStatus;
  createdAt: number;
  lastCheckedAt: number;
}

/**
 * Inbound routes of every user. A domain has at most one route across all users: received mail is
 * routed by the domain it is addressed to (DECISIONS mail-4), so two owners would be ambiguous.
 */
export class InboundRoutes {
  private readonly clock: Clock;
  private readonly routes: Collection<InboundRouteRecord>;

  constructor(state: StateStore) {
    this.clock = state.clock;
    this.routes = state.collection('infrastructure.inboundRoutes', { tenantOf: (r) => r.userId, createdAtOf: (r) => r.createdAt });
  }

  /** The user's routes, newest first. */
  of(userId: string): InboundRouteRecord[] {
    return this.routes.newest(userId);
  }

  /** The route of a domain, whoever configured it: where mail received at the domain goes (part 4). */
  forDomain(domain: string): InboundRouteRecord | undefined {
    return this.routes.find((r) => r.domain === domain);
  }

  add(userId: string, domain: string, webhookUrl: string, secret: string | null): InboundRouteRecord {
    const now = this.clock.now();
    const record: InboundRouteRecord = { id: randomUUID(), userId, domain, webhookUrl, secret, status: 'pending', createdAt: now, lastCheckedAt: now };
    this.routes.set(record.id, record);
    return record;
  }

  delete(userId: string, id: string): boolean {
    return this.routes.ownedBy(userId, id) !== undefined && this.routes.delete(id);
  }

  /** Whether the route still exists (a check that finished after a delete leaves it alone). */
  has(record: InboundRouteRecord): boolean {
    return this.routes.get(record.id) === record;
  }

  /** Records one MX check: found (active), not found (still pending), or unanswered (`undefined`, still pending). */
  checked(record: InboundRouteRecord, found: boolean | undefined): void {
    if (!this.has(record)) return;
    record.lastCheckedAt = this.clock.now();
    if (found) record.status = 'active';
  }
}
