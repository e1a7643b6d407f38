import type { Clock } from '../../lib/clock.js';
import type { ContactRecord, ContactsStore } from '../audience/contacts-store.js';
import type { SegmentsStore } from '../audience/segments-store.js';
import type { MailEventBus } from '../events.js';
import type { Delivery } from '../sending/delivery.js';
import type { Outbox } from '../sending/outbox.js';
import type { CampaignRecord, CampaignsStore } from './campaigns-store.js';

/** The parts of one message before and after a recipient's values are put in. */
export interface MessageParts {
  subject: string;
  html: string | null;
  text: string | null;
}

/** Where a campaign's `template_id` is looked up (the templates part), and how one recipient's copy is written. */
export interface CampaignContent {
  template(userId: string, id: string): MessageParts | undefined;
  personalize(parts: MessageParts, contact: ContactRecord): MessageParts;
}

export interface CampaignRunDeps {
  clock: Clock;
  campaigns: CampaignsStore;
  segments: SegmentsStore;
  contacts: ContactsStore;
  outbox: Outbox;
  delivery: Delivery;
  events: MailEventBus;
  content: CampaignContent;
}

/**
 * A campaign's way from `draft` to `sent`: who it goes to (the subscribed, unsuppressed members of
 * its segment, a dynamic segment evaluated afresh), one personalized copy per recipient in the
 * outbox, `campaign.sent` when sending starts and `campaign.completed` once every copy was handed
 * over; scheduled campaigns start when the stub clock reaches their time.
 */
export class CampaignRuns {
  constructor(private deps: CampaignRunDeps) {}

  templateExists(userId: string, id: string): boolean {
    return this.deps.content.template(userId, id) !== undefined;
  }

  /** Why the campaign cannot be sent as it is (the send's 422), or undefined. */
  unsendable(campaign: CampaignRecord): string | undefined {
    if (campaign.segmentId === null) return 'Campaign has no segment';
    if (!this.deps.segments.get(campaign.userId, campaign.segmentId)) return 'Segment not found';
    if (campaign.templateId !== null) return this.deps.content.template(campaign.userId, campaign.templateId) ? undefined : 'Template not found';
    if (campaign.html === null && campaign.text === null) return 'Campaign has no body';
    return undefined;
  }

  /** The contacts the campaign goes to if it started now; a dynamic segment is evaluated afresh first. */
  recipientsOf(campaign: CampaignRecord): ContactRecord[] {
    const { segments, contacts } = this.deps;
    const segment = campaign.segmentId === null ? undefined : segments.get(campaign.userId, campaign.segmentId);
    if (!segment) return [];
    if (segment.type === 'dynamic' && segment.source === 'own') segments.refresh(segment);
    return [...segment.members]
      .map((id) => contacts.get(campaign.userId, id))
      .filter((c): c is ContactRecord => c !== undefined && c.status === 'subscribed' && !contacts.isSuppressed(campaign.userId, c.email));
  }

  schedule(campaign: CampaignRecord, at: number, sandbox: boolean): void {
    this.deps.campaigns.update(campaign, { status: 'scheduled' });
    campaign.scheduledAt = at;
    campaign.sandbox = sandbox;
  }

  /** Starts sending now: one copy per recipient; with `sandbox` the copies are captured, not delivered, and nothing is announced. */
  start(campaign: CampaignRecord, sandbox: boolean, recipients = this.recipientsOf(campaign)): void {
    const { campaigns, outbox, delivery, events, content, clock } = this.deps;
    const parts = campaign.templateId === null ? { subject: campaign.subject, html: campaign.html, text: campaign.text } : { ...content.template(campaign.userId, campaign.templateId)!, subject: campaign.subject };
    campaigns.update(campaign, { status: 'sending' });
    campaign.sentAt = clock.now();
    campaign.sandbox = sandbox;
    campaign.recipients = recipients.length;
    const handOvers = recipients.map((contact) => {
      const copy = content.personalize(parts, contact);
      const name = [contact.firstName, contact.lastName].filter(Boolean).join(' ');
      const message = outbox.add({ userId: campaign.userId, from: campaign.from, to: [name ? { email: contact.email, name } : { email: contact.email }], ...copy, sandbox, campaignId: campaign.id });
      return sandbox ? Promise.resolve() : delivery.dispatch(message);
    });
    if (!sandbox) events.emit('campaign.sent', { userId: campaign.userId, campaignId: campaign.id, recipients: recipients.length });
    void delivery.track(
      Promise.all(handOvers).then(() => {
        campaigns.update(campaign, { status: 'sent' });
        if (sandbox) return;
        const copies = outbox.ofCampaign(campaign.id);
        const delivered = copies.filter((m) => m.status === 'delivered').length;
        events.emit('campaign.completed', { userId: campaign.userId, campaignId: campaign.id, delivered, failed: copies.length - delivered });
      }),
    );
  }

  /**
   * Starts the scheduled campaigns whose time has come. One that can no longer be sent (its segment
   * or template was deleted) or no longer fits the month's quota is cancelled instead.
   */
  runDue(fitsQuota: (campaign: CampaignRecord, recipients: number) => boolean): void {
    for (const campaign of this.deps.campaigns.due()) {
      const recipients = this.unsendable(campaign) === undefined ? this.recipientsOf(campaign) : undefined;
      if (!recipients || (!campaign.sandbox && !fitsQuota(campaign, recipients.length))) {
        this.deps.campaigns.update(campaign, { status: 'cancelled' });
        continue;
      }
      this.start(campaign, campaign.sandbox, recipients);
    }
  }
}
