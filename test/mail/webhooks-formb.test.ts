/**
 * Form B webhooks through HTTP (issue 15): endpoint management at `/v1/webhooks`, the events of
 * real actions delivered to a receiver on 127.0.0.1 with verifiable signatures and the published
 * headers, the retry schedule on the stub clock up to `failed`, the attempt log, and the SSRF guard.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { verifyWebhookSignature } from '../../generated/mail/webhooks.gen.js';
import { answered, startMail, type MailStub } from './identity-support.js';
import { payloadErrors, startReceiver, type Receiver } from './webhooks-support.js';

let mail: MailStub;
let receiver: Receiver;
beforeAll(async () => {
  mail = await startMail();
});
afterAll(() => mail.close());
beforeEach(async () => {
  mail.app.reset();
  mail.app.webhooks.configure({ allowLoopback: true, timeoutMs: undefined });
  receiver = await startReceiver();
});
afterEach(() => receiver.close());

const max = () => mail.key('msk_test_max');
const pro = () => mail.key('msk_test_pro');
/** Published: retry 1 after 1 min, 2 after 5 min, 3 after 30 min, 4 after 2 h, 5 after 8 h. */
const formBRetryDelaysMs = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 8 * 3_600_000];
const unknownId = '0f0e0d0c-0b0a-4909-8807-060504030201';
const secret = 'whsec_test_5f2b8c1d9e4a7b3c';
const allEvents = ['email.sent', 'email.delivered', 'email.opened', 'email.clicked', 'email.bounced', 'email.complained', 'email.unsubscribed', 'campaign.sent', 'campaign.completed', 'contact.created', 'contact.updated'] as const;
type EventName = (typeof allEvents)[number];

async function endpoint(events: readonly EventName[] = allEvents, url = receiver.url, client = max()) {
  return answered(await client.POST('/v1/webhooks', { body: { url, events: [...events], secret } }), 201, '/v1/webhooks', 'post').data;
}

async function attempts(id: string, client = max()) {
  return answered(await client.GET('/v1/webhooks/{id}/events', { params: { path: { id } } }), 200, '/v1/webhooks/{id}/events', 'get').data;
}

async function newContact(email: string, client = max()) {
  return answered(await client.POST('/v1/contacts', { body: { email } }), 201, '/v1/contacts', 'post').data;
}

/** Moves the stub clock and runs what fell due, as `POST /_stub/clock` does. */
async function advance(ms: number) {
  mail.clock.advance(ms);
  await mail.app.runDue();
}

describe('managing endpoints', () => {
  test('create answers the endpoint, enabled, at the stub clock; list shows only the caller’s', async () => {
    const created = await endpoint(['contact.created']);
    expect(created).toMatchObject({ url: receiver.url, events: ['contact.created'], secret, enabled: true, created_at: new Date(mail.clock.now()).toISOString() });
    await endpoint(['contact.created'], receiver.url, pro());
    const listed = answered(await max().GET('/v1/webhooks'), 200, '/v1/webhooks', 'get').data;
    expect(listed.map((e: { id: string }) => e.id)).toEqual([created.id]);
  });

  test('update changes the given fields only; delete removes; unknown and other users’ ids are 404', async () => {
    const created = await endpoint(['contact.created']);
    mail.clock.advance(1000);
    const updated = answered(await max().PATCH('/v1/webhooks/{id}', { params: { path: { id: created.id } }, body: { events: ['contact.updated'], enabled: false } }), 200, '/v1/webhooks/{id}', 'patch').data;
    expect(updated).toMatchObject({ url: receiver.url, secret, events: ['contact.updated'], enabled: false, created_at: created.created_at });
    expect(updated.updated_at).not.toBe(created.updated_at);
    answered(await pro().PATCH('/v1/webhooks/{id}', { params: { path: { id: created.id } }, body: { enabled: true } }), 404, '/v1/webhooks/{id}', 'patch');
    answered(await pro().DELETE('/v1/webhooks/{id}', { params: { path: { id: created.id } } }), 404, '/v1/webhooks/{id}', 'delete');
    answered(await pro().GET('/v1/webhooks/{id}/events', { params: { path: { id: created.id } } }), 404, '/v1/webhooks/{id}/events', 'get');
    answered(await max().DELETE('/v1/webhooks/{id}', { params: { path: { id: created.id } } }), 200, '/v1/webhooks/{id}', 'delete');
    answered(await max().DELETE('/v1/webhooks/{id}', { params: { path: { id: created.id } } }), 404, '/v1/webhooks/{id}', 'delete');
    answered(await max().PATCH('/v1/webhooks/{id}', { params: { path: { id: unknownId } }, body: { enabled: true } }), 404, '/v1/webhooks/{id}', 'patch');
    answered(await max().GET('/v1/webhooks/{id}/events', { params: { path: { id: unknownId } } }), 404, '/v1/webhooks/{id}/events', 'get');
  });

  test('bad input: plain HTTP, unknown events, empty events, no secret, an empty patch, a malformed id: 400', async () => {
    const bad = [
      { url: 'http://hooks.example.com/x', events: ['contact.created'], secret },
      { url: 'https://hooks.example.com/x', events: ['email.read'], secret },
      { url: 'https://hooks.example.com/x', events: [], secret },
      { url: 'https://hooks.example.com/x', events: ['contact.created'] },
    ];
    for (const body of bad) answered(await max().POST('/v1/webhooks', { body: body as never }), 400, '/v1/webhooks', 'post');
    const created = await endpoint(['contact.created']);
    answered(await max().PATCH('/v1/webhooks/{id}', { params: { path: { id: created.id } }, body: {} as never }), 400, '/v1/webhooks/{id}', 'patch');
    answered(await max().DELETE('/v1/webhooks/{id}', { params: { path: { id: 'not-a-uuid' } } }), 400, '/v1/webhooks/{id}', 'delete');
    expect(answered(await max().GET('/v1/webhooks'), 200, '/v1/webhooks', 'get').data).toHaveLength(1);
  });

  test('a token without read or write scope: 403; no credentials: 401', async () => {
    const sendOnly = mail.key('msk_test_oauth_send');
    answered(await sendOnly.GET('/v1/webhooks'), 403, '/v1/webhooks', 'get');
    answered(await sendOnly.POST('/v1/webhooks', { body: { url: receiver.url, events: ['contact.created'], secret } }), 403, '/v1/webhooks', 'post');
    answered(await mail.anonymous().GET('/v1/webhooks'), 401, '/v1/webhooks', 'get');
  });

  test('a URL on a private or loopback address is refused at once (loopback only while allowed)', async () => {
    for (const url of ['https://10.0.0.7/hook', 'https://169.254.169.254/latest', 'https://[::1]/hook', 'https://localhost/hook', 'https://192.168.1.1/x']) {
      mail.app.webhooks.configure({ allowLoopback: false });
      const refused = answered(await max().POST('/v1/webhooks', { body: { url, events: ['contact.created'], secret } }), 400, '/v1/webhooks', 'post');
      // A loopback receiver is a developer's own: the message names the switch that lets it through.
      const loopback = /::1|localhost/.test(url);
      expect(refused.details.fieldErrors.url, url).toEqual([`URL points at an address webhooks may not reach${loopback ? ' (a receiver on this machine: start the stubs with STUB_ALLOW_LOOPBACK=1, for development only)' : ''}`]);
    }
    const created = await (async () => {
      mail.app.webhooks.configure({ allowLoopback: true });
      return endpoint(['contact.created']);
    })();
    mail.app.webhooks.configure({ allowLoopback: false });
    answered(await max().PATCH('/v1/webhooks/{id}', { params: { path: { id: created.id } }, body: { url: 'https://127.0.0.2/x' } }), 400, '/v1/webhooks/{id}', 'patch');
  });
});

describe('delivering the events of real actions (done-when)', () => {
  test('contact, send and campaign actions arrive signed, with the published headers and envelope', async () => {
    const hook = await endpoint();
    const contact = await newContact('wh-contact@example.com');
    answered(await max().PATCH('/v1/contacts/{id}', { params: { path: { id: contact.id } }, body: { first_name: 'Ada', tags: ['vip'] } }), 200, '/v1/contacts/{id}', 'patch');
    answered(await max().PATCH('/v1/contacts/{id}', { params: { path: { id: contact.id } }, body: { status: 'unsubscribed' } }), 200, '/v1/contacts/{id}', 'patch');
    const sent = answered(await max().POST('/v1/send', { body: { from: { email: 'hello@example.com' }, to: [{ email: 'one@example.com' }, { email: 'two@example.com' }], subject: 'Hi there', text: 'Hi' } }), 200, '/v1/send', 'post');
    // Nothing is posted before the answer that caused it: deliveries run after it, tracked.
    await mail.app.runDue();

    const body = { name: 'Webhook audience', segment_type: 'static' as const, filter_criteria: { operator: 'AND' as const, rules: [{ field: 'tags', operator: 'contains' as const, value: 'wh' }] } };
    answered(await max().POST('/v1/contacts', { body: { email: 'wh-member@example.com', tags: ['wh'] } }), 201, '/v1/contacts', 'post');
    const segment = answered(await mail.session('sess_test_max').POST('/api/segments', { body }), 201, '/api/segments', 'post').data;
    const campaign = answered(await max().POST('/v1/campaigns', { body: { name: 'Launch', subject: 'Launch day', from: { email: 'news@example.com' }, html: '<p>Hello</p>', segment_id: segment.id } }), 201, '/v1/campaigns', 'post').data;
    answered(await max().POST('/v1/campaigns/{id}/send', { params: { path: { id: campaign.id } } }), 202, '/v1/campaigns/{id}/send', 'post');
    for (let i = 0; i < 3; i++) await advance(1000);

    const types = receiver.received.map((r) => r.json.type);
    for (const type of ['contact.created', 'contact.updated', 'email.unsubscribed', 'email.sent', 'email.delivered', 'campaign.sent', 'campaign.completed']) expect(types, type).toContain(type);
    for (const r of receiver.received) {
      expect(await verifyWebhookSignature(r.body, r.headers['x-service-signature'] as string, secret), r.json.type).toBe(true);
      expect(await verifyWebhookSignature(r.body, r.headers['x-service-signature'] as string, 'another-secret')).toBe(false);
      expect(r.headers['user-agent']).toBe('Service-Webhooks/1.0');
      expect(r.headers['x-service-event']).toBe(r.json.type);
      expect(r.headers['content-type']).toBe('application/json');
      expect(Number.isNaN(Date.parse(r.headers['x-service-timestamp'] as string))).toBe(false);
      expect(payloadErrors(`formB:${r.json.type}`, r.json), r.json.type).toEqual([]);
    }

    const of = (type: string) => receiver.received.filter((r) => r.json.type === type).map((r) => r.json.data);
    expect(of('contact.created').find((d) => d.contactId === contact.id)).toMatchObject({ email: 'wh-contact@example.com', status: 'subscribed' });
    expect(of('contact.updated')[0]).toMatchObject({ contactId: contact.id, changedFields: ['first_name', 'tags'] });
    expect(of('email.unsubscribed')[0]).toMatchObject({ email: 'wh-contact@example.com', messageId: null, campaignId: null });
    const delivered = of('email.delivered').filter((d) => d.messageId === sent.data.id);
    expect(delivered.map((d) => d.to).sort()).toEqual(['one@example.com', 'two@example.com']);
    expect(delivered[0]).toMatchObject({ subject: 'Hi there', campaignId: null });
    expect(of('campaign.sent')[0]).toMatchObject({ campaignId: campaign.id, name: 'Launch', recipientCount: 1 });
    expect(of('campaign.completed')[0]).toMatchObject({ campaignId: campaign.id, name: 'Launch', deliveredCount: 1, bouncedCount: 0 });
    expect(of('email.delivered').some((d) => d.campaignId === campaign.id)).toBe(true);

    const log = await attempts(hook.id);
    expect(log).toHaveLength(receiver.received.length);
    expect(log.every((a: { status: string; response_status_code: number; response_body: string; attempt: number }) => a.status === 'succeeded' && a.response_status_code === 200 && a.response_body === '{"received":true}' && a.attempt === 1)).toBe(true);
    expect(new Set(log.map((a: { event_id: string }) => a.event_id))).toEqual(new Set(receiver.received.map((r) => r.json.id)));
  });

  test('only subscribed events, only the owner’s events, only enabled endpoints', async () => {
    const hook = await endpoint(['contact.updated']);
    const paused = await endpoint(['contact.created']);
    answered(await max().PATCH('/v1/webhooks/{id}', { params: { path: { id: paused.id } }, body: { enabled: false } }), 200, '/v1/webhooks/{id}', 'patch');
    await newContact('not-subscribed@example.com');
    await newContact('someone-elses@example.com', pro());
    await mail.app.runDue();
    expect(receiver.received).toEqual([]);
    expect(await attempts(hook.id)).toEqual([]);
  });

  test('one event to two endpoints: the same id, each signed with its own secret', async () => {
    await endpoint(['contact.created']);
    const other = answered(await max().POST('/v1/webhooks', { body: { url: receiver.url, events: ['contact.created'], secret: 'second-secret' } }), 201, '/v1/webhooks', 'post').data;
    await newContact('twice@example.com');
    await mail.app.runDue();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[0]!.json.id).toBe(receiver.received[1]!.json.id);
    const verified = await Promise.all(receiver.received.map((r) => Promise.all([verifyWebhookSignature(r.body, r.headers['x-service-signature'] as string, secret), verifyWebhookSignature(r.body, r.headers['x-service-signature'] as string, other.secret)])));
    expect(verified.map(([a, b]) => a !== b)).toEqual([true, true]);
  });
});

describe('retries (1 min, 5 min, 30 min, 2 h, 8 h) and failed', () => {
  test('a failing receiver is retried on the schedule and the event ends `failed` after the fifth retry', async () => {
    const hook = await endpoint(['contact.created']);
    receiver.status = 503;
    receiver.reply = 'Service Unavailable';
    await newContact('retry@example.com');
    await mail.app.runDue();
    expect(receiver.received).toHaveLength(1);
    for (const [i, delay] of formBRetryDelaysMs.entries()) {
      const [latest] = await attempts(hook.id);
      expect(latest).toMatchObject({ attempt: i + 1, status: 'retrying', response_status_code: 503, response_body: 'Service Unavailable', next_retry_at: new Date(Date.parse(latest.attempted_at) + delay).toISOString() });
      await advance(delay - 1);
      expect(receiver.received, `retry ${i + 1} waits its delay`).toHaveLength(i + 1);
      await advance(1);
      expect(receiver.received, `retry ${i + 1}`).toHaveLength(i + 2);
    }
    const log = await attempts(hook.id);
    expect(log.map((a: { attempt: number }) => a.attempt)).toEqual([6, 5, 4, 3, 2, 1]);
    expect(log[0]).toMatchObject({ status: 'failed', next_retry_at: null, response_status_code: 503 });
    await advance(7 * 24 * 3_600_000);
    expect(receiver.received).toHaveLength(6);
    // Every retry posts the same signed body.
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    for (const r of receiver.received) expect(await verifyWebhookSignature(r.body, r.headers['x-service-signature'] as string, secret)).toBe(true);
  });

  test('a retry that succeeds ends the event', async () => {
    const hook = await endpoint(['contact.created']);
    receiver.status = 500;
    await newContact('recovers@example.com');
    await mail.app.runDue();
    receiver.status = 204;
    await advance(60_000);
    await advance(24 * 3_600_000);
    expect(receiver.received).toHaveLength(2);
    expect((await attempts(hook.id)).map((a: { status: string; response_status_code: number }) => [a.status, a.response_status_code])).toEqual([
      ['succeeded', 204],
      ['retrying', 500],
    ]);
  });

  test('a receiver that does not answer in time counts as failed (no status, no body)', async () => {
    mail.app.webhooks.configure({ timeoutMs: 200 });
    const hook = await endpoint(['contact.created']);
    receiver.hang = true;
    await newContact('slow@example.com');
    await mail.app.runDue();
    const [only] = await attempts(hook.id);
    expect(only).toMatchObject({ status: 'retrying', response_status_code: null, response_body: null });
    expect(only.duration_ms).toBeGreaterThanOrEqual(150);
  });

  test('a deleted or paused endpoint gets no more retries', async () => {
    const gone = await endpoint(['contact.created']);
    const paused = await endpoint(['contact.created']);
    receiver.status = 500;
    await newContact('dropped@example.com');
    await mail.app.runDue();
    expect(receiver.received).toHaveLength(2);
    answered(await max().DELETE('/v1/webhooks/{id}', { params: { path: { id: gone.id } } }), 200, '/v1/webhooks/{id}', 'delete');
    answered(await max().PATCH('/v1/webhooks/{id}', { params: { path: { id: paused.id } }, body: { enabled: false } }), 200, '/v1/webhooks/{id}', 'patch');
    await advance(24 * 3_600_000);
    expect(receiver.received).toHaveLength(2);
  });
});

describe('the attempt log', () => {
  test('the last 100 attempts, newest first, with response bodies cut to 1024 characters', async () => {
    const hook = await endpoint(['contact.created']);
    receiver.reply = 'x'.repeat(5000);
    for (let i = 0; i < 101; i++) await newContact(`many${i}@example.com`);
    await mail.app.runDue();
    expect(receiver.received).toHaveLength(101);
    const log = await attempts(hook.id);
    expect(log).toHaveLength(100);
    expect(log[0].response_body).toHaveLength(1024);
    const firstEventId = receiver.received[0]!.json.id;
    expect(log.some((a: { event_id: string }) => a.event_id === firstEventId)).toBe(false);
  });
});

describe('the SSRF guard at delivery', () => {
  test('a host name that resolves to a private address is not posted to: the attempt fails without an answer', async () => {
    const hook = await endpoint(['contact.created'], 'https://hooks.internal.test/x');
    mail.app.webhooks.configure({ resolver: { resolve: async () => ['10.1.2.3'] } });
    try {
      await newContact('guarded@example.com');
      await mail.app.runDue();
      const [only] = await attempts(hook.id);
      expect(only).toMatchObject({ status: 'retrying', response_status_code: null, response_body: null, duration_ms: null });
    } finally {
      mail.app.webhooks.configure({ resolver: (await import('../../server-stubs/lib/net-guard.js')).createResolver() });
    }
  });

  test('loopback endpoints are refused at delivery once loopback is not allowed', async () => {
    const hook = await endpoint(['contact.created']);
    mail.app.webhooks.configure({ allowLoopback: false });
    await newContact('no-loopback@example.com');
    await mail.app.runDue();
    expect(receiver.received).toEqual([]);
    expect((await attempts(hook.id))[0]).toMatchObject({ status: 'retrying', response_status_code: null });
  });
});

describe('events other parts announce (tracking, provider reports), as they put them on the bus', () => {
  test('opened, clicked, bounced and complained reach both forms with the published data fields', async () => {
    await endpoint(['email.opened', 'email.clicked', 'email.bounced', 'email.complained']);
    answered(await mail.session('sess_test_max').POST('/api/webhooks', { body: { url: receiver.url, events: ['email.opened', 'email.clicked', 'email.bounced'] } }), 201, '/api/webhooks', 'post');
    const at = new Date(mail.clock.now()).toISOString();
    const common = { userId: 'usr_max', messageId: '2b3c4d5e-6f70-4812-9a3b-4c5d6e7f8091', email: 'ada@example.com' };
    mail.app.events.emit('email.opened', { ...common, openedAt: at, userAgent: null, ip: '203.0.113.9', machineOpen: false, campaignId: null });
    mail.app.events.emit('email.clicked', { ...common, url: 'https://shop.example/offer', clickedAt: at, campaignId: null });
    mail.app.events.emit('email.bounced', { ...common, bounceType: 'hard', bounceCode: '5.1.1', bounceMessage: null });
    mail.app.events.emit('email.complained', common);
    // A report that names no message reaches no webhook: the payloads need its id.
    mail.app.events.emit('email.bounced', { ...common, messageId: null, bounceType: 'soft', bounceCode: null, bounceMessage: null });
    await mail.app.runDue();
    const forms = receiver.received.map((r) => ('type' in r.json ? `formB:${r.json.type}` : `formA:${r.json.event}`)).sort();
    expect(forms).toEqual(['formA:email.bounced', 'formA:email.clicked', 'formA:email.opened', 'formB:email.bounced', 'formB:email.clicked', 'formB:email.complained', 'formB:email.opened']);
    for (const r of receiver.received) expect(payloadErrors('type' in r.json ? `formB:${r.json.type}` : `formA:${r.json.event}`, r.json)).toEqual([]);
    const b = (type: string) => receiver.received.find((r) => r.json.type === type)!.json.data;
    expect(b('email.opened')).toEqual({ messageId: common.messageId, email: common.email, openedAt: at, userAgent: '', ip: '203.0.113.9', machineOpen: false });
    expect(b('email.clicked')).toEqual({ messageId: common.messageId, email: common.email, url: 'https://shop.example/offer', clickedAt: at });
    expect(b('email.bounced')).toEqual({ messageId: common.messageId, email: common.email, bounceType: 'hard', bounceCode: '5.1.1', bounceMessage: '', bouncedAt: at });
    expect(b('email.complained')).toMatchObject({ messageId: common.messageId, email: common.email, feedbackType: 'abuse' });
    const a = receiver.received.find((r) => r.json.event === 'email.bounced')!.json.data;
    expect(a).toEqual({ message_id: common.messageId, email: common.email, bounce_type: 'hard' });
  });
});

describe('STUB_ALLOW_LOOPBACK (CONVENTIONS §6)', () => {
  test('off by default: a loopback endpoint is refused; with STUB_ALLOW_LOOPBACK=1 it is accepted and delivered to', async () => {
    const saved = process.env.STUB_ALLOW_LOOPBACK;
    const body = { url: receiver.url, events: ['contact.created' as const], secret };
    try {
      delete process.env.STUB_ALLOW_LOOPBACK;
      const closed = await startMail();
      answered(await closed.key('msk_test_max').POST('/v1/webhooks', { body }), 400, '/v1/webhooks', 'post');
      await closed.close();
      process.env.STUB_ALLOW_LOOPBACK = '1';
      const open = await startMail();
      answered(await open.key('msk_test_max').POST('/v1/webhooks', { body }), 201, '/v1/webhooks', 'post');
      answered(await open.key('msk_test_max').POST('/v1/contacts', { body: { email: 'loopback@example.com' } }), 201, '/v1/contacts', 'post');
      await open.app.runDue();
      await open.close();
      expect(receiver.received.map((r) => r.json.type)).toEqual(['contact.created']);
    } finally {
      if (saved === undefined) delete process.env.STUB_ALLOW_LOOPBACK;
      else process.env.STUB_ALLOW_LOOPBACK = saved;
    }
  });

  test('a loopback endpoint keeps the scheme it was registered with: https:// over TLS (the self-signed certificate not verified), http:// over plain HTTP', async () => {
    const plain = await startReceiver({ tls: false });
    try {
      expect({ tls: receiver.url.startsWith('https://'), plain: plain.url.startsWith('http://') }).toEqual({ tls: true, plain: true });
      const overTls = await endpoint(['contact.created']);
      const overHttp = await endpoint(['contact.created'], plain.url);
      expect(overHttp.url).toBe(plain.url);
      answered(await max().POST('/v1/contacts', { body: { email: 'schemes@example.com' } }), 201, '/v1/contacts', 'post');
      await mail.app.runDue();
      expect(receiver.received.map((r) => ({ type: r.json.type, tls: r.tls }))).toEqual([{ type: 'contact.created', tls: true }]);
      expect(plain.received.map((r) => ({ type: r.json.type, tls: r.tls }))).toEqual([{ type: 'contact.created', tls: false }]);
      for (const hook of [overTls, overHttp]) expect((await attempts(hook.id)).map((a: { status: string; response_status_code: number }) => [a.status, a.response_status_code])).toEqual([['succeeded', 200]]);
      // The body arrives as signed, over either scheme.
      for (const r of [receiver.received[0]!, plain.received[0]!]) expect(await verifyWebhookSignature(r.body, r.headers['x-service-signature'] as string, secret)).toBe(true);
    } finally {
      await plain.close();
    }
  });

  test('plain http:// is accepted only for a loopback endpoint, and only under the switch (400 otherwise)', async () => {
    const refusedBy = async (url: string) => answered(await max().POST('/v1/webhooks', { body: { url, events: ['contact.created'], secret } }), 400, '/v1/webhooks', 'post');
    // Not loopback: the contract's pattern refuses it (HTTPS only).
    for (const url of ['http://hooks.example.com/x', 'http://10.0.0.7/hook', 'http://127.example.com/x']) await refusedBy(url);
    mail.app.webhooks.configure({ allowLoopback: false });
    for (const url of ['http://127.0.0.1:9/hook', 'http://localhost/hook', 'http://[::1]/hook']) {
      expect((await refusedBy(url)).details.fieldErrors.url, url).toEqual([expect.stringContaining('STUB_ALLOW_LOOPBACK=1')]);
    }
    mail.app.webhooks.configure({ allowLoopback: true });
    for (const url of ['http://127.0.0.1:9/hook', 'http://localhost/hook', 'http://[::1]/hook']) {
      answered(await max().POST('/v1/webhooks', { body: { url, events: ['contact.created'], secret } }), 201, '/v1/webhooks', 'post');
    }
    // Form A (dashboard) takes the same.
    answered(await mail.session('sess_test_max').POST('/api/webhooks', { body: { url: 'http://127.0.0.1:9/a', events: ['contact.created'] } }), 201, '/api/webhooks', 'post');
  });
});
