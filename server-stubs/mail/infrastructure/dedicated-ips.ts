import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/mail/types.gen.js';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';

type DedicatedIp = components['schemas']['DedicatedIp'];
export type DedicatedIpStatus = DedicatedIp['status'];

/**
 * Designed lifecycle (the contract marks it provisional): an IP is assigned 10 minutes after the
 * request, and a warmed-up IP reaches full volume 14 days after that, progress growing linearly.
 */
export const ipLifecycle = {
  provisioningMs: 10 * 60_000,
  warmupMs: 14 * 24 * 3600_000,
} as const;

/**
 * Addresses come from TEST-NET-3 (RFC 5737, 203.0.113.0/24), lowest free first, so allocation is
 * deterministic and no stub hands out a routable address. A released IP's address is free again.
 */
export const addressRange = { prefix: '203.0.113.', first: 1, last: 254 } as const;

export interface DedicatedIpRecord {
  id: string;
  userId: string;
  pool: string;
  warmup: boolean;
  ip: string | null;
  /** when the address was assigned (warm-up starts there) */
  assignedAt: number | null;
  reverseDns: string | null;
  releasedAt: number | null;
  createdAt: number;
}

export interface IpState {
  status: DedicatedIpStatus;
  warmupProgress: number;
}

/**
 * Dedicated IPs of every user. State follows the stub clock: each read first assigns addresses to
 * requests whose provisioning time has come (oldest request first), and status and warm-up progress
 * are computed from the clock, so moving the clock moves every IP along its lifecycle.
 */
export class DedicatedIpPool {
  private readonly clock: Clock;
  /** in the order they were requested */
  private readonly ips: Collection<DedicatedIpRecord>;

  constructor(state: StateStore) {
    this.clock = state.clock;
    this.ips = state.collection('infrastructure.dedicatedIps', { tenantOf: (r) => r.userId, createdAtOf: (r) => r.createdAt });
  }

  /** The user's IPs, newest first, released ones included. */
  of(userId: string): DedicatedIpRecord[] {
    this.assignDue();
    return this.ips.newest(userId);
  }

  get(userId: string, id: string): DedicatedIpRecord | undefined {
    this.assignDue();
    return this.ips.ownedBy(userId, id);
  }

  request(userId: string, pool: string, warmup: boolean): DedicatedIpRecord {
    this.assignDue();
    const record: DedicatedIpRecord = { id: randomUUID(), userId, pool, warmup, ip: null, assignedAt: null, reverseDns: null, releasedAt: null, createdAt: this.clock.now() };
    this.ips.set(record.id, record);
    return record;
  }

  /** Stops sending from the IP and frees its address; releasing twice changes nothing. */
  release(record: DedicatedIpRecord): void {
    record.releasedAt ??= this.clock.now();
  }

  state(record: DedicatedIpRecord): IpState {
    const at = record.releasedAt ?? this.clock.now();
    const progress = record.assignedAt === null ? 0 : record.warmup ? Math.min(100, Math.floor(((at - record.assignedAt) / ipLifecycle.warmupMs) * 100)) : 100;
    if (record.releasedAt !== null) return { status: 'released', warmupProgress: progress };
    if (record.ip === null) return { status: 'provisioning', warmupProgress: 0 };
    return { status: progress >= 100 ? 'active' : 'warming', warmupProgress: progress };
  }

  /** Requests past their provisioning time get the lowest free address; with none free they wait. */
  private assignDue(): void {
    const now = this.clock.now();
    // Oldest request first; of two made at the same instant, the earlier one (the sort is stable).
    const waiting = this.ips.filter((r) => r.ip === null && r.releasedAt === null && now - r.createdAt >= ipLifecycle.provisioningMs).sort((a, b) => a.createdAt - b.createdAt);
    if (waiting.length === 0) return;
    const held = new Set(this.ips.filter((r) => r.ip !== null && r.releasedAt === null).map((r) => r.ip));
    let next = addressRange.first;
    for (const record of waiting) {
      while (next <= addressRange.last && held.has(`${addressRange.prefix}${next}`)) next++;
      if (next > addressRange.last) return;
      record.ip = `${addressRange.prefix}${next}`;
      record.assignedAt = record.createdAt + ipLifecycle.provisioningMs;
      held.add(record.ip);
    }
  }
}
