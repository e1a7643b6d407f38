import type { components } from '../../../../generated/mail/types.gen.js';
import { mailHandlers, type MailDeps, type SendAnswer } from '../../context.js';
import { iso, pageOf } from '../../wire-format.js';
import type { Address, OutboxMessage } from '../outbox.js';
import { refuseForeignSender, refuseOverQuota } from '../sender-rules.js';
import { invalidRequest } from '../../../lib/failures.js';

type SendRequest = components['schemas']['SendEmailRequest'];

/** Recipients as given, each address once (compared ignoring case), names kept. */
function distinct(to: SendRequest['to']): Address[] {
  const seen = new Set<string>();
  const recipients: Address[] = [];
  for (const r of to) {
    const key = r.email.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    recipients.push(r.name === undefined ? { email: r.email } : { email: r.email, name: r.name });
  }
  return recipients;
}

const captured = (m: OutboxMessage): components['schemas']['SandboxMessage'] => ({
  id: m.id,
  from: m.from.name === undefined ? { email: m.from.email } : { email: m.from.email, name: m.from.name },
  to: m.to.map((a) => ({ email: a.email })),
  subject: m.subject,
  html: m.html,
  text: m.text,
  created_at: iso(m.createdAt)!,
});

/** `POST /v1/send` and the sandbox it fills with `X-Service-Sandbox`. */
export function sendHandlers({ identity, contacts, outbox, delivery, sendKeys, clock }: MailDeps) {
  return mailHandlers({
    sendEmail: ({ principal, body, headers, fail }) => {
      const userId = principal.userId;
      const sandbox = headers['x-service-sandbox'] === true;
      const key = body.idempotency_key;
      const request = { body, sandbox };
      if (key !== undefined) {
        const seen = sendKeys.recall(userId, key, request);
        if (seen.kind === 'replay') return seen.answer;
        if (seen.kind === 'conflict') fail(422, undefined, 'idempotency_key was already used with a different request');
      }
      if (!body.html && !body.text) invalidRequest({ formErrors: ['Provide html or text'] });
      refuseForeignSender(identity, principal, body.from.email, fail);

      const recipients = distinct(body.to);
      const to = recipients.filter((r) => !contacts.isSuppressed(userId, r.email));
      const suppressed = recipients.filter((r) => !to.includes(r)).map((r) => r.email);
      if (!sandbox) refuseOverQuota(identity, outbox, userId, to.length, fail);

      let id: string = crypto.randomUUID();
      let status: SendAnswer['body']['data']['status'] = 'suppressed';
      if (to.length > 0) {
        const message = outbox.add({ userId, from: body.from, to, subject: body.subject, html: body.html ?? null, text: body.text ?? null, sandbox, campaignId: null, variantId: null });
        if (!sandbox) void delivery.dispatch(message);
        id = message.id;
        status = sandbox ? 'sandboxed' : 'queued';
      }
      const answer: SendAnswer = {
        status: 200,
        body: { success: true, data: { id, status, to: to.map((r) => r.email), suppressed, idempotency_key: key ?? null, sandbox, created_at: iso(clock.now())! } },
      };
      if (key !== undefined) sendKeys.remember(userId, key, request, answer);
      return answer;
    },

    listSandboxMessages: ({ principal, query }) => ({ status: 200, body: { success: true, ...pageOf(outbox.of(principal.userId, true).map(captured), query.page, query.limit) } }),

    clearSandbox: ({ principal }) => {
      outbox.clearSandbox(principal.userId);
      return { status: 200, body: { success: true } };
    },
  });
}
