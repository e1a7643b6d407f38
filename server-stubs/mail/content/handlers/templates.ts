import type { MailDeps, MailHandlers } from '../../context.js';

/** Templates: list, create, render. */
export function templateHandlers(_deps: MailDeps) {
  return {} satisfies Partial<MailHandlers>;
}
