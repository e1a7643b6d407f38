import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/mail/types.gen.js';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';

export type ContactStatus = components['schemas']['Contact']['status'];
export type PushToken = components['schemas']['Contact']['push_tokens'][number];
export type EngagementTier = components['schemas']['Contact']['engagement_tier'];

export interface ContactRecord {
  id: string;
  userId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
  status: ContactStatus;
  engagementTier: EngagementTier;
  tags: string[];
  customFields: Record<string, unknown>;
  pushTokens: PushToken[];
  createdAt: number;
  updatedAt: number;
}

export interface ContactFields {
  email?: string;
  firstName?: string | null;
  lastName?: string | null;
  phone?: string | null;
  status?: ContactStatus;
  tags?: string[];
  customFields?: Record<string, unknown>;
  pushTokens?: PushToken[];
}

export type SuppressionReason = components['schemas']['Suppression']['reason'];

export interface SuppressionRecord {
  userId: string;
  email: string;
  reason: SuppressionReason;
  createdAt: number;
}

/** Statuses that put an address on the user's suppression list (no more marketing mail to it), with the reason recorded. */
const suppressing: Partial<Record<ContactStatus, SuppressionReason>> = { unsubscribed: 'unsubscribed', complained: 'complained' };

/** A few contacts per seeded user, all subscribed, none suppressed (DECISIONS mail-1). */
const seededContacts: ReadonlyArray<{ userId: string; email: string; firstName: string; lastName: string; tags: string[]; tier: EngagementTier }> = [
  ...['usr_free', 'usr_pro', 'usr_max'].flatMap((userId) => {
    const plan = userId.slice(4);
    return [
      { userId, email: `ada.${plan}@example.com`, firstName: 'Ada', lastName: 'Lovelace', tags: ['newsletter'], tier: 'high' as const },
      { userId, email: `grace.${plan}@example.com`, firstName: 'Grace', lastName: 'Hopper', tags: ['newsletter', 'vip'], tier: 'medium' as const },
      { userId, email: `alan.${plan}@example.com`, firstName: 'Alan', lastName: 'Turing', tags: [], tier: null },
    ];
  }),
];

const normalized = (email: string) => email.trim().toLowerCase();
const suppressionKey = (userId: string, email: string) => JSON.stringify([userId, normalized(email)]);

/** The fields an update reports as changed, by their API names, each as comparable text. */
function watchedValues(c: ContactRecord): Record<string, string> {
  const fields = { email: c.email, first_name: c.firstName, last_name: c.lastName, phone: c.phone, status: c.status, tags: c.tags, custom_fields: c.customFields, push_tokens: c.pushTokens };
  return Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, JSON.stringify(value)]));
}

/** How a message addresses the contact: its address, with its full name when it has one. */
export function recipientOf(contact: ContactRecord): { email: string; name?: string } {
  const name = [contact.firstName, contact.lastName].filter(Boolean).join(' ');
  return name ? { email: contact.email, name } : { email: contact.email };
}

/** Contacts per user (an address is unique per user, case-insensitively) and each user's suppression list. */
export class ContactsStore {
  private readonly clock: Clock;
  private readonly contacts: Collection<ContactRecord>;
  /** by `[user, normalized address]`: why and since when the address is suppressed */
  private readonly suppressed: Collection<SuppressionRecord>;

  /** `onTagsAdded` hears of every tag a contact gains after the seeds (automations start on it). */
  constructor(
    state: StateStore,
    private onTagsAdded: (record: ContactRecord, tags: string[]) => void = () => {},
  ) {
    this.clock = state.clock;
    this.contacts = state.collection('contacts.contacts', { tenantOf: (c) => c.userId, createdAtOf: (c) => c.createdAt });
    this.suppressed = state.collection('contacts.suppressions', { tenantOf: (s) => s.userId, createdAtOf: (s) => s.createdAt });
    state.seed(() => this.seed());
  }

  private seed(): void {
    // Seeds get distinct, ordered creation times so "newest first" is stable.
    const base = this.clock.now() - seededContacts.length * 60_000;
    seededContacts.forEach((seed, i) => {
      const at = base + i * 60_000;
      const record = this.insert(seed.userId, { email: seed.email, firstName: seed.firstName, lastName: seed.lastName, tags: seed.tags }, at);
      record.engagementTier = seed.tier;
    });
  }

  /** The user's contacts, newest first. */
  of(userId: string): ContactRecord[] {
    return this.contacts.newest(userId);
  }

  count(userId: string): number {
    return this.contacts.of(userId).length;
  }

  get(userId: string, id: string): ContactRecord | undefined {
    return this.contacts.ownedBy(userId, id);
  }

  byEmail(userId: string, email: string): ContactRecord | undefined {
    const wanted = normalized(email);
    return this.contacts.of(userId, (c) => normalized(c.email) === wanted)[0];
  }

  create(userId: string, fields: ContactFields & { email: string }): ContactRecord {
    const record = this.insert(userId, fields, this.clock.now());
    if (record.tags.length > 0) this.onTagsAdded(record, [...record.tags]);
    return record;
  }

  /** Applies the given fields; answers the names (as the contact API spells them) of those whose value changed. */
  update(record: ContactRecord, fields: ContactFields): string[] {
    const before = watchedValues(record);
    const tagsBefore = new Set(record.tags);
    if (fields.email !== undefined) record.email = fields.email;
    if (fields.firstName !== undefined) record.firstName = fields.firstName;
    if (fields.lastName !== undefined) record.lastName = fields.lastName;
    if (fields.phone !== undefined) record.phone = fields.phone;
    if (fields.tags !== undefined) record.tags = [...new Set(fields.tags)];
    if (fields.customFields !== undefined) record.customFields = { ...fields.customFields };
    if (fields.pushTokens !== undefined) record.pushTokens = fields.pushTokens.map((t) => ({ ...t }));
    if (fields.status !== undefined) record.status = fields.status;
    record.updatedAt = this.clock.now();
    this.noteSuppression(record);
    const added = record.tags.filter((t) => !tagsBefore.has(t));
    if (added.length > 0) this.onTagsAdded(record, added);
    const after = watchedValues(record);
    return Object.keys(after).filter((name) => after[name] !== before[name]);
  }

  delete(userId: string, id: string): boolean {
    if (!this.get(userId, id)) return false;
    return this.contacts.delete(id);
  }

  /** Whether marketing mail may go to the contact: subscribed, and its address not suppressed. */
  mailable(record: ContactRecord): boolean {
    return record.status === 'subscribed' && !this.isSuppressed(record.userId, record.email);
  }

  /** Whether the user may no longer mail this address (it unsubscribed or complained); deleting the contact keeps it suppressed. */
  isSuppressed(userId: string, email: string): boolean {
    return this.suppressed.has(suppressionKey(userId, email));
  }

  /** The user's suppression list, newest first. */
  suppressionsOf(userId: string): SuppressionRecord[] {
    return this.suppressed.newest(userId);
  }

  /** Puts an address on the user's list (a hard bounce, a complaint); the first reason is kept. */
  suppress(userId: string, email: string, reason: SuppressionReason): void {
    const key = suppressionKey(userId, email);
    if (!this.suppressed.has(key)) this.suppressed.set(key, { userId, email: normalized(email), reason, createdAt: this.clock.now() });
  }

  private insert(userId: string, fields: ContactFields & { email: string }, at: number): ContactRecord {
    const record: ContactRecord = {
      id: randomUUID(),
      userId,
      email: fields.email,
      firstName: fields.firstName ?? null,
      lastName: fields.lastName ?? null,
      phone: fields.phone ?? null,
      status: fields.status ?? 'subscribed',
      engagementTier: null,
      tags: [...new Set(fields.tags ?? [])],
      customFields: { ...(fields.customFields ?? {}) },
      pushTokens: (fields.pushTokens ?? []).map((t) => ({ ...t })),
      createdAt: at,
      updatedAt: at,
    };
    this.contacts.set(record.id, record);
    this.noteSuppression(record);
    return record;
  }

  private noteSuppression(record: ContactRecord): void {
    const reason = suppressing[record.status];
    if (reason) this.suppress(record.userId, record.email, reason);
  }
}
