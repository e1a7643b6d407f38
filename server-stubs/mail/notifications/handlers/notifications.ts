import type { components } from '../../../../generated/mail/types.gen.js';
import { mailHandlers, type MailDeps } from '../../context.js';
import { iso } from '../../wire-format.js';
import { subscribeNotices } from '../notices.js';
import type { NotificationRecord } from '../notifications-store.js';

type Notification = components['schemas']['Notification'];

function shown(n: NotificationRecord): Notification {
  return { id: n.id, type: n.type, title: n.title, body: n.body, entity_type: n.entityType, entity_id: n.entityId, is_read: n.isRead, created_at: iso(n.createdAt)! };
}

/** In-app notifications (session routes), fed by what the other parts announce on the bus. */
export function notificationHandlers({ notifications, events, campaigns, automations }: MailDeps) {
  // The factory runs once per app, so the listeners are registered once; reset() empties the store, not the bus.
  subscribeNotices(events, notifications, {
    campaign: (userId, id) => campaigns.get(userId, id)?.name,
    automation: (userId, id) => automations.get(userId, id)?.name,
  });

  return mailHandlers({
    listNotifications: ({ principal, query }) => {
      const userId = principal.userId;
      const listed = notifications.of(userId).filter((n) => !query.unread_only || !n.isRead);
      return { status: 200, body: { success: true, notifications: listed.slice(0, query.limit).map(shown), unreadCount: notifications.unreadCount(userId) } };
    },

    markNotificationsRead: ({ principal, body }) => {
      notifications.markRead(principal.userId, body?.ids);
      return { status: 200, body: { success: true } };
    },
  });
}
