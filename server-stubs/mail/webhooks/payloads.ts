import type { components } from '../../../generated/mail/types.gen.js';
import type { WebhookPayload } from '../../../generated/mail/webhooks.gen.js';
import type { Clock } from '../../lib/clock.js';
import type { ContactsStore } from '../audience/contacts-store.js';
import type { CampaignsStore } from '../campaigns/campaigns-store.js';
import type { MailEventBus, MailEvents } from '../events.js';
import type { Outbox } from '../sending/outbox.js';

export type FormBEventName = components['schemas']['WebhookEventType'];
export type FormAEventName = components['schemas']['DashboardWebhookEventType'];

export type FormBData = WebhookPayload<`formB:${FormBEventName}`>['data'];
export type FormAData = WebhookPayload<`formA:${FormAEventName}`>['data'];

/** One thing that happened, in the words of both forms (a form without the event leaves its part out). */
export interface Occurrence {
  userId: string;
  formA?: { event: FormAEventName; data: FormAData };
  formB?: { type: FormBEventName; data: FormBData };
}

export interface PayloadSources {
  clock: Clock;
  contacts: ContactsStore;
  outbox: Outbox;
  campaigns: CampaignsStore;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Turns the bus's announcements into the payloads of Form A and Form B, looking up what the
 * announcement only names (the contact, the message, the campaign) at the moment it happened.
 */
export function connectPayloads(events: MailEventBus, sources: PayloadSources, occurred: (o: Occurrence) => void): void {
  const now = () => sources.clock.now();
  const stamp = () => iso(now());

  events.on('contact.created', ({ userId, contactId }) => {
    const c = sources.contacts.get(userId, contactId);
    if (!c) return;
    const createdAt = iso(c.createdAt);
    occurred({
      userId,
      formA: { event: 'contact.created', data: { contact_id: c.id, email: c.email, first_name: c.firstName, last_name: c.lastName, status: c.status, created_at: createdAt } },
      formB: { type: 'contact.created', data: { contactId: c.id, email: c.email, firstName: c.firstName, lastName: c.lastName, status: c.status, createdAt } },
    });
  });

  events.on('contact.updated', ({ userId, contactId, changedFields: changed }) => {
    const c = sources.contacts.get(userId, contactId);
    if (!c) return;
    const updatedAt = iso(c.updatedAt);
    occurred({
      userId,
      formA: { event: 'contact.updated', data: { contact_id: c.id, email: c.email, status: c.status, changed_fields: changed, updated_at: updatedAt } },
      formB: { type: 'contact.updated', data: { contactId: c.id, email: c.email, status: c.status, changedFields: changed, updatedAt } },
    });
  });

  events.on('contact.unsubscribed', ({ userId, contactId }) => {
    const c = sources.contacts.get(userId, contactId);
    if (!c) return;
    const at = iso(c.updatedAt);
    occurred({
      userId,
      formA: { event: 'contact.unsubscribed', data: { contact_id: c.id, email: c.email, campaign_id: null, unsubscribed_at: at } },
      formB: { type: 'email.unsubscribed', data: { messageId: null, email: c.email, campaignId: null, unsubscribedAt: at } },
    });
  });

  const perRecipient = (type: 'email.sent' | 'email.delivered', { userId, messageId, to }: MailEvents['email.sent']) => {
    const message = sources.outbox.get(messageId);
    if (!message) return;
    for (const address of to) {
      const at = iso(type === 'email.sent' ? message.createdAt : (message.deliveredAt ?? message.createdAt));
      const common = { messageId, to: address, subject: message.subject, campaignId: message.campaignId };
      occurred({ userId, formB: type === 'email.sent' ? { type, data: { ...common, sentAt: at } } : { type, data: { ...common, deliveredAt: at } } });
    }
  };
  events.on('email.sent', (e) => perRecipient('email.sent', e));
  events.on('email.delivered', (e) => perRecipient('email.delivered', e));

  events.on('email.opened', ({ userId, messageId, email, openedAt, userAgent, ip, machineOpen, campaignId }) => {
    occurred({
      userId,
      formA: { event: 'email.opened', data: { message_id: messageId, email, campaign_id: campaignId } },
      // Designed: an open without a user agent or address gives an empty string (the fields are required strings).
      formB: { type: 'email.opened', data: { messageId, email, openedAt, userAgent: userAgent ?? '', ip: ip ?? '', machineOpen } },
    });
  });

  events.on('email.clicked', ({ userId, messageId, email, url, clickedAt, campaignId }) => {
    occurred({
      userId,
      formA: { event: 'email.clicked', data: { message_id: messageId, email, campaign_id: campaignId, url } },
      formB: { type: 'email.clicked', data: { messageId, email, url, clickedAt } },
    });
  });

  // The payloads need the message's id: a report that names none reaches no webhook.
  events.on('email.bounced', ({ userId, messageId, email, bounceType, bounceCode, bounceMessage }) => {
    if (messageId === null) return;
    occurred({
      userId,
      formA: { event: 'email.bounced', data: { message_id: messageId, email, bounce_type: bounceType } },
      // Designed: a report without a code or diagnostic text gives an empty string (the fields are required strings).
      formB: { type: 'email.bounced', data: { messageId, email, bounceType, bounceCode: bounceCode ?? '', bounceMessage: bounceMessage ?? '', bouncedAt: stamp() } },
    });
  });

  events.on('email.complained', ({ userId, messageId, email }) => {
    if (messageId === null) return;
    occurred({ userId, formB: { type: 'email.complained', data: { messageId, email, feedbackType: 'abuse', complainedAt: stamp() } } });
  });

  // A sandboxed campaign reaches no endpoint: nothing of it left the service (its notifications still come).
  events.on('campaign.sent', ({ userId, campaignId, recipients, sandbox }) => {
    if (sandbox) return;
    const campaign = sources.campaigns.get(userId, campaignId);
    const name = campaign?.name ?? '';
    const sentAt = iso(campaign?.sentAt ?? now());
    occurred({
      userId,
      formA: { event: 'campaign.sent', data: { campaign_id: campaignId, name, recipient_count: recipients, sent_at: sentAt } },
      formB: { type: 'campaign.sent', data: { campaignId, name, recipientCount: recipients, sentAt } },
    });
  });

  events.on('campaign.completed', ({ userId, campaignId, delivered, failed, sandbox }) => {
    if (sandbox) return;
    const campaign = sources.campaigns.get(userId, campaignId);
    const name = campaign?.name ?? '';
    const recipients = campaign?.recipients ?? delivered + failed;
    const completedAt = stamp();
    occurred({
      userId,
      formA: { event: 'campaign.completed', data: { campaign_id: campaignId, name, recipient_count: recipients, delivered_count: delivered, bounced_count: failed, completed_at: completedAt } },
      formB: { type: 'campaign.completed', data: { campaignId, name, recipientCount: recipients, deliveredCount: delivered, bouncedCount: failed, completedAt } },
    });
  });

}
