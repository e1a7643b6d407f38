import validator from 'validator';
import type { components } from '../../../generated/mail/types.gen.js';
import type { MailDeps } from '../context.js';
import type { EmailEventRecord } from './provider-log.js';
import { sentMessage, type RecipientOutcomes } from './recipient-outcomes.js';

export type MailServerBEvent = components['schemas']['MailServerBEventRequest'];

/** An event whose kind is handled but whose payload lacks what that kind needs. */
export class UnusableEvent extends Error {}

type Deps = Pick<MailDeps, 'outbox' | 'contacts' | 'events' | 'providerLog' | 'clock'>;
type Json = Record<string, unknown>;

const objectAt = (value: unknown): Json | undefined => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined);
const textAt = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

/** The message a kind is about: `payload.message`, or `payload.original_message` for a bounce (Postal's shapes). */
function messageOf(event: MailServerBEvent): { reference: string | null; to: string } {
  const message = objectAt(event.event === 'MessageBounced' ? event.payload.original_message : event.payload.message);
  if (!message) throw new UnusableEvent(`${event.event} needs payload.${event.event === 'MessageBounced' ? 'original_message' : 'message'}`);
  const to = textAt(message.to);
  if (!to || !validator.isEmail(to)) throw new UnusableEvent(`${event.event} needs the message's recipient address in "to"`);
  return { reference: textAt(message.message_id), to: to.toLowerCase() };
}

const latestDate = 8.64e15;

const kinds: Record<Exclude<MailServerBEvent['event'], 'DomainDNSError'>, EmailEventRecord['kind']> = {
  MessageSent: 'sent',
  MessageDelivered: 'delivered',
  MessageDelayed: 'delayed',
  MessageHeld: 'held',
  MessageBounced: 'bounced',
  MessageDeliveryFailed: 'failed',
  MessageLinkClicked: 'clicked',
};

/**
 * Mail server B's eight event kinds. A request id (`uuid`) seen before changes nothing: the
 * server retries a webhook it thinks failed. The payload is checked before anything is recorded,
 * so a refused event leaves no trace.
 */
export function applyMailServerBEvent(deps: Deps, outcomes: RecipientOutcomes, event: MailServerBEvent): void {
  // A timestamp past what a Date can hold would break every later answer that prints it.
  const occurredAt = event.timestamp * 1000 <= latestDate ? Math.round(event.timestamp * 1000) : null;
  if (event.event === 'DomainDNSError') {
    if (deps.providerLog.firstTime(`mailserver-b:${event.uuid}`)) deps.providerLog.recordDnsError(textAt(event.payload.domain), event.payload);
    return;
  }
  const { reference, to } = messageOf(event);
  if (!deps.providerLog.firstTime(`mailserver-b:${event.uuid}`)) return;
  const message = sentMessage(deps, reference);
  const payload = event.payload;
  const details: Json = { status: textAt(payload.status), details: textAt(payload.details) };
  if (event.event === 'MessageLinkClicked') Object.assign(details, { url: textAt(payload.url), ipAddress: textAt(payload.ip_address), userAgent: textAt(payload.user_agent) });
  deps.providerLog.recordEvent({ source: 'mailserver-b', kind: kinds[event.event], messageId: message?.id ?? null, userIds: message ? [message.userId] : [], email: to, occurredAt, details });
  switch (event.event) {
    case 'MessageSent':
    case 'MessageDelivered':
      return outcomes.delivered(message, occurredAt ?? deps.clock.now());
    case 'MessageBounced':
      return outcomes.bounced('mailserver-b', message, to, { bounceType: 'hard', bounceCode: null, bounceMessage: textAt(objectAt(payload.bounce)?.subject), occurredAt: occurredAt ?? deps.clock.now() });
    case 'MessageDeliveryFailed':
      // Postal reports a permanent failure as HardFail; anything else may still succeed later.
      return outcomes.bounced('mailserver-b', message, to, {
        bounceType: payload.status === 'HardFail' ? 'hard' : 'soft',
        bounceCode: null,
        bounceMessage: textAt(payload.details) ?? textAt(payload.output),
        occurredAt: occurredAt ?? deps.clock.now(),
      });
    default:
      return;
  }
}
