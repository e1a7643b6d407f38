import type { MailDeps, MailHandlers } from '../../context.js';

/** E-mail validation: `GET /v1/validate` (balance) and `POST /v1/validate` (a batch, metered in credits). */
export function validationHandlers(_deps: MailDeps) {
  return {} satisfies Partial<MailHandlers>;
}
