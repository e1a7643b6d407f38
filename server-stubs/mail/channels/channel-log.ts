import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';
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
  private readonly clock: Clock;
  private readonly whatsapp: Collection<SentWhatsApp>;
  private readonly push: Collection<PushDelivery>;
  /** `${userId} ${phone}` → time of the last inbound message */
  private readonly inbound: Collection<{ at: number }>;
  /** `${userId} ${channel}` of the channels switched off */
  private readonly unconfigured: Collection<{ userId: string; channel: Channel }>;
  private adapters: { whatsapp: WhatsAppAdapter; push: PushAdapter } = { whatsapp: recordingWhatsApp, push: recordingPush };

  /** Starts with nothing sent or received and every channel configured (the seeds), and the recording adapters. */
  constructor(state: StateStore) {
    this.clock = state.clock;
    this.whatsapp = state.collection('channels.whatsapp', { tenantOf: (m) => m.userId });
    this.push = state.collection('channels.push', { tenantOf: (d) => d.userId });
    this.inbound = state.collection('channels.inbound');
    this.unconfigured = state.collection('channels.unconfigured');
  }

  /** Back to the recording adapters (the app's reset; adapters are wiring, not state). */
  resetAdapters(): void {
    this.adapters = { whatsapp: recordingWhatsApp, push: recordingPush };
  }

  /** Replaces the adapters that hand messages on (tests inject failing ones); `resetAdapters()` restores the defaults. */
  useAdapters(adapters: { whatsapp?: WhatsAppAdapter; push?: PushAdapter }): void {
    this.adapters = { ...this.adapters, ...adapters };
  }

  configure(userId: string, channel: Channel, configured: boolean): void {
    const key = `${userId} ${channel}`;
    if (configured) this.unconfigured.delete(key);
    else this.unconfigured.set(key, { userId, channel });
  }

  isConfigured(userId: string, channel: Channel): boolean {
    return !this.unconfigured.has(`${userId} ${channel}`);
  }

  /** An inbound WhatsApp message from `phone` to the user's account: it opens the session window. */
  recordInbound(userId: string, phone: string, at = this.clock.now()): void {
    const key = `${userId} ${phone}`;
    this.inbound.set(key, { at: Math.max(at, this.inbound.get(key)?.at ?? at) });
  }

  sessionOpen(userId: string, phone: string): boolean {
    const last = this.inbound.get(`${userId} ${phone}`)?.at;
    return last !== undefined && this.clock.now() - last < sessionWindowMs;
  }

  async sendWhatsApp(userId: string, message: WhatsAppMessage): Promise<SentWhatsApp> {
    const { messageId } = await this.adapters.whatsapp.send(userId, message);
    const sent = { userId, messageId, message, at: this.clock.now() };
    return this.whatsapp.set(randomUUID(), sent);
  }

  /** Hands the notification to every token; a token whose adapter throws counts as failed. */
  async sendPush(userId: string, contactId: string, tokens: PushToken[], notification: PushNotification): Promise<PushDelivery[]> {
    const deliveries = await Promise.all(
      tokens.map(async (token) => {
        const delivered = await this.adapters.push.deliver(userId, token, notification).catch(() => false);
        return { userId, contactId, token: { ...token }, notification, delivered, at: this.clock.now() };
      }),
    );
    for (const d of deliveries) this.push.set(randomUUID(), d);
    return deliveries;
  }

  whatsAppSentBy(userId: string): SentWhatsApp[] {
    return this.whatsapp.of(userId);
  }

  pushDeliveriesOf(userId: string): PushDelivery[] {
    return this.push.of(userId);
  }
}
