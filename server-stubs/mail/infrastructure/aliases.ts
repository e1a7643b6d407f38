import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';

export interface AliasRecord {
  id: string;
  userId: string;
  /** lower case: an alias is a routing key, and mail systems treat addresses case-insensitively */
  alias: string;
  forwardTo: string[];
  /** the sending domain (`/v1/domains`) the address belongs to */
  domainId: string;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

export type AliasFields = Pick<AliasRecord, 'alias' | 'forwardTo' | 'domainId' | 'enabled'>;

/** Aliases per user; an address is unique within a user's aliases. */
export class AliasBook {
  private readonly clock: Clock;
  private readonly aliases: Collection<AliasRecord>;

  constructor(state: StateStore) {
    this.clock = state.clock;
    this.aliases = state.collection('infrastructure.aliases', { tenantOf: (a) => a.userId, createdAtOf: (a) => a.createdAt });
  }

  /** The user's aliases, newest first. */
  of(userId: string): AliasRecord[] {
    return this.aliases.newest(userId);
  }

  get(userId: string, id: string): AliasRecord | undefined {
    return this.aliases.ownedBy(userId, id);
  }

  byAddress(userId: string, address: string): AliasRecord | undefined {
    const wanted = address.toLowerCase();
    return this.of(userId).find((a) => a.alias === wanted);
  }

  create(userId: string, fields: AliasFields): AliasRecord {
    const now = this.clock.now();
    const record: AliasRecord = { id: randomUUID(), userId, ...fields, alias: fields.alias.toLowerCase(), createdAt: now, updatedAt: now };
    this.aliases.set(record.id, record);
    return record;
  }

  update(record: AliasRecord, changes: Partial<Pick<AliasRecord, 'forwardTo' | 'enabled'>>): AliasRecord {
    if (changes.forwardTo !== undefined) record.forwardTo = [...changes.forwardTo];
    if (changes.enabled !== undefined) record.enabled = changes.enabled;
    record.updatedAt = this.clock.now();
    return record;
  }

  delete(userId: string, id: string): boolean {
    return this.get(userId, id) !== undefined && this.aliases.delete(id);
  }

  /** Every enabled alias with this address, of any user. */
  enabledAt(address: string): AliasRecord[] {
    const wanted = address.toLowerCase();
    return this.aliases.filter((a) => a.enabled && a.alias === wanted);
  }
}
