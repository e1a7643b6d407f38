/**
 * The mail stub's event bus: parts announce what happened (a contact created, an import done) and
 * later parts (webhooks, automations, in-app notifications) subscribe. Nobody consumes yet; the
 * emitters are in place so those parts only add listeners.
 */
export interface MailEvents {
  'contact.created': { userId: string; contactId: string };
  /** `changedFields`: the fields whose value changed, as the contact API names them */
  'contact.updated': { userId: string; contactId: string; changedFields: string[] };
  'contact.unsubscribed': { userId: string; contactId: string };
  'contact.deleted': { userId: string; contactId: string };
  'contact.imported': { userId: string; importId: string; created: number; updated: number; skipped: number; failed: number };
  /** a contact gained tags (created with them, updated, imported, or by an automation step) */
  'contact.tag_added': { userId: string; contactId: string; tags: string[] };
  /** an automation moved to `active` or `paused` (in-app notifications land with part 4) */
  'automation.status_changed': { userId: string; automationId: string; status: 'active' | 'paused' };
  /** a client tracked a custom event of a contact (`POST /v1/track/event`); automations trigger on it by name */
  'contact.event_tracked': { userId: string; contactId: string; event: string };
  /** a send was accepted for delivery (not sandboxed), to these recipients */
  'email.sent': { userId: string; messageId: string; to: string[] };
  /** a campaign started sending to `recipients` contacts (`sandbox`: its copies are captured in the sandbox, not delivered) */
  'campaign.sent': { userId: string; campaignId: string; recipients: number; sandbox: boolean };
  /** every copy of a campaign was handed over (delivered or failed), or captured in the sandbox (`sandbox`: `delivered` 0, `captured` the copies) */
  'campaign.completed': { userId: string; campaignId: string; delivered: number; failed: number; sandbox: boolean; captured: number };
  /** the relay took the message (or, without one, the outbox did) */
  'email.delivered': { userId: string; messageId: string; to: string[] };
  /** the tracking pixel of a delivered message was loaded (`machineOpen`: by a mail provider's image proxy, not a person) */
  'email.opened': { userId: string; messageId: string; email: string; openedAt: string; userAgent: string | null; ip: string | null; machineOpen: boolean; campaignId: string | null };
  /** a tracked link of a delivered message was followed */
  'email.clicked': { userId: string; messageId: string; email: string; url: string; clickedAt: string; campaignId: string | null };
  /** the recipient server refused the message (a provider webhook reported it) */
  'email.bounced': { userId: string; messageId: string | null; email: string; bounceType: 'hard' | 'soft'; bounceCode: string | null; bounceMessage: string | null };
  /** a recipient reported the message as spam (a feedback-loop report) */
  'email.complained': { userId: string; messageId: string | null; email: string };
  /** a user's plan changed (a subscription was bought, changed or ended) */
  'billing.plan_changed': { userId: string; previousPlan: 'free' | 'pro' | 'max'; plan: 'free' | 'pro' | 'max' };
  /** a sending domain's SPF and DKIM records were found */
  'domain.verified': { userId: string; domainId: string; domain: string };
  /** a sending domain's SPF or DKIM record was still missing 72 hours after it was added */
  'domain.failed': { userId: string; domainId: string; domain: string };
}

export type MailEventName = keyof MailEvents;
type Listener<E extends MailEventName> = (payload: MailEvents[E]) => void;

export class MailEventBus {
  /** each set holds listeners of its key's event only (emit calls them with that event's payload) */
  private listeners = new Map<MailEventName, Set<(payload: never) => void>>();

  on<E extends MailEventName>(event: E, listener: Listener<E>): () => void {
    const set = this.listeners.get(event) ?? new Set();
    set.add(listener);
    this.listeners.set(event, set);
    return () => set.delete(listener);
  }

  emit<E extends MailEventName>(event: E, payload: MailEvents[E]): void {
    for (const listener of this.listeners.get(event) ?? []) (listener as Listener<E>)(payload);
  }
}
