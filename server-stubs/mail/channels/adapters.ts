import { randomBytes } from 'node:crypto';
import type { PushToken } from '../audience/contacts-store.js';

/** A WhatsApp message as the handler accepted it: an approved template or free-form text. */
export type WhatsAppMessage =
  | { kind: 'template'; to: string; contactId: string | null; templateName: string; language: string; parameters: string[] }
  | { kind: 'text'; to: string; contactId: string | null; text: string };

export interface PushNotification {
  title: string;
  message: string;
  url?: string;
  icon?: string;
  data?: Record<string, unknown>;
}

/** Hands a message to the WhatsApp Business platform; answers the platform's message id. */
export interface WhatsAppAdapter {
  send(userId: string, message: WhatsAppMessage): Promise<{ messageId: string }>;
}

/** Hands a notification to FCM or APNs for one device token; answers whether the platform took it. */
export interface PushAdapter {
  deliver(userId: string, token: PushToken, notification: PushNotification): Promise<boolean>;
}

/** The stub's default: nothing leaves the machine; the channel log keeps what was sent. */
export const recordingWhatsApp: WhatsAppAdapter = {
  send: async () => ({ messageId: `wamid.${randomBytes(24).toString('base64url')}` }),
};

/** The stub's default: every registered token counts as delivered; the channel log keeps the notification. */
export const recordingPush: PushAdapter = {
  deliver: async () => true,
};
