import type { Clock } from '../../lib/clock.js';
import type { PushToken } from '../audience/contacts-store.js';
import { recordingPush, recordingWhatsApp, type PushAdapter, type PushNotification, type WhatsAppAdapter, type WhatsAppMessage } from './adapters.js';

export type Channel = 'whatsapp' | 'push';

/** How long an inbound message keeps free-form sends to its number open (WhatsApp's customer-service window). */
export const sessionWindowMs = 24 * 60 * 60 * 1000;

export interface SentWhatsApp {
  userId: string;
  messageId: string;
  message: WhatsAppMessage;
  at: number;
}

export interface PushDelivery {
  userId: string;
  contactId: string;
  token: PushToken;
  notification: PushNotification;
  delivered: boolean;
  at: number;
}

/**
 * WhatsApp and push messages the channel adapters were handed, the inbound WhatsApp messages that
 * open a 24-hour session window per (user, number), and each account's channel set-up. Designed
 * (provisional): every account has a connected WhatsApp Business account and push enabled; the
 * plan gate decides before them, so on the stub "not configured" follows only `configure(…, false)`.
 */
export class ChannelLog {
  private whatsapp: SentWhatsApp[] = [];
  private push: PushDelivery[] = [];
  /** `${userId} ${phone}` → time of the last inbound message */
  private inbound = new Map<string, number>();
  private unconfigured = new Set<string>();
  private adapters: { whatsapp: WhatsAppAdapter; push: PushAdapter } = { whatsapp: recordingWhatsApp, push: recordingPush };

  constructor(private clock: Clock) {
    this.reset();
  }

  /** Back to the seeds: nothing sent or received, every channel configured, the recording adapters. */
  reset(): void {
    this.whatsapp = [];
    this.push = [];
    this.inbound.clear();
    this.unconfigured.clear();
    this.adapters = { whatsapp: recordingWhatsApp, push: recordingPush };
  }

  /** Replaces the adapters that hand messages on (tests inject failing ones); `reset()` restores the defaults. */
  useAdapters(adapters: { whatsapp?: WhatsAppAdapter; push?: PushAdapter }): void {
    this.adapters = { ...this.adapters, ...adapters };
  }

  configure(userId: string, channel: Channel, configured: boolean): void {
    const key = `${userId} ${channel}`;
    if (configured) this.unconfigured.delete(key);
    else this.unconfigured.add(key);
  }

  isConfigured(userId: string, channel: Channel): boolean {
    return !this.unconfigured.has(`${userId} ${channel}`);
  }

  /** An inbound WhatsApp message from `phone` to the user's account: it opens the session window. */
  recordInbound(userId: string, phone: string, at = this.clock.now()): void {
    const key = `${userId} ${phone}`;
    this.inbound.set(key, Math.max(at, this.inbound.get(key) ?? at));
  }

  sessionOpen(userId: string, phone: string): boolean {
    const last = this.inbound.get(`${userId} ${phone}`);
    return last !== undefined && this.clock.now() - last < sessionWindowMs;
  }

  async sendWhatsApp(userId: string, message: WhatsAppMessage): Promise<SentWhatsApp> {
    const { messageId } = await this.adapters.whatsapp.send(userId, message);
    const sent = { userId, messageId, message, at: this.clock.now() };
    this.whatsapp.push(sent);
    return sent;
  }

  /** Hands the notification to every token; a token whose adapter throws counts as failed. */
  async sendPush(userId: string, contactId: string, tokens: PushToken[], notification: PushNotification): Promise<PushDelivery[]> {
    const deliveries = await Promise.all(
      tokens.map(async (token) => {
        const delivered = await this.adapters.push.deliver(userId, token, notification).catch(() => false);
        return { userId, contactId, token: { ...token }, notification, delivered, at: this.clock.now() };
      }),
    );
    this.push.push(...deliveries);
    return deliveries;
  }

  whatsAppSentBy(userId: string): SentWhatsApp[] {
    return this.whatsapp.filter((m) => m.userId === userId);
  }

  pushDeliveriesOf(userId: string): PushDelivery[] {
    return this.push.filter((d) => d.userId === userId);
  }
}
