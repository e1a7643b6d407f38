import type { components } from '../../../../generated/mail/types.gen.js';
import type { Fail } from '../../../lib/handlers.js';
import type { ContactRecord } from '../../audience/contacts-store.js';
import { mailHandlers, type MailDeps } from '../../context.js';
import { iso } from '../../wire-format.js';
import { analyticsReport } from '../report.js';
import { invalidRequest } from '../../../lib/failures.js';

type Identified = { email?: string; contact_id?: string };

const day = 86_400_000;
/** The longest report (designed; the contract says so): a year and a day, so a leap year fits. */
export const maxRangeDays = 366;

/** Analytics from what the stub recorded, and the custom events and purchases clients track. */
export function analyticsHandlers({ outbox, engagement, campaigns, contacts, tracking, events, clock }: MailDeps) {
  /** The contact the request names by exactly one of `email` and `contact_id` (the schema's branches see to "exactly one"). */
  const contactOf = (userId: string, body: Identified, fail: Fail<404>): ContactRecord =>
    (body.contact_id !== undefined ? contacts.get(userId, body.contact_id) : contacts.byEmail(userId, body.email ?? '')) ?? fail(404, undefined, 'Contact not found');

  const campaignOf = (userId: string, id: string | undefined, fail: Fail<404>) => {
    if (id !== undefined && !campaigns.get(userId, id)) fail(404, undefined, 'Campaign not found');
    return id ?? null;
  };

  return mailHandlers({
    getAnalytics: ({ principal, query, fail }) => {
      const today = Math.floor(clock.now() / day) * day;
      const to = query.to === undefined ? today : Date.parse(`${query.to}T00:00:00Z`);
      const from = query.from === undefined ? to - 29 * day : Date.parse(`${query.from}T00:00:00Z`);
      if (from > to) invalidRequest({ fieldErrors: { from: ['Must not be after to'] } });
      if ((to - from) / day + 1 > maxRangeDays) invalidRequest({ fieldErrors: { from: [`The range is at most ${maxRangeDays} days`] } });
      const campaignId = campaignOf(principal.userId, query.campaign_id, fail);
      const messages = campaignId === null ? outbox.all(principal.userId) : outbox.ofCampaign(campaignId);
      return { status: 200, body: { success: true, data: analyticsReport(messages, engagement, from, to, query.granularity, campaignId) } };
    },

    trackEvent: ({ principal, body, fail }) => {
      const userId = principal.userId;
      const contact = contactOf(userId, body as Identified, fail);
      const record = tracking.recordEvent({ userId, contactId: contact.id, event: body.event, properties: body.properties ?? {}, occurredAt: body.occurred_at === undefined ? clock.now() : Date.parse(body.occurred_at) });
      events.emit('contact.event_tracked', { userId, contactId: contact.id, event: record.event });
      const data: components['schemas']['TrackedEvent'] = {
        id: record.id,
        contact_id: record.contactId,
        event: record.event,
        properties: record.properties,
        occurred_at: iso(record.occurredAt)!,
        created_at: iso(record.createdAt)!,
      };
      return { status: 201, body: { success: true, data } };
    },

    trackPurchase: ({ principal, body, fail }) => {
      const userId = principal.userId;
      const contact = contactOf(userId, body as Identified, fail);
      const campaignId = campaignOf(userId, body.campaign_id, fail);
      if (tracking.hasOrder(userId, body.order_id)) fail(409, undefined, 'Purchase already tracked');
      const record = tracking.recordPurchase({
        userId,
        contactId: contact.id,
        orderId: body.order_id,
        amount: body.amount,
        currency: body.currency,
        items: body.items ?? [],
        campaignId,
        occurredAt: body.occurred_at === undefined ? clock.now() : Date.parse(body.occurred_at),
      });
      const data: components['schemas']['TrackedPurchase'] = {
        id: record.id,
        contact_id: record.contactId,
        order_id: record.orderId,
        amount: record.amount,
        currency: record.currency,
        items: record.items,
        campaign_id: record.campaignId,
        occurred_at: iso(record.occurredAt)!,
        created_at: iso(record.createdAt)!,
      };
      return { status: 201, body: { success: true, data } };
    },
  });
}
