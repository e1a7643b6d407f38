import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';

export type NotificationEntityType = 'campaign' | 'contact_import' | 'domain_verification' | 'billing' | 'system' | 'automation';

export interface NotificationInput {
  type: string;
  title: string;
  body: string;
  entityType: NotificationEntityType;
  entityId: string | null;
}

export interface NotificationRecord extends NotificationInput {
  id: string;
  userId: string;
  isRead: boolean;
  /** epoch ms on the stub clock */
  createdAt: number;
}

/**
 * The system announcement every user finds (designed: the document lists system announcements
 * among the notifications without showing one). It appears the first time the user's
 * notifications are touched, so users created after the seeds get it too.
 */
export const welcomeAnnouncement: NotificationInput = {
  type: 'announcement',
  title: 'Welcome to in-app notifications',
  body: 'Campaign status, import results, domain verification, billing and automation changes will appear here.',
  entityType: 'system',
  entityId: null,
};

/** In-app notifications per user, newest first. */
export class NotificationsStore {
  private readonly clock: Clock;
  private readonly notifications: Collection<NotificationRecord>;

  constructor(state: StateStore) {
    this.clock = state.clock;
    this.notifications = state.collection('notifications.notifications', { tenantOf: (n) => n.userId, createdAtOf: (n) => n.createdAt });
  }

  add(userId: string, input: NotificationInput): NotificationRecord {
    this.listOf(userId);
    return this.insert(userId, input);
  }

  /** The user's notifications, newest first (of two made in the same millisecond, the later one). */
  of(userId: string): NotificationRecord[] {
    this.listOf(userId);
    return this.notifications.newest(userId);
  }

  unreadCount(userId: string): number {
    return this.listOf(userId).filter((n) => !n.isRead).length;
  }

  /** Marks the named notifications of this user read (all of them without ids); ids of other users' notifications are ignored. */
  markRead(userId: string, ids?: readonly string[]): number {
    const wanted = ids === undefined ? undefined : new Set(ids);
    let marked = 0;
    for (const n of this.listOf(userId)) {
      if (n.isRead || (wanted && !wanted.has(n.id))) continue;
      n.isRead = true;
      marked++;
    }
    return marked;
  }

  /** The user's notifications, oldest first; the first touch finds the welcome announcement (notifications are never deleted, so none means untouched). */
  private listOf(userId: string): NotificationRecord[] {
    const list = this.notifications.of(userId);
    return list.length > 0 ? list : [this.insert(userId, welcomeAnnouncement)];
  }

  private insert(userId: string, input: NotificationInput): NotificationRecord {
    const record: NotificationRecord = { ...input, id: randomUUID(), userId, isRead: false, createdAt: this.clock.now() };
    return this.notifications.set(record.id, record);
  }
}
