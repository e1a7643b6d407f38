import type { components } from '../../../generated/mail/types.gen.js';
import { sentMessage, type RecipientOutcomes } from './recipient-outcomes.js';
import type { MailDeps } from '../context.js';

export type MailServerAPayload = components['schemas']['MailServerAEventRequest']['payload'];

/** Mail server A's delivery, bounce and complaint events, normalized into email-event and bounce records. */
export function applyMailServerAEvent(deps: Pick<MailDeps, 'outbox' | 'contacts' | 'events' | 'providerLog'>, outcomes: RecipientOutcomes, payload: MailServerAPayload): void {
  const message = sentMessage(deps, payload.message_id);
  const occurredAt = Date.parse(payload.timestamp);
  const base = { source: 'mailserver-a' as const, messageId: message?.id ?? null, userIds: message ? [message.userId] : [], email: payload.recipient, occurredAt };
  switch (payload.type) {
    case 'delivery':
      deps.providerLog.recordEvent({ ...base, kind: 'delivered', details: { smtpResponse: payload.smtp_response ?? null } });
      outcomes.delivered(message, occurredAt);
      return;
    case 'bounce': {
      const bounce = { bounceType: payload.bounce_type, bounceCode: payload.bounce_code ?? null, bounceMessage: payload.diagnostic ?? null, occurredAt };
      deps.providerLog.recordEvent({ ...base, kind: 'bounced', details: bounce });
      outcomes.bounced('mailserver-a', message, payload.recipient, bounce);
      return;
    }
    case 'complaint':
      deps.providerLog.recordEvent({ ...base, kind: 'complained', details: { feedbackType: payload.feedback_type ?? null } });
      outcomes.complained(message, payload.recipient);
      return;
  }
}
