import type { MailDeps, MailHandlers } from '../../context.js';

/** Webhook endpoints: Form B (`/v1/webhooks`) and Form A (dashboard). */
export function webhookHandlers(_deps: MailDeps) {
  return {} satisfies Partial<MailHandlers>;
}
