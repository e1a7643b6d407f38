import type { Transporter } from 'nodemailer';
import type { Address, OutboxMessage } from './outbox.js';

/**
 * Where accepted mail goes after the outbox. The default keeps it in the outbox only (the stub's
 * "delivery"); with `MAIL_SMTP_URL` (`smtp://user:pass@host:port`, `smtps://…`) every message is
 * also relayed over SMTP, so a developer can watch it arrive in a local mail catcher.
 */
export interface MailRelay {
  /** Resolves when the message was handed over; rejects with the server's reason. */
  deliver(message: OutboxMessage): Promise<void>;
  close(): void;
}

/** The domain of the message ids the stub puts in `Message-ID` (`<id@domain>`), so a received mail names its send. */
export const messageIdDomain = 'mail.platform.example';

export function smtpRelay(url: string): MailRelay {
  // One pooled connection: sends from a busy test reuse it instead of opening one each. nodemailer
  // is loaded with the first message, not at start (most runs never relay).
  let transport: Promise<Transporter> | undefined;
  const connect = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(url, { pool: true, maxConnections: 1 } as never)));
  return {
    async deliver(message) {
      await (await connect()).sendMail({
        messageId: `<${message.id}@${messageIdDomain}>`,
        from: nodemailerAddress(message.from),
        to: message.to.map(nodemailerAddress),
        subject: message.subject,
        ...(message.html !== null && { html: message.html }),
        ...(message.text !== null && { text: message.text }),
        headers: { 'X-Mail-Message-Id': message.id },
      });
    },
    close: () => void transport?.then(
      (t) => t.close(),
      () => {}, // it never connected: nothing to close
    ),
  };
}

const nodemailerAddress = (a: Address) => (a.name ? { name: a.name, address: a.email } : a.email);

/** The relay `MAIL_SMTP_URL` asks for, or none (messages stay in the outbox). */
export function relayFromEnv(env: NodeJS.ProcessEnv = process.env): MailRelay | undefined {
  return env.MAIL_SMTP_URL ? smtpRelay(env.MAIL_SMTP_URL) : undefined;
}
