import type { MailDeps, MailHandlers } from '../../context.js';

/** In-app notifications (session routes). */
export function notificationHandlers(_deps: MailDeps) {
  return {} satisfies Partial<MailHandlers>;
}
