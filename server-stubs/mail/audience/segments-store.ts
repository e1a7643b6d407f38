import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';
import { defaultCentralSegments, type CentralSegmentsSource } from './central-segments.js';
import type { ContactsStore } from './contacts-store.js';
import { evaluate, type FilterGroup } from './segment-filter.js';

export type SegmentType = 'dynamic' | 'static';

export interface SegmentRecord {
  id: string;
  userId: string;
  name: string;
  description: string | null;
  type: SegmentType;
  criteria: FilterGroup | null;
  /** `own`: made by the user here; `central`: merged from the central contacts platform (read-only here) */
  source: 'own' | 'central';
  /** the cached count of the last evaluation */
  contactCount: number;
  lastCalculatedAt: number;
  createdAt: number;
  updatedAt: number;
  /** membership rows: member contact ids (each once), in the order they joined */
  members: string[];
}

export interface NewSegment {
  name: string;
  description: string | null;
  type: SegmentType;
  criteria: FilterGroup;
}

/**
 * Segments per user and their membership rows. A dynamic segment's rows are replaced by each
 * evaluation (creation, a criteria change, refresh); a static segment is evaluated once at creation
 * and then changed only member by member. A deleted contact leaves every segment's rows at once,
 * while `contactCount` keeps the last evaluation's count until the next one.
 */
export class SegmentsStore {
  private readonly clock: Clock;
  private readonly segments: Collection<SegmentRecord>;

  constructor(
    state: StateStore,
    private contacts: ContactsStore,
    private central: CentralSegmentsSource = defaultCentralSegments,
  ) {
    this.clock = state.clock;
    this.segments = state.collection('segments.segments', { tenantOf: (s) => s.userId, createdAtOf: (s) => s.createdAt });
    state.seed(() => this.seed());
  }

  /** The seeds: no own segments, the platform's segments as it gives them now. */
  private seed(): void {
    const now = this.clock.now();
    for (const c of this.central.segments(this.contacts, now)) {
      this.segments.set(c.id, {
        id: c.id,
        userId: c.userId,
        name: c.name,
        description: c.description,
        type: 'static',
        criteria: null,
        source: 'central',
        contactCount: c.memberIds.length,
        lastCalculatedAt: c.syncedAt,
        createdAt: c.syncedAt,
        updatedAt: c.syncedAt,
        members: [...new Set(c.memberIds)],
      });
    }
  }

  /** The user's segments: the platform's first, then their own, newest first. */
  of(userId: string): SegmentRecord[] {
    const rank = (s: SegmentRecord) => (s.source === 'central' ? 0 : 1);
    return this.segments.newest(userId).sort((a, b) => rank(a) - rank(b));
  }

  get(userId: string, id: string): SegmentRecord | undefined {
    return this.segments.ownedBy(userId, id);
  }

  create(userId: string, fields: NewSegment): SegmentRecord {
    const now = this.clock.now();
    const record: SegmentRecord = {
      id: randomUUID(),
      userId,
      name: fields.name,
      description: fields.description,
      type: fields.type,
      criteria: fields.criteria,
      source: 'own',
      contactCount: 0,
      lastCalculatedAt: now,
      createdAt: now,
      updatedAt: now,
      members: [],
    };
    this.evaluate(record);
    this.segments.set(record.id, record);
    return record;
  }

  /** Name and description as given; new criteria re-evaluate a dynamic segment (a static one keeps its members). */
  update(record: SegmentRecord, fields: { name?: string; description?: string | null; criteria?: FilterGroup }): SegmentRecord {
    if (fields.name !== undefined) record.name = fields.name;
    if (fields.description !== undefined) record.description = fields.description;
    if (fields.criteria !== undefined) {
      record.criteria = fields.criteria;
      if (record.type === 'dynamic') this.evaluate(record);
    }
    record.updatedAt = this.clock.now();
    return record;
  }

  /** A dynamic segment is evaluated anew; a static one recounts its member rows (the caller refuses segments without criteria). */
  refresh(record: SegmentRecord): SegmentRecord {
    if (record.type === 'dynamic') this.evaluate(record);
    else {
      record.contactCount = record.members.length;
      record.lastCalculatedAt = this.clock.now();
    }
    return record;
  }

  delete(userId: string, id: string): boolean {
    return this.get(userId, id) ? this.segments.delete(id) : false;
  }

  /** Adds the user's contacts among `ids`; answers how many joined and which ids are not the user's contacts. */
  addMembers(record: SegmentRecord, ids: readonly string[]): { changed: number; notFound: string[] } {
    return this.changeMembers(record, ids, (id) => !record.members.includes(id) && record.members.push(id) > 0);
  }

  removeMembers(record: SegmentRecord, ids: readonly string[]): { changed: number; notFound: string[] } {
    return this.changeMembers(record, ids, (id) => dropMember(record, id));
  }

  /** The contact left the user's contacts: it leaves every membership row at once. */
  dropContact(userId: string, contactId: string): void {
    for (const s of this.segments.of(userId)) dropMember(s, contactId);
  }

  private changeMembers(record: SegmentRecord, ids: readonly string[], change: (id: string) => boolean) {
    const notFound: string[] = [];
    let changed = 0;
    for (const id of new Set(ids)) {
      if (!this.contacts.get(record.userId, id)) notFound.push(id);
      else if (change(id)) changed++;
    }
    if (changed > 0) record.updatedAt = this.clock.now();
    return { changed, notFound };
  }

  private evaluate(record: SegmentRecord): void {
    if (!record.criteria) return;
    const matched = evaluate(record.criteria, this.contacts.of(record.userId));
    record.members = matched.map((c) => c.id);
    record.contactCount = matched.length;
    record.lastCalculatedAt = this.clock.now();
  }
}

/** Takes the contact out of the segment's rows; false when it was not a member. */
function dropMember(record: SegmentRecord, contactId: string): boolean {
  const at = record.members.indexOf(contactId);
  if (at < 0) return false;
  record.members.splice(at, 1);
  return true;
}
