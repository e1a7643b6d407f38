import type { MailDeps, MailHandlers } from '../../context.js';

/** DMARC monitoring: list, add (DNS checked at once), remove. */
export function dmarcHandlers(_deps: MailDeps) {
  return {} satisfies Partial<MailHandlers>;
}
