import type { MailDeps, MailHandlers } from '../../context.js';

/** Segments: dashboard CRUD, preview, refresh, static members, and the API-key members route. */
export function segmentHandlers(_deps: MailDeps) {
  return {} satisfies Partial<MailHandlers>;
}
