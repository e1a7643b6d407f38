import type { MailDeps, MailHandlers } from '../../context.js';

/** Sending domains: list, add (records to publish, verified through DNS), remove. */
export function domainHandlers(_deps: MailDeps) {
  return {} satisfies Partial<MailHandlers>;
}
