/**
 * What the other mail parts announce on the event bus, as in-app notifications (designed wording and
 * `type` values; the document lists only the subjects and the `entity_type` values).
 */
import type { MailEventBus } from '../events.js';
import { planNames } from '../identity/plans.js';
import type { Plan } from '../identity/store.js';
import type { NotificationsStore } from './notifications-store.js';

/** Names shown in the texts, when the part that owns the entity still has it. */
export interface EntityNames {
  campaign(userId: string, id: string): string | undefined;
  automation(userId: string, id: string): string | undefined;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const quoted = (name: string | undefined, fallback: string) => (name === undefined ? fallback : `"${name}"`);

export function subscribeNotices(events: MailEventBus, notifications: NotificationsStore, names: EntityNames): void {
  events.on('contact.imported', ({ userId, importId, created, updated, skipped, failed }) => {
    notifications.add(userId, {
      type: 'import_completed',
      title: 'Import finished',
      body: `${plural(created, 'contact')} created, ${updated} updated, ${skipped} skipped, ${failed} failed.`,
      entityType: 'contact_import',
      entityId: importId,
    });
  });

  events.on('domain.verified', ({ userId, domainId, domain }) => {
    notifications.add(userId, { type: 'domain_verified', title: 'Domain verified', body: `${domain} is verified: its SPF and DKIM records were found.`, entityType: 'domain_verification', entityId: domainId });
  });

  events.on('domain.failed', ({ userId, domainId, domain }) => {
    notifications.add(userId, {
      type: 'domain_verification_failed',
      title: 'Domain verification failed',
      body: `${domain} could not be verified: its SPF or DKIM record was still missing 72 hours after it was added.`,
      entityType: 'domain_verification',
      entityId: domainId,
    });
  });

  // A sandboxed campaign's status changes are notified like any other's, in words that say where its copies went.
  events.on('campaign.sent', ({ userId, campaignId, recipients, sandbox }) => {
    const name = quoted(names.campaign(userId, campaignId), 'Your campaign');
    const body = sandbox ? `${name} is being captured in the sandbox for ${plural(recipients, 'contact')}.` : `${name} is being sent to ${plural(recipients, 'contact')}.`;
    notifications.add(userId, { type: 'campaign_sending', title: 'Campaign sending', body, entityType: 'campaign', entityId: campaignId });
  });

  events.on('campaign.completed', ({ userId, campaignId, delivered, failed, sandbox, captured }) => {
    const name = quoted(names.campaign(userId, campaignId), 'Your campaign');
    const body = sandbox
      ? `${name} was captured in the sandbox for ${plural(captured, 'contact')}; ${failed} failed.`
      : `${name} was delivered to ${plural(delivered, 'contact')}; ${failed} failed.`;
    notifications.add(userId, { type: 'campaign_completed', title: 'Campaign sent', body, entityType: 'campaign', entityId: campaignId });
  });

  events.on('billing.plan_changed', (change) => notifyPlanChange(notifications, change));
  events.on('automation.status_changed', ({ userId, automationId, status }) => {
    const name = quoted(names.automation(userId, automationId), 'Your automation');
    notifications.add(userId, {
      type: status === 'active' ? 'automation_activated' : 'automation_paused',
      title: status === 'active' ? 'Automation activated' : 'Automation paused',
      body: `${name} is now ${status}.`,
      entityType: 'automation',
      entityId: automationId,
    });
  });
}

/** The billing notification of a plan change (`billing.plan_changed`, which identity announces). */
export function notifyPlanChange(notifications: NotificationsStore, change: { userId: string; previousPlan: Plan; plan: Plan; subscriptionId?: string | null }) {
  const order = Object.keys(planNames); // plans.ts lists them cheapest first
  const upgraded = order.indexOf(change.plan) > order.indexOf(change.previousPlan);
  return notifications.add(change.userId, {
    type: upgraded ? 'plan_upgraded' : 'plan_downgraded',
    title: upgraded ? 'Plan upgraded' : 'Plan changed',
    body: `Your plan changed from ${planNames[change.previousPlan]} to ${planNames[change.plan]}.`,
    entityType: 'billing',
    entityId: change.subscriptionId ?? null,
  });
}
