import { randomUUID } from 'node:crypto';
import type { AddressObject, ParsedMail } from 'mailparser';
import { simpleParser } from './mail-parser.js';
import type { WebhookPayload } from '../../../generated/mail/webhooks.gen.js';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';
import { iso } from '../wire-format.js';
import type { InboundRoutes, InboundRouteRecord } from '../infrastructure/inbound-routes.js';
import type { DeliveryEngine, DeliveryOutcome } from '../webhooks/delivery-engine.js';
import { deliveryTimeoutMs, type WebhooksStore } from '../webhooks/webhooks-store.js';

type ReceivedPayload = WebhookPayload<'inbound:email.received'>;

/** Designed: the "short backoff" of the published 3 inbound retries, on the stub clock. */
export const inboundRetryDelaysMs = [10_000, 30_000, 60_000] as const;

export interface InboundAttempt {
  eventId: string;
  routeId: string;
  attempt: number;
  outcome: DeliveryOutcome;
  attemptedAt: number;
}

/** The answer of `POST /_stub/mail/inbound`. */
export type InboundAnswer =
  | { status: 202; body: { events: Array<{ id: string; route_id: string; domain: string; to: string }>; unrouted: string[] } }
  | { status: 400 | 404; body: { error: string } };

const addressesOf = (field: AddressObject | AddressObject[] | undefined) => (Array.isArray(field) ? field : field ? [field] : []).flatMap((a) => a.value).flatMap((a) => (a.address ? [a.address] : []));

/**
 * Received mail (DECISIONS mail-4): a raw RFC 5322 message, parsed with mailparser, goes to the
 * inbound route of each recipient's domain as the flat `email.received` event, always signed (the
 * route's secret, else the user's dashboard signing secret: the newest Form A endpoint's), through
 * the webhooks' delivery engine, retried up to 3 times after a failure.
 */
export class InboundMail {
  private readonly clock: Clock;
  /** by `[event, attempt]`, in the order they were made */
  private readonly attempts: Collection<InboundAttempt>;

  constructor(
    state: StateStore,
    private routes: InboundRoutes,
    private webhooks: WebhooksStore,
  ) {
    this.clock = state.clock;
    this.attempts = state.collection('inbound.attempts');
  }

  attemptsOf(routeId: string): InboundAttempt[] {
    return this.attempts.filter((a) => a.routeId === routeId);
  }

  async receive(raw: string): Promise<InboundAnswer> {
    let parsed: ParsedMail;
    try {
      parsed = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true });
    } catch (error) {
      return { status: 400, body: { error: `The message could not be parsed: ${(error as Error).message}` } };
    }
    const from = addressesOf(parsed.from)[0];
    const recipients = [...new Set([...addressesOf(parsed.to), ...addressesOf(parsed.cc)].map((a) => a.toLowerCase()))];
    if (!from || recipients.length === 0) return { status: 400, body: { error: 'The message needs a From address and at least one To or Cc address' } };

    const routed = new Map<string, { route: InboundRouteRecord; to: string }>();
    const unrouted: string[] = [];
    for (const address of recipients) {
      const route = this.routes.forDomain(address.split('@')[1]!);
      if (!route) unrouted.push(address);
      else if (!routed.has(route.id)) routed.set(route.id, { route, to: address });
    }
    if (routed.size === 0) return { status: 404, body: { error: `No inbound route for: ${unrouted.join(', ')}` } };

    const events = [...routed.values()].map(({ route, to }) => {
      const payload = this.payload(parsed, from, to);
      this.deliver(route, payload, 1);
      return { id: payload.id, route_id: route.id, domain: route.domain, to };
    });
    return { status: 202, body: { events, unrouted } };
  }

  private payload(parsed: ParsedMail, from: string, to: string): ReceivedPayload {
    const cc = addressesOf(parsed.cc);
    const spam = Number.parseFloat(String(parsed.headers.get('x-spam-score') ?? ''));
    return {
      event: 'email.received',
      id: randomUUID(),
      from,
      to,
      ...(cc.length > 0 && { cc: cc.join(', ') }),
      subject: parsed.subject ?? '',
      text: parsed.text ?? '',
      html: typeof parsed.html === 'string' ? parsed.html : '',
      headers: Object.fromEntries(parsed.headerLines.map((h) => [h.key, h.line.slice(h.line.indexOf(':') + 1).trim()])),
      attachments: parsed.attachments.map((a) => ({ filename: a.filename ?? 'attachment', contentType: a.contentType, size: a.size, ...(a.contentId && { contentId: a.contentId }) })),
      // Designed: the stub runs no spam filter; a sender's own X-Spam-Score header is passed on, else 0.
      spam_score: Number.isFinite(spam) ? spam : 0,
      message_id: parsed.messageId ?? '',
      received_at: iso(this.clock.now())!,
    } as ReceivedPayload;
  }

  /** One attempt now (after the answer) or at its retry time; a failure schedules the next, up to 3 retries. */
  private deliver(route: InboundRouteRecord, payload: ReceivedPayload, attempt: number): void {
    const engine: DeliveryEngine = this.webhooks.engine;
    const run = async () => {
      const secret = route.secret ?? this.webhooks.dashboardSigningSecret(route.userId);
      const outcome: DeliveryOutcome = secret
        ? await engine.post({ url: route.webhookUrl, body: JSON.stringify(payload), eventName: 'email.received', secret, timeoutMs: deliveryTimeoutMs })
        : { ok: false, statusCode: null, responseBody: null, durationMs: null, error: 'No signing secret: give the route one, or set one on a dashboard (Form A) endpoint' };
      this.attempts.set(JSON.stringify([payload.id, attempt]), { eventId: payload.id, routeId: route.id, attempt, outcome, attemptedAt: this.clock.now() });
      const delay = inboundRetryDelaysMs[attempt - 1];
      if (!outcome.ok && delay !== undefined) this.deliver(route, payload, attempt + 1);
    };
    if (attempt === 1) engine.soon(run);
    else engine.schedule(this.clock.now() + inboundRetryDelaysMs[attempt - 2]!, run);
  }
}
