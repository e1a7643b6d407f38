import type { MailDeps, MailHandlers } from '../../context.js';

/** WhatsApp and push sends (Max plan). */
export function channelHandlers(_deps: MailDeps) {
  return {} satisfies Partial<MailHandlers>;
}
