import type { Fail } from '../../lib/handlers.js';
import type { MailPrincipal } from '../auth.js';
import { planNames, planQuotas, withinQuota } from '../identity/plans.js';
import type { IdentityStore } from '../identity/store.js';
import type { Outbox } from './outbox.js';

/** The rules every sending route applies before anything is sent: one place, so a send and a campaign cannot differ. */

/** A key restricted to an account (`allowed_account_id`) sends only from that account's address: 403 otherwise. */
export function refuseForeignSender(identity: IdentityStore, principal: MailPrincipal, fromEmail: string, fail: Fail<403>): void {
  if (!principal.allowedAccountId) return;
  const account = identity.account(principal.userId, principal.allowedAccountId);
  if (account?.email.toLowerCase() !== fromEmail.toLowerCase()) fail(403, undefined, 'from.email does not match the account this API key is restricted to');
}

/** Why `recipients` more this month do not fit the plan's `emails_per_month`, naming the figures; undefined when they fit. */
export function overQuota(identity: IdentityStore, outbox: Outbox, userId: string, recipients: number): string | undefined {
  if (recipients === 0) return undefined;
  const plan = identity.user(userId)?.plan ?? 'free';
  const used = outbox.sentThisMonth(userId);
  if (withinQuota(plan, 'emails_per_month', used + recipients - 1)) return undefined;
  return `Monthly email quota of the ${planNames[plan]} plan reached: ${used} of ${planQuotas[plan].emails_per_month} used, this send has ${recipients} recipients`;
}

/** The quota as a refusal: 403 when `recipients` more do not fit. */
export function refuseOverQuota(identity: IdentityStore, outbox: Outbox, userId: string, recipients: number, fail: Fail<403>): void {
  const problem = overQuota(identity, outbox, userId, recipients);
  if (problem) fail(403, undefined, problem);
}
