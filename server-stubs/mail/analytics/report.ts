import type { components } from '../../../generated/mail/types.gen.js';
import type { OutboxMessage } from '../sending/outbox.js';
import type { EngagementLog } from '../tracking/engagement-log.js';

type Report = components['schemas']['AnalyticsReport'];
type Counts = Report['totals'];
export type Granularity = Report['granularity'];

const day = 86_400_000;
const zero = (): Counts => ({ sent: 0, delivered: 0, opened: 0, clicked: 0, bounced: 0, complained: 0, unsubscribed: 0 });
export const isoDate = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);

/** The first day (UTC midnight) of the bucket an instant falls in: the day, the week from Monday, or the month. */
function bucketStart(epochMs: number, granularity: Granularity): number {
  const midnight = Math.floor(epochMs / day) * day;
  if (granularity === 'day') return midnight;
  if (granularity === 'week') return midnight - ((new Date(midnight).getUTCDay() + 6) % 7) * day;
  const d = new Date(midnight);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

function nextBucket(start: number, granularity: Granularity): number {
  if (granularity === 'day') return start + day;
  if (granularity === 'week') return start + 7 * day;
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

const ratio = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000);

/**
 * The report over `[fromDay, toDay]` (UTC midnights, inclusive) from the messages the stub handled:
 * each recipient of a message counts once when it was sent and once when delivered, and each
 * message once when first opened and first clicked, on the day it happened. Bounces, complaints
 * and unsubscribes stay 0 until the provider webhooks report them.
 */
export function analyticsReport(messages: OutboxMessage[], engagement: EngagementLog, fromDay: number, toDay: number, granularity: Granularity, campaignId: string | null): Report {
  const buckets = new Map<number, Counts>();
  for (let start = bucketStart(fromDay, granularity); start <= toDay; start = nextBucket(start, granularity)) buckets.set(start, zero());
  const totals = zero();
  const end = toDay + day;
  const count = (at: number | null, field: keyof Counts, n: number) => {
    if (at === null || at < fromDay || at >= end) return;
    totals[field] += n;
    buckets.get(bucketStart(at, granularity))![field] += n;
  };
  for (const m of messages) {
    if (m.sandbox) continue;
    count(m.createdAt, 'sent', m.to.length);
    if (m.status === 'delivered') count(m.deliveredAt, 'delivered', m.to.length);
    count(engagement.openedAt(m.id) ?? null, 'opened', 1);
    count(engagement.clickedAt(m.id) ?? null, 'clicked', 1);
  }
  return {
    from: isoDate(fromDay),
    to: isoDate(toDay),
    campaign_id: campaignId,
    granularity,
    totals,
    rates: {
      delivery_rate: ratio(totals.delivered, totals.sent),
      open_rate: ratio(totals.opened, totals.delivered),
      click_rate: ratio(totals.clicked, totals.delivered),
      bounce_rate: ratio(totals.bounced, totals.sent),
      complaint_rate: ratio(totals.complained, totals.delivered),
      unsubscribe_rate: ratio(totals.unsubscribed, totals.delivered),
    },
    series: [...buckets].map(([start, counts]) => ({ period_start: isoDate(start), counts })),
  };
}
