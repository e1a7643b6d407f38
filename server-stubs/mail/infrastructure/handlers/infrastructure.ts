import type { MailDeps, MailHandlers } from '../../context.js';

/** Aliases, dedicated IPs (Max), inbound routes, AI subject lines (Pro). */
export function infrastructureHandlers(_deps: MailDeps) {
  return {} satisfies Partial<MailHandlers>;
}
