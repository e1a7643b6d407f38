import type { Clock } from '../../lib/clock.js';
import type { MailEventBus } from '../events.js';
import type { Outbox, OutboxMessage } from './outbox.js';
import { trackedHtml } from '../tracking/tracked-html.js';
import type { MailRelay } from './relay.js';

/**
 * Takes accepted messages out of the outbox: announces `email.sent`, hands each to the relay when
 * one is configured (its HTML with the open pixel and tracked links; else the outbox is the delivery), and announces `email.delivered` or records
 * the relay's refusal. Hand-overs run after the answer; `settled()` waits for them, which is what
 * `POST /_stub/clock` and tests wait on.
 */
export class Delivery {
  private pending = new Set<Promise<void>>();

  /** `trackingBaseUrl`: where the copies' pixel and tracked links point (the mail service's public base URL). */
  constructor(
    private clock: Clock,
    private events: MailEventBus,
    private relay: MailRelay | undefined,
    private trackingBaseUrl: string,
  ) {}

  /** Starts the hand-over; the promise settles when it ended, delivered or failed (it never rejects). */
  dispatch(message: OutboxMessage): Promise<void> {
    const recipients = message.to.map((a) => a.email);
    this.events.emit('email.sent', { userId: message.userId, messageId: message.id, to: recipients });
    if (!this.relay) {
      this.delivered(message);
      return Promise.resolve();
    }
    return this.track(
      this.relay.deliver(message.html === null ? message : { ...message, html: trackedHtml(message.html, message.id, this.trackingBaseUrl) }).then(
        () => this.delivered(message),
        (error: unknown) => {
          message.status = 'failed';
          message.error = error instanceof Error ? error.message : String(error);
        },
      ),
    );
  }

  /** Background work `settled()` waits for (hand-overs, and what follows them). */
  track(work: Promise<void>): Promise<void> {
    const tracked = work.finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
    return tracked;
  }

  /** Resolves once every hand-over started so far has ended. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  close(): void {
    this.relay?.close();
  }

  private delivered(message: OutboxMessage): void {
    message.status = 'delivered';
    message.deliveredAt = this.clock.now();
    this.events.emit('email.delivered', { userId: message.userId, messageId: message.id, to: message.to.map((a) => a.email) });
  }
}
