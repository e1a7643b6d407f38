import type { MailDeps, MailHandlers } from '../../context.js';

/** Provider and internal webhooks: feedback loop, mail servers A and B, auto-translate. */
export function providerHandlers(_deps: MailDeps) {
  return {} satisfies Partial<MailHandlers>;
}
