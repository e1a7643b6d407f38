import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';

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
  /** creation order, so notifications made in the same millisecond still list newest first */
  seq: number;
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
  private byUser = new Map<string, NotificationRecord[]>();
  private seq = 0;

  constructor(private clock: Clock) {
    this.reset();
  }

  reset(): void {
    this.byUser.clear();
    this.seq = 0;
  }

  add(userId: string, input: NotificationInput): NotificationRecord {
    const list = this.listOf(userId);
    const record = this.record(userId, input);
    list.push(record);
    return record;
  }

  /** The user's notifications, newest first. */
  of(userId: string): NotificationRecord[] {
    return [...this.listOf(userId)].sort((a, b) => b.createdAt - a.createdAt || b.seq - a.seq);
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

  private listOf(userId: string): NotificationRecord[] {
    let list = this.byUser.get(userId);
    if (!list) {
      list = [this.record(userId, welcomeAnnouncement)];
      this.byUser.set(userId, list);
    }
    return list;
  }

  private record(userId: string, input: NotificationInput): NotificationRecord {
    return { ...input, id: randomUUID(), userId, isRead: false, createdAt: this.clock.now(), seq: this.seq++ };
  }
}
