import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';
import type { DnsCheck, HealthStatus } from './dns-check.js';

export interface MonitoredDomainRecord {
  id: string;
  userId: string;
  /** normalized: lower case, no trailing dot */
  domain: string;
  dkimSelector: string;
  check: DnsCheck;
  status: HealthStatus;
  lastCheckedAt: number;
  createdAt: number;
}

/** DMARC-monitored domains per user: a domain at most once per user. */
export class MonitoredDomainsStore {
  private readonly clock: Clock;
  private readonly domains: Collection<MonitoredDomainRecord>;

  constructor(state: StateStore) {
    this.clock = state.clock;
    this.domains = state.collection('monitoredDomains.domains', { tenantOf: (d) => d.userId, createdAtOf: (d) => d.createdAt });
  }

  count(userId: string): number {
    return this.of(userId).length;
  }

  /** The user's domains, newest first. */
  of(userId: string): MonitoredDomainRecord[] {
    return this.domains.newest(userId);
  }

  byDomain(userId: string, domain: string): MonitoredDomainRecord | undefined {
    return this.of(userId).find((d) => d.domain === domain);
  }

  add(userId: string, domain: string, dkimSelector: string, result: { check: DnsCheck; status: HealthStatus }, checkedAt: number): MonitoredDomainRecord {
    const record: MonitoredDomainRecord = { id: randomUUID(), userId, domain, dkimSelector, check: result.check, status: result.status, lastCheckedAt: checkedAt, createdAt: this.clock.now() };
    this.domains.set(record.id, record);
    return record;
  }

  /** False when the user has no domain with this id (another user's counts as none). */
  delete(userId: string, id: string): boolean {
    return this.domains.ownedBy(userId, id) !== undefined && this.domains.delete(id);
  }
}
