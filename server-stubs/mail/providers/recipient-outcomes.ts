import type { MailDeps } from '../context.js';
import type { OutboxMessage } from '../sending/outbox.js';
import type { ProviderSource } from './provider-log.js';

type Deps = Pick<MailDeps, 'outbox' | 'contacts' | 'events' | 'providerLog'>;

/**
 * The outbox message a provider names: `<id@mail.platform.example>` (the stub's Message-ID),
 * `id@host`, or the bare id (`X-Mail-Message-Id`). Anything else is mail the stub did not send.
 */
export function sentMessage(deps: Deps, reference: string | null | undefined): OutboxMessage | undefined {
  const id = reference?.trim().replace(/^<|>$/g, '').split('@')[0];
  return id ? deps.outbox.get(id) : undefined;
}

const sameAddress = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * A report changes a user's data only when it names a message that user sent to that address: an
 * address alone says nothing about which tenant mailed it, and a forged report must not suppress
 * any address it likes.
 */
export function addressedBy(message: OutboxMessage | undefined, email: string | null): boolean {
  return message !== undefined && email !== null && message.to.some((a) => sameAddress(a.email, email));
}

/** What a delivery, bounce or complaint does to the outbox, the contacts and the suppression list. */
export class RecipientOutcomes {
  constructor(private deps: Deps) {}

  delivered(message: OutboxMessage | undefined, at: number): void {
    if (message?.status !== 'queued') return;
    message.status = 'delivered';
    message.deliveredAt = at;
  }

  bounced(
    source: Exclude<ProviderSource, 'fbl'>,
    message: OutboxMessage | undefined,
    email: string,
    bounce: { bounceType: 'hard' | 'soft'; bounceCode: string | null; bounceMessage: string | null; occurredAt: number },
  ): void {
    const owned = message && addressedBy(message, email) ? message : undefined;
    this.deps.providerLog.recordBounce({ source, messageId: owned?.id ?? null, userIds: owned ? [owned.userId] : [], email, ...bounce });
    if (!owned) return;
    if (bounce.bounceType === 'hard') {
      this.deps.contacts.suppress(owned.userId, email, 'bounced');
      const contact = this.deps.contacts.byEmail(owned.userId, email);
      if (contact && contact.status === 'subscribed') this.deps.contacts.update(contact, { status: 'bounced' });
      // The outbox has no per-recipient status: the message failed once every recipient bounced for good.
      const bouncedAll = this.deps.providerLog.hardBounced(owned.id);
      if (owned.to.every((a) => bouncedAll.has(a.email.toLowerCase()))) {
        owned.status = 'failed';
        owned.error = `bounced: ${bounce.bounceMessage ?? bounce.bounceCode ?? 'permanent failure'}`;
      }
    }
    this.deps.events.emit('email.bounced', { userId: owned.userId, messageId: owned.id, email, ...pick(bounce) });
  }

  /** Answers whether the address was suppressed (the report named a message of a user to it). */
  complained(message: OutboxMessage | undefined, email: string | null): boolean {
    if (!message || !email || !addressedBy(message, email)) return false;
    const address = email;
    this.deps.contacts.suppress(message.userId, address, 'complained');
    const contact = this.deps.contacts.byEmail(message.userId, address);
    if (contact && contact.status !== 'complained') this.deps.contacts.update(contact, { status: 'complained' });
    this.deps.events.emit('email.complained', { userId: message.userId, messageId: message.id, email: address });
    return true;
  }
}

const pick = (b: { bounceType: 'hard' | 'soft'; bounceCode: string | null; bounceMessage: string | null }) => ({
  bounceType: b.bounceType,
  bounceCode: b.bounceCode,
  bounceMessage: b.bounceMessage,
});
