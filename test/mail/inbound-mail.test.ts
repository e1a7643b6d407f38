/**
 * Received mail through HTTP (issue 15, "Inbound email.received"; DECISIONS mail-4): a raw message
 * handed to `POST /_stub/mail/inbound` of the platform server is parsed with mailparser and posted
 * to the inbound route of its recipient's domain as the flat, always-signed `email.received`
 * event (attachments as metadata only), retried up to 3 times after a failure.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { verifyWebhookSignature } from '../../generated/mail/webhooks.gen.js';
import { createManualClock } from '../../server-stubs/lib/clock.js';
import { createMailApp } from '../../server-stubs/mail/app.js';
import mailService from '../../server-stubs/mail/app.js';
import { startPlatformServer, type PlatformServer } from '../../server-stubs/server.js';
import { payloadErrors, startReceiver, type Receiver } from './webhooks-support.js';

let platform: PlatformServer;
let receiver: Receiver;
let origin = '';
let mail: ReturnType<typeof createMailApp>;
const clock = createManualClock();
const secret = 'inbound-signing-secret';

beforeAll(async () => {
  receiver = await startReceiver();
  const service = { ...mailService, create: (options: object) => (mail = createMailApp(options)) };
  platform = await startPlatformServer(0, '127.0.0.1', { clock, services: [service] });
  origin = `http://127.0.0.1:${platform.port}`;
});
afterAll(async () => {
  await platform.close();
  await receiver.close();
});
beforeEach(async () => {
  await fetch(`${origin}/_stub/reset`, { method: 'POST' });
  mail.webhooks.configure({ allowLoopback: true, timeoutMs: 2000 });
  receiver.received.length = 0;
  receiver.status = 200;
});

const max = { authorization: 'Bearer msk_test_max', 'content-type': 'application/json' };

async function route(domain: string, withSecret = true) {
  const response = await fetch(`${origin}/mail/v1/inbound`, { method: 'POST', headers: max, body: JSON.stringify({ domain, webhook_url: receiver.url, ...(withSecret && { secret }) }) });
  expect(response.status).toBe(201);
  return (await response.json()).data;
}

async function hand(raw: string, type = 'message/rfc822') {
  const response = await fetch(`${origin}/_stub/mail/inbound`, { method: 'POST', headers: { 'content-type': type }, body: raw });
  return { status: response.status, body: await response.json() };
}

const advance = (seconds: number) => fetch(`${origin}/_stub/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceSeconds: seconds }) }).then((r) => r.json());

const message = [
  'From: Ada Lovelace <ada@example.com>',
  'To: support@inbound.example.org, other@elsewhere.example',
  'Cc: Grace <grace@example.com>',
  'Subject: Engine notes',
  'Message-ID: <note-1@example.com>',
  'X-Spam-Score: 1.5',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="b1"',
  '',
  '--b1',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'The analytical engine weaves algebraic patterns.',
  '--b1',
  'Content-Type: application/pdf; name="notes.pdf"',
  'Content-Disposition: attachment; filename="notes.pdf"',
  'Content-Transfer-Encoding: base64',
  '',
  Buffer.from('%PDF-1.4 notes').toString('base64'),
  '--b1--',
  '',
].join('\r\n');

describe('POST /_stub/mail/inbound', () => {
  test("posts the flat email.received event to the recipient domain's route, signed, attachments as metadata", async () => {
    const r = await route('inbound.example.org');
    const answer = await hand(message);
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ events: [{ id: expect.any(String), route_id: r.id, domain: 'inbound.example.org', to: 'support@inbound.example.org' }], unrouted: ['other@elsewhere.example', 'grace@example.com'] });
    await advance(0);
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    expect(await verifyWebhookSignature(delivery!.body, delivery!.headers['x-service-signature'] as string, secret)).toBe(true);
    expect(delivery!.headers['x-service-event']).toBe('email.received');
    expect(payloadErrors('inbound:email.received', delivery!.json)).toEqual([]);
    expect(delivery!.json).toMatchObject({
      event: 'email.received',
      id: answer.body.events[0].id,
      from: 'ada@example.com',
      to: 'support@inbound.example.org',
      cc: 'grace@example.com',
      subject: 'Engine notes',
      text: 'The analytical engine weaves algebraic patterns.',
      attachments: [{ filename: 'notes.pdf', contentType: 'application/pdf', size: 14 }],
      spam_score: 1.5,
      message_id: '<note-1@example.com>',
      received_at: new Date(clock.now()).toISOString(),
    });
    expect(delivery!.json.headers).toMatchObject({ subject: 'Engine notes', 'x-spam-score': '1.5' });
  });

  test('a failed delivery is retried 3 times (10 s, 30 s, 60 s), then no more', async () => {
    await route('inbound.example.org');
    receiver.status = 500;
    await hand(message);
    await advance(0);
    expect(receiver.received).toHaveLength(1);
    await advance(9);
    expect(receiver.received).toHaveLength(1);
    await advance(1);
    expect(receiver.received).toHaveLength(2);
    await advance(30);
    await advance(60);
    expect(receiver.received).toHaveLength(4);
    await advance(3600);
    expect(receiver.received).toHaveLength(4);
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
  });

  test("without its own secret a route signs with the dashboard's (a Form A endpoint's); with none the attempt fails and nothing unsigned leaves", async () => {
    const r = await route('inbound.example.org', false);
    await hand(message);
    await advance(0);
    expect(receiver.received).toEqual([]);
    expect(mail.inboundMail.attemptsOf(r.id)[0]?.outcome.error).toMatch(/No signing secret/);
    const dashboard = await fetch(`${origin}/mail/api/webhooks`, {
      method: 'POST',
      headers: { cookie: 'session=sess_test_max', 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://hooks.example.com/a', events: ['contact.created'], secret: 'dashboard-secret-0123' }),
    });
    expect(dashboard.status).toBe(201);
    await hand(message);
    await advance(0);
    expect(await verifyWebhookSignature(receiver.received[0]!.body, receiver.received[0]!.headers['x-service-signature'] as string, 'dashboard-secret-0123')).toBe(true);
  });

  test('404 when no recipient has a route; 400 for a message without a From or any recipient; 415 for another media type', async () => {
    expect(await hand(message)).toEqual({ status: 404, body: { error: 'No inbound route for: support@inbound.example.org, other@elsewhere.example, grace@example.com' } });
    expect((await hand('Subject: nobody\r\n\r\nHello')).status).toBe(400);
    expect((await hand(message, 'text/plain')).status).toBe(415);
  });
});
