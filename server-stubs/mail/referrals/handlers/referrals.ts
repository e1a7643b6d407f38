import type { MailDeps, MailHandlers } from '../../context.js';

/** Referrals (session routes without `/api`). */
export function referralHandlers(_deps: MailDeps) {
  return {} satisfies Partial<MailHandlers>;
}
