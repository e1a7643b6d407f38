/**
 * `POST /v1/send` and the sandbox through HTTP (issue 14, "POST /v1/send"): the outbox, the SMTP
 * relay received by a local SMTP server (smtp-server) and read with mailparser, idempotent
 * retries that send once, suppressed recipients skipped and reported, the key's account
 * restriction, the plan's monthly quota, `X-Service-Sandbox` captures, and the events on the bus.
 */
import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { planQuotas } from '../../server-stubs/mail/identity/plans.js';
import type { MailEvents } from '../../server-stubs/mail/events.js';
import { smtpRelay } from '../../server-stubs/mail/sending/relay.js';
import { answered, startMail, type MailStub } from './identity-support.js';

interface Received {
  envelope: { from: string; to: string[] };
  mail: ParsedMail;
}

/** An SMTP server on loopback that keeps what it receives; `refuse` makes it reject recipients. */
async function startSmtp() {
  const received: Received[] = [];
  const state = { refuse: false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      callback(state.refuse ? Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }) : undefined);
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          received.push({ envelope: { from: (session.envelope.mailFrom as { address: string }).address, to: session.envelope.rcptTo.map((r) => r.address) }, mail });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, received, state, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let smtp: Awaited<ReturnType<typeof startSmtp>>;
let mail: MailStub;
beforeAll(async () => {
  smtp = await startSmtp();
  mail = await startMail({ relay: smtpRelay(smtp.url) });
});
afterAll(async () => {
  mail.app.close();
  await mail.close();
  await smtp.close();
});
beforeEach(async () => {
  await mail.app.runDue(); // hand-overs a previous test left running land before the count starts
  mail.app.reset();
  smtp.received.length = 0;
  smtp.state.refuse = false;
});

const max = () => mail.key('msk_test_max');
const message = { from: { email: 'hello@example.com', name: 'Example Ltd' }, to: [{ email: 'ada@example.com', name: 'Ada' }], subject: 'Welcome', html: '<p>Welcome, Ada!</p>', text: 'Welcome, Ada!' };

async function send(body: Record<string, unknown> = message, client = max(), sandbox?: boolean) {
  return client.POST('/v1/send', { body: body as never, ...(sandbox !== undefined && { params: { header: { 'X-Service-Sandbox': sandbox } } }) });
}

describe('the SMTP relay', () => {
  test('an accepted send is relayed: envelope, headers and both bodies arrive; the outbox says delivered', async () => {
    const events: string[] = [];
    const offs = (['email.sent', 'email.delivered'] as const).map((name) => mail.app.events.on(name, (e: MailEvents[typeof name]) => events.push(`${name} ${e.messageId} ${e.to.join(',')}`)));
    const data = answered(await send(), 200, '/v1/send', 'post').data;
    expect(data).toMatchObject({ status: 'queued', to: ['ada@example.com'], suppressed: [], sandbox: false, idempotency_key: null });
    await mail.app.runDue();
    offs.forEach((off) => off());
    expect(smtp.received).toHaveLength(1);
    const [{ envelope, mail: got }] = smtp.received as [Received];
    expect(envelope).toEqual({ from: 'hello@example.com', to: ['ada@example.com'] });
    expect(got.from?.value).toEqual([{ address: 'hello@example.com', name: 'Example Ltd' }]);
    expect(got.to && !Array.isArray(got.to) && got.to.value).toEqual([{ address: 'ada@example.com', name: 'Ada' }]);
    expect(got.subject).toBe('Welcome');
    expect(got.text?.trim()).toBe('Welcome, Ada!');
    expect(got.html).toContain('<p>Welcome, Ada!</p>');
    expect(got.messageId).toBe(`<${data.id}@mail.platform.example>`);
    expect(got.headers.get('x-mail-message-id')).toBe(data.id);
    expect(mail.app.outbox.get(data.id)).toMatchObject({ status: 'delivered', error: null });
    expect(events).toEqual([`email.sent ${data.id} ada@example.com`, `email.delivered ${data.id} ada@example.com`]);
  });

  test('a refusal of the SMTP server marks the message failed and announces no delivery', async () => {
    smtp.state.refuse = true;
    const delivered: string[] = [];
    const off = mail.app.events.on('email.delivered', (e) => delivered.push(e.messageId));
    const data = answered(await send(), 200, '/v1/send', 'post').data;
    await mail.app.runDue();
    off();
    expect(mail.app.outbox.get(data.id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/550/) });
    expect(delivered).toEqual([]);
  });

  test('without a relay the outbox is the delivery: delivered at once, nothing leaves the process', async () => {
    const plain = await startMail();
    try {
      const data = answered(await plain.key('msk_test_max').POST('/v1/send', { body: message }), 200, '/v1/send', 'post').data;
      expect(plain.app.outbox.get(data.id)?.status).toBe('delivered');
    } finally {
      await plain.close();
    }
  });
});

describe('idempotency', () => {
  test('a retry with the same key and body answers the first answer and sends once; after 24 hours the key is new', async () => {
    const body = { ...message, idempotency_key: 'welcome-1' };
    const first = answered(await send(body), 200, '/v1/send', 'post');
    mail.clock.advance(60_000);
    const retry = answered(await send(body), 200, '/v1/send', 'post');
    expect(retry).toEqual(first);
    await mail.app.runDue();
    expect(smtp.received).toHaveLength(1);
    mail.clock.advance(24 * 60 * 60 * 1000);
    const later = answered(await send(body), 200, '/v1/send', 'post');
    expect(later.data.id).not.toBe(first.data.id);
  });

  test('the same key with another body, or another sandbox header, is a 422 that sends nothing; keys are per user', async () => {
    const body = { ...message, idempotency_key: 'welcome-2' };
    answered(await send(body), 200, '/v1/send', 'post');
    const changed = answered(await send({ ...body, subject: 'Other' }), 422, '/v1/send', 'post');
    expect(changed).toEqual({ success: false, error: 'idempotency_key was already used with a different request' });
    answered(await send(body, max(), true), 422, '/v1/send', 'post');
    answered(await send(body, mail.key('msk_test_pro')), 200, '/v1/send', 'post');
    await mail.app.runDue();
    expect(smtp.received).toHaveLength(2);
  });

  test('a refused send does not use up its key', async () => {
    const body = { ...message, html: undefined, text: undefined, idempotency_key: 'fix-and-retry' };
    answered(await send(body), 400, '/v1/send', 'post');
    answered(await send({ ...body, text: 'Now with a body' }), 200, '/v1/send', 'post');
  });
});

describe('recipients and rules', () => {
  test('suppressed recipients are skipped and reported; a send to only suppressed ones sends nothing', async () => {
    answered(await max().POST('/v1/contacts', { body: { email: 'gone@example.com', status: 'unsubscribed' } }), 201, '/v1/contacts', 'post');
    const data = answered(await send({ ...message, to: [{ email: 'ada@example.com' }, { email: 'GONE@example.com' }, { email: 'Ada@example.com' }] }), 200, '/v1/send', 'post').data;
    expect(data).toMatchObject({ status: 'queued', to: ['ada@example.com'], suppressed: ['GONE@example.com'] });
    const none = answered(await send({ ...message, to: [{ email: 'gone@example.com' }] }), 200, '/v1/send', 'post').data;
    expect(none).toMatchObject({ status: 'suppressed', to: [], suppressed: ['gone@example.com'] });
    await mail.app.runDue();
    expect(smtp.received.map((r) => r.envelope.to)).toEqual([['ada@example.com']]);
  });

  test('1 to 500 recipients (DECISIONS mail-6); neither html nor text is a 400', async () => {
    const to = (n: number) => Array.from({ length: n }, (_, i) => ({ email: `r${i}@example.com` }));
    answered(await send({ ...message, to: to(500) }), 200, '/v1/send', 'post');
    answered(await send({ ...message, to: to(501) }), 400, '/v1/send', 'post');
    answered(await send({ ...message, to: [] }), 400, '/v1/send', 'post');
    const empty = answered(await send({ ...message, html: undefined, text: undefined }), 400, '/v1/send', 'post');
    expect(empty.details).toEqual({ formErrors: ['Provide html or text'] });
  });

  test("a key restricted to an account sends only from that account's address: 403 otherwise, nothing sent", async () => {
    const session = mail.session('sess_test_max');
    const account = answered(await session.POST('/accounts', { body: { name: 'Billing', email: 'billing@example.com' } }), 201, '/accounts', 'post').data;
    const created = answered(await session.POST('/v1/keys', { body: { name: 'billing only', allowed_account_id: account.id } }), 201, '/v1/keys', 'post').data;
    const restricted = mail.key(created.key);
    answered(await send({ ...message, from: { email: 'BILLING@example.com' } }, restricted), 200, '/v1/send', 'post');
    const refused = answered(await send(message, restricted), 403, '/v1/send', 'post');
    expect(refused.error).toBe('from.email does not match the account this API key is restricted to');
    await mail.app.runDue();
    expect(smtp.received.map((r) => r.envelope.from)).toEqual(['BILLING@example.com']);
  });

  test("the plan's monthly quota counts delivered recipients; a send past it is a 403, nothing sent; a new month starts again", async () => {
    const free = mail.key('msk_test_free');
    const quota = planQuotas.free.emails_per_month!;
    const to = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ email: `${tag}${i}@example.com` }));
    for (let sent = 0; sent < quota - 1; sent += 500) answered(await send({ ...message, to: to(Math.min(500, quota - 1 - sent), `b${sent}-`) }, free), 200, '/v1/send', 'post');
    const limits = answered(await free.GET('/v1/plan-limits'), 200, '/v1/plan-limits', 'get').data;
    expect(limits.usage.emails_this_month).toBe(quota - 1);
    const refused = answered(await send({ ...message, to: to(2, 'over') }, free), 403, '/v1/send', 'post');
    expect(refused.error).toBe(`Monthly email quota of the Free plan reached: ${quota - 1} of ${quota} used, this send has 2 recipients`);
    answered(await send({ ...message, to: to(1, 'last') }, free, true), 200, '/v1/send', 'post'); // sandboxed: not counted
    answered(await send({ ...message, to: to(1, 'last') }, free), 200, '/v1/send', 'post');
    const now = new Date(mail.clock.now());
    mail.clock.set(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    answered(await send({ ...message, to: to(2, 'next') }, free), 200, '/v1/send', 'post');
  });

  test('a token without the send scope is a 403; a body that is not JSON a 415', async () => {
    answered(await send(message, mail.key('msk_test_oauth_send')), 200, '/v1/send', 'post');
    const raw = await fetch(`${mail.baseUrl}/v1/send`, { method: 'POST', headers: { authorization: 'Bearer msk_test_max', 'content-type': 'text/plain' }, body: 'hello' });
    expect(raw.status).toBe(415);
    expect(await raw.json()).toEqual({ success: false, error: 'Content-Type must be application/json' });
  });
});

describe('the sandbox (X-Service-Sandbox)', () => {
  test('a sandboxed send is answered as usual, captured with its id, never relayed, and cleared by DELETE', async () => {
    const sent: string[] = [];
    const off = mail.app.events.on('email.sent', (e) => sent.push(e.messageId));
    const data = answered(await send(message, max(), true), 200, '/v1/send', 'post').data;
    expect(data).toMatchObject({ status: 'sandboxed', sandbox: true });
    answered(await send({ ...message, subject: 'Real' }, max(), false), 200, '/v1/send', 'post');
    await mail.app.runDue();
    off();
    expect(smtp.received.map((r) => r.mail.subject)).toEqual(['Real']);
    expect(sent).not.toContain(data.id);
    const box = answered(await max().GET('/v1/sandbox'), 200, '/v1/sandbox', 'get');
    expect(box.data).toEqual([
      { id: data.id, from: message.from, to: [{ email: 'ada@example.com' }], subject: 'Welcome', html: message.html, text: message.text, created_at: data.created_at },
    ]);
    expect(answered(await mail.key('msk_test_pro').GET('/v1/sandbox'), 200, '/v1/sandbox', 'get').data).toEqual([]);
    expect(answered(await max().DELETE('/v1/sandbox'), 200, '/v1/sandbox', 'delete')).toEqual({ success: true });
    expect(answered(await max().GET('/v1/sandbox'), 200, '/v1/sandbox', 'get').pagination.total).toBe(0);
  });

  test('the sandbox header takes true or false only', async () => {
    const raw = await fetch(`${mail.baseUrl}/v1/send`, { method: 'POST', headers: { authorization: 'Bearer msk_test_max', 'content-type': 'application/json', 'x-service-sandbox': 'maybe' }, body: JSON.stringify(message) });
    expect(raw.status).toBe(400);
    await raw.body?.cancel();
  });
});
