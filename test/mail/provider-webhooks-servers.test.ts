/**
 * Mail servers A and B and the internal auto-translate webhook through HTTP (issue 15, "Provider
 * webhooks"): A's delivery, bounce and complaint events normalized into records; B's source-IP
 * allowlist and RSA-SHA1 `X-Postal-Signature` over the exact bytes (a key pair made here), its
 * eight event kinds and repeated request ids; translation through the deterministic adapter.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { signPostalBody } from '../../server-stubs/mail/providers/postal-signature.js';
import { postalTestPrivateKey } from '../../server-stubs/mail/providers/postal-test-keys.js';
import { mailForEachTest, startMail } from './identity-support.js';
import { call, contactStatus, recordBus, secrets, sentBy, suppressions } from './provider-webhooks-support.js';

const pair = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });

const mail = mailForEachTest({ secrets: { postalPublicKey: pair.publicKey } });

describe('POST /webhooks/mailserver-a', () => {
  const eventA = (payload: Record<string, unknown>, status = 200, headers: Record<string, string> = { 'x-inbound-secret': secrets.inbound }) =>
    call(mail, 'POST', '/webhooks/mailserver-a', status, { body: JSON.stringify({ payload }), headers: { ...headers, 'content-type': 'application/json' } });
  const at = '2026-03-01T12:00:05.000Z';

  test('a delivery marks a queued message delivered at the reported time and is recorded', async () => {
    const held = await startMail({ relay: { deliver: () => new Promise(() => {}), close() {} } });
    try {
      const id = await sentBy(held, ['ada@example.com']);
      expect(held.app.outbox.get(id)!.status).toBe('queued');
      await call(held, 'POST', '/webhooks/mailserver-a', 200, {
        body: JSON.stringify({ payload: { type: 'delivery', message_id: id, recipient: 'ada@example.com', timestamp: at, smtp_response: '250 2.0.0 OK' } }),
        headers: { 'x-inbound-secret': secrets.inbound, 'content-type': 'application/json' },
      });
      expect(held.app.outbox.get(id)).toMatchObject({ status: 'delivered', deliveredAt: Date.parse(at) });
      expect(held.app.providerLog.events).toMatchObject([{ source: 'mailserver-a', kind: 'delivered', messageId: id, userIds: ['usr_max'], email: 'ada@example.com', occurredAt: Date.parse(at), details: { smtpResponse: '250 2.0.0 OK' } }]);
    } finally {
      await held.close();
    }
  });

  test('a hard bounce: bounce record, email.bounced, the address suppressed as bounced, the contact bounced, the message failed', async () => {
    await mail.key('msk_test_max').POST('/v1/contacts', { body: { email: 'gone@example.net' } });
    const id = await sentBy(mail, ['gone@example.net']);
    const bus = recordBus(mail, 'email.bounced');
    await eventA({ type: 'bounce', message_id: `<${id}@mail.platform.example>`, recipient: 'gone@example.net', bounce_type: 'hard', bounce_code: '5.1.1', diagnostic: '550 5.1.1 no such user', timestamp: at });
    expect(mail.app.providerLog.bounces).toEqual([{ source: 'mailserver-a', messageId: id, userIds: ['usr_max'], email: 'gone@example.net', bounceType: 'hard', bounceCode: '5.1.1', bounceMessage: '550 5.1.1 no such user', occurredAt: Date.parse(at) }]);
    expect(bus).toEqual([{ event: 'email.bounced', payload: { userId: 'usr_max', messageId: id, email: 'gone@example.net', bounceType: 'hard', bounceCode: '5.1.1', bounceMessage: '550 5.1.1 no such user' } }]);
    expect(await suppressions(mail)).toContainEqual(expect.objectContaining({ email: 'gone@example.net', reason: 'bounced' }));
    expect(await contactStatus(mail, 'gone@example.net')).toBe('bounced');
    expect(mail.app.outbox.get(id)).toMatchObject({ status: 'failed', error: 'bounced: 550 5.1.1 no such user' });
  });

  test('a message to two recipients fails only once both bounced for good; a soft bounce suppresses nothing', async () => {
    const id = await sentBy(mail, ['one@example.net', 'two@example.net']);
    await eventA({ type: 'bounce', message_id: id, recipient: 'one@example.net', bounce_type: 'soft', timestamp: at });
    await eventA({ type: 'bounce', message_id: id, recipient: 'two@example.net', bounce_type: 'hard', timestamp: at });
    expect(mail.app.outbox.get(id)!.status).toBe('delivered');
    expect((await suppressions(mail)).map((s) => s.email)).toEqual(['two@example.net']);
    await eventA({ type: 'bounce', message_id: id, recipient: 'one@example.net', bounce_type: 'hard', timestamp: at });
    expect(mail.app.outbox.get(id)!.status).toBe('failed');
  });

  test('a complaint suppresses as complained, sets the contact complained and emits email.complained', async () => {
    await mail.key('msk_test_max').POST('/v1/contacts', { body: { email: 'angry@example.com' } });
    const id = await sentBy(mail, ['angry@example.com']);
    const bus = recordBus(mail, 'email.complained');
    await eventA({ type: 'complaint', message_id: id, recipient: 'angry@example.com', feedback_type: 'abuse', timestamp: at });
    expect(await contactStatus(mail, 'angry@example.com')).toBe('complained');
    expect(await suppressions(mail)).toContainEqual(expect.objectContaining({ email: 'angry@example.com', reason: 'complained' }));
    expect(bus).toEqual([{ event: 'email.complained', payload: { userId: 'usr_max', messageId: id, email: 'angry@example.com' } }]);
  });

  test('an event about a message the stub did not send is recorded and changes no user', async () => {
    const bus = recordBus(mail, 'email.bounced', 'email.complained');
    await eventA({ type: 'bounce', message_id: randomUUID(), recipient: 'ada.max@example.com', bounce_type: 'hard', timestamp: at });
    await eventA({ type: 'complaint', message_id: 'unknown', recipient: 'ada.max@example.com', timestamp: at });
    expect(mail.app.providerLog.events.map((e) => e.kind)).toEqual(['bounced', 'complained']);
    expect(mail.app.providerLog.bounces).toMatchObject([{ messageId: null, userIds: [] }]);
    expect(bus).toEqual([]);
    expect(await suppressions(mail)).toEqual([]);
  });

  test('refusals: wrong or missing secret 401, no or unknown payload 400, nothing recorded', async () => {
    await eventA({ type: 'delivery', message_id: 'x', recipient: 'a@example.com', timestamp: at }, 401, {});
    await eventA({ type: 'delivery', message_id: 'x', recipient: 'a@example.com', timestamp: at }, 401, { 'x-inbound-secret': 'wrong' });
    await eventA({ type: 'opened', message_id: 'x', recipient: 'a@example.com', timestamp: at }, 400);
    await eventA({ type: 'bounce', message_id: 'x', recipient: 'a@example.com', bounce_type: 'permanent', timestamp: at }, 400);
    await eventA({ type: 'delivery', message_id: 'x', recipient: 'not an address', timestamp: at }, 400);
    await call(mail, 'POST', '/webhooks/mailserver-a', 400, { body: JSON.stringify({}), headers: { 'x-inbound-secret': secrets.inbound, 'content-type': 'application/json' } });
    await call(mail, 'POST', '/webhooks/mailserver-a', 400, { body: '{"payload":', headers: { 'x-inbound-secret': secrets.inbound, 'content-type': 'application/json' } });
    expect(mail.app.providerLog.events).toEqual([]);
  });
});

describe('POST /webhooks/mailserver-b', () => {
  const eventB = (event: string, payload: Record<string, unknown>, uuid: string = randomUUID()) => JSON.stringify({ event, timestamp: 1772366405.25, uuid, payload });
  const postB = (raw: string, status = 200, signature: string | null = signPostalBody(raw, pair.privateKey), stub = mail) =>
    call(stub, 'POST', '/webhooks/mailserver-b', status, { body: raw, headers: { 'content-type': 'application/json', ...(signature !== null && { 'x-postal-signature': signature }) } });
  const message = (id: string, to: string) => ({ id: 1042, token: 'a1b2c3d4', message_id: `${id}@mail.platform.example`, to, subject: 'Your order has shipped' });

  test('the signature covers the exact bytes: the same JSON spaced differently does not verify', async () => {
    const raw = eventB('MessageHeld', { message: message('x', 'a@example.com') });
    const signature = signPostalBody(raw, pair.privateKey);
    await postB(raw, 200, signature);
    const body = await postB(JSON.stringify(JSON.parse(raw), null, 2), 401, signature);
    expect(body).toEqual({ success: false, error: 'Invalid signature' });
  });

  test('missing, garbage or another key\'s signature: 401, nothing recorded', async () => {
    const raw = eventB('MessageHeld', { message: message('x', 'a@example.com') });
    await postB(raw, 401, null);
    await postB(raw, 401, 'bm90IGEgc2lnbmF0dXJl');
    await postB(raw, 401, signPostalBody(raw, postalTestPrivateKey));
    expect(mail.app.providerLog.events).toEqual([]);
  });

  test('the published test key verifies when no key is configured (the default)', async () => {
    const defaults = await startMail();
    try {
      const raw = eventB('MessageHeld', { message: message('x', 'a@example.com') });
      await postB(raw, 200, signPostalBody(raw, postalTestPrivateKey), defaults);
      await postB(raw, 401, signPostalBody(raw, pair.privateKey), defaults);
    } finally {
      await defaults.close();
    }
  });

  test('a key configured as bare base64 SPKI (as the mail server shows it) verifies too', async () => {
    const bare = pair.publicKey.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
    const stub = await startMail({ secrets: { postalPublicKey: bare } });
    try {
      const raw = eventB('MessageHeld', { message: message('x', 'a@example.com') });
      await postB(raw, 200, undefined, stub);
    } finally {
      await stub.close();
    }
  });

  test('a source address off the allowlist: 403 even with a good signature', async () => {
    const stub = await startMail({ secrets: { postalPublicKey: pair.publicKey, postalAllowlist: ['192.0.2.1'] } });
    try {
      const body = await postB(eventB('MessageHeld', { message: message('x', 'a@example.com') }), 403, undefined, stub);
      expect(body.success).toBe(false);
      expect(stub.app.providerLog.events).toEqual([]);
    } finally {
      await stub.close();
    }
  });

  test('MessageSent and MessageDelivered mark a queued message delivered', async () => {
    const held = await startMail({ secrets: { postalPublicKey: pair.publicKey }, relay: { deliver: () => new Promise(() => {}), close() {} } });
    try {
      const first = await sentBy(held, ['ada@example.com']);
      const second = await sentBy(held, ['ada@example.com']);
      await postB(eventB('MessageSent', { status: 'Sent', message: message(first, 'ada@example.com') }), 200, undefined, held);
      await postB(eventB('MessageDelivered', { status: 'Sent', message: message(second, 'ada@example.com') }), 200, undefined, held);
      expect([held.app.outbox.get(first)!.status, held.app.outbox.get(second)!.status]).toEqual(['delivered', 'delivered']);
      expect(held.app.outbox.get(first)!.deliveredAt).toBe(1772366405250);
      expect(held.app.providerLog.events.map((e) => [e.kind, e.messageId])).toEqual([['sent', first], ['delivered', second]]);
    } finally {
      await held.close();
    }
  });

  test('MessageBounced is a hard bounce of original_message: suppressed, email.bounced', async () => {
    const id = await sentBy(mail, ['nobody@example.net']);
    const bus = recordBus(mail, 'email.bounced');
    await postB(eventB('MessageBounced', { original_message: message(id, 'nobody@example.net'), bounce: { id: 2001, subject: 'Mail delivery failed' } }));
    expect(bus.map((b) => b.payload)).toEqual([{ userId: 'usr_max', messageId: id, email: 'nobody@example.net', bounceType: 'hard', bounceCode: null, bounceMessage: 'Mail delivery failed' }]);
    expect(await suppressions(mail)).toContainEqual(expect.objectContaining({ email: 'nobody@example.net', reason: 'bounced' }));
    expect(mail.app.outbox.get(id)!.status).toBe('failed');
  });

  test('MessageDeliveryFailed: HardFail is a hard bounce, anything else a soft one', async () => {
    const id = await sentBy(mail, ['hard@example.net', 'soft@example.net']);
    await postB(eventB('MessageDeliveryFailed', { status: 'SoftFail', details: 'greylisted', message: message(id, 'soft@example.net') }));
    await postB(eventB('MessageDeliveryFailed', { status: 'HardFail', details: '550 no such user', message: message(id, 'hard@example.net') }));
    expect(mail.app.providerLog.bounces.map((b) => [b.email, b.bounceType, b.bounceMessage])).toEqual([
      ['soft@example.net', 'soft', 'greylisted'],
      ['hard@example.net', 'hard', '550 no such user'],
    ]);
    expect((await suppressions(mail)).map((s) => s.email)).toEqual(['hard@example.net']);
  });

  test('MessageDelayed, MessageHeld and MessageLinkClicked are recorded; DomainDNSError records the domain', async () => {
    const id = await sentBy(mail, ['ada@example.com']);
    await postB(eventB('MessageDelayed', { status: 'SoftFail', details: 'try later', message: message(id, 'ada@example.com') }));
    await postB(eventB('MessageHeld', { status: 'Held', message: message(id, 'ada@example.com') }));
    await postB(eventB('MessageLinkClicked', { url: 'https://shop.example.com/orders/1042', ip_address: '203.0.113.24', user_agent: 'Mozilla/5.0', message: message(id, 'ada@example.com') }));
    await postB(eventB('DomainDNSError', { domain: 'example.com', spf_status: 'Missing' }));
    expect(mail.app.providerLog.events.map((e) => e.kind)).toEqual(['delayed', 'held', 'clicked']);
    expect(mail.app.providerLog.events[2]!.details).toMatchObject({ url: 'https://shop.example.com/orders/1042', ipAddress: '203.0.113.24' });
    expect(mail.app.providerLog.dnsErrors).toMatchObject([{ domain: 'example.com', details: { spf_status: 'Missing' } }]);
    expect(mail.app.outbox.get(id)!.status).toBe('delivered');
  });

  test('a timestamp beyond what a date can hold is taken as the time received', async () => {
    const id = await sentBy(mail, ['late@example.net']);
    await postB(JSON.stringify({ event: 'MessageBounced', timestamp: 1e300, uuid: randomUUID(), payload: { original_message: message(id, 'late@example.net') } }));
    expect(mail.app.providerLog.bounces[0]!.occurredAt).toBe(mail.clock.now());
    expect(mail.app.providerLog.events[0]!.occurredAt).toBe(mail.clock.now());
  });

  test('a repeated uuid changes nothing', async () => {
    const id = await sentBy(mail, ['again@example.net']);
    const raw = eventB('MessageBounced', { original_message: message(id, 'again@example.net') }, 'fixed-uuid');
    await postB(raw);
    const bus = recordBus(mail, 'email.bounced');
    await postB(raw);
    expect(bus).toEqual([]);
    expect(mail.app.providerLog.bounces).toHaveLength(1);
  });

  test('400: an unknown kind, a message event without its message or recipient, bad JSON; nothing recorded', async () => {
    expect((await postB(eventB('MessageLoaded', { message: message('x', 'a@example.com') }), 400)).success).toBe(false);
    expect((await postB(eventB('MessageSent', { status: 'Sent' }), 400)).error).toBe('Unsupported event: MessageSent needs payload.message');
    expect((await postB(eventB('MessageBounced', { message: message('x', 'a@example.com') }), 400)).error).toMatch(/original_message/);
    expect((await postB(eventB('MessageSent', { message: { id: 1, to: 'not an address' } }), 400)).error).toMatch(/recipient/);
    await postB('{"event":', 400);
    expect(mail.app.providerLog.events).toEqual([]);
    // A refused event's uuid was not taken: the corrected retry is handled.
    const id = await sentBy(mail, ['retry@example.net']);
    await postB(eventB('MessageSent', { status: 'Sent' }, 'retry-uuid'), 400);
    await postB(eventB('MessageSent', { status: 'Sent', message: message(id, 'retry@example.net') }, 'retry-uuid'));
    expect(mail.app.providerLog.events).toHaveLength(1);
  });
});

describe('POST /webhooks/auto-translate', () => {
  const translate = (body: Record<string, unknown>, status = 200, headers: Record<string, string> = { 'x-internal-secret': secrets.internal }) =>
    call(mail, 'POST', '/webhooks/auto-translate', status, { body: JSON.stringify(body), headers: { ...headers, 'content-type': 'application/json' } });

  test('translates the given content, stores it on the email and answers it', async () => {
    const id = await sentBy(mail, ['ada@example.com']);
    const body = await translate({ emailId: id, targetLanguage: 'de', text: 'Hello, I have a question.', html: '<p>Hello <b>there</b></p>' });
    expect(body).toEqual({ success: true, data: { emailId: id, targetLanguage: 'de', text: '[de] Hello, I have a question.', html: '<p>[de] Hello <b>[de] there</b></p>' } });
    expect(mail.app.outbox.get(id)).toMatchObject({ text: '[de] Hello, I have a question.', html: '<p>[de] Hello <b>[de] there</b></p>' });
  });

  test('without text or html, the stored ones are translated; the tag is answered canonical', async () => {
    const id = await sentBy(mail, ['ada@example.com']);
    const body = await translate({ emailId: id, targetLanguage: 'pt-br' });
    expect(body.data).toEqual({ emailId: id, targetLanguage: 'pt-BR', text: '[pt-BR] Hello, your order has shipped.', html: '<p>[pt-BR] Hello, your order has shipped.</p>' });
  });

  test('the same input gives the same output (deterministic, no network)', async () => {
    const id = await sentBy(mail, ['ada@example.com']);
    const content = { emailId: id, targetLanguage: 'fr', text: 'Hello?', html: '<p>Hello?</p>' };
    const once = await translate(content);
    const twice = await translate(content);
    expect(twice).toEqual(once);
  });

  test('refusals: secret 401, unknown email 404, missing field or a non-language 400; the email unchanged', async () => {
    const id = await sentBy(mail, ['ada@example.com']);
    await translate({ emailId: id, targetLanguage: 'de' }, 401, {});
    await translate({ emailId: id, targetLanguage: 'de' }, 401, { 'x-internal-secret': secrets.inbound });
    expect(await translate({ emailId: randomUUID(), targetLanguage: 'de' }, 404)).toEqual({ success: false, error: 'Email not found' });
    await translate({ emailId: id }, 400);
    await translate({ emailId: '', targetLanguage: 'de' }, 400);
    const bad = await translate({ emailId: id, targetLanguage: 'not a language!!' }, 400);
    expect(bad.details.fieldErrors.targetLanguage).toEqual(['Must be a BCP-47 language tag, for example de or pt-BR']);
    await translate({ emailId: id, targetLanguage: 'de', text: 42 }, 400);
    expect(mail.app.outbox.get(id)).toMatchObject({ text: 'Hello, your order has shipped.' });
  });
});
