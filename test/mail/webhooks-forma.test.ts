/**
 * Form A webhooks through HTTP (issue 15, DECISIONS mail-3): dashboard endpoints at
 * `/api/webhooks` (session cookie), the `{event, timestamp, data}` envelope, the signature only
 * with a secret of 16 characters or more, one attempt and no retry, every attempt logged, disabled
 * after 10 consecutive failures and re-enabled with `POST /api/webhooks/{id}/enable`.
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

const dashboard = () => mail.session('sess_test_max');
const max = () => mail.key('msk_test_max');
const unknownId = '0f0e0d0c-0b0a-4909-8807-060504030201';
const longSecret = 'sixteen-chars-ok';
type FormAEvent = 'contact.created' | 'contact.updated' | 'contact.unsubscribed' | 'campaign.sent' | 'campaign.completed' | 'email.opened' | 'email.clicked' | 'email.bounced';

async function endpoint(events: FormAEvent[] = ['contact.created'], secret: string | null = longSecret, client = dashboard()) {
  return answered(await client.POST('/api/webhooks', { body: { url: receiver.url, events, secret } }), 201, '/api/webhooks', 'post').data;
}

async function listed(client = dashboard()) {
  return answered(await client.GET('/api/webhooks'), 200, '/api/webhooks', 'get').data;
}

let n = 0;
async function contactCreated() {
  answered(await max().POST('/v1/contacts', { body: { email: `forma${n++}@example.com` } }), 201, '/v1/contacts', 'post');
  await mail.app.runDue();
}

describe('managing dashboard endpoints', () => {
  test('create, list, update, delete through the session; each user sees their own', async () => {
    const created = await endpoint(['contact.created', 'email.bounced']);
    expect(created).toMatchObject({ url: receiver.url, events: ['contact.created', 'email.bounced'], secret: longSecret, enabled: true, consecutive_failures: 0, disabled_at: null, last_attempt_at: null, last_status_code: null });
    await endpoint(['contact.created'], null, mail.session('sess_test_pro'));
    expect((await listed()).map((e: { id: string }) => e.id)).toEqual([created.id]);
    const updated = answered(await dashboard().PATCH('/api/webhooks/{id}', { params: { path: { id: created.id } }, body: { events: ['contact.updated'], secret: null } }), 200, '/api/webhooks/{id}', 'patch').data;
    expect(updated).toMatchObject({ events: ['contact.updated'], secret: null, url: receiver.url });
    answered(await dashboard().DELETE('/api/webhooks/{id}', { params: { path: { id: created.id } } }), 200, '/api/webhooks/{id}', 'delete');
    expect(await listed()).toEqual([]);
  });

  test('unknown ids and other users’ ids: 404; malformed ids and bad bodies: 400; API keys: 401', async () => {
    const mine = await endpoint();
    const pro = mail.session('sess_test_pro');
    answered(await pro.PATCH('/api/webhooks/{id}', { params: { path: { id: mine.id } }, body: { secret: null } }), 404, '/api/webhooks/{id}', 'patch');
    answered(await pro.DELETE('/api/webhooks/{id}', { params: { path: { id: mine.id } } }), 404, '/api/webhooks/{id}', 'delete');
    answered(await pro.POST('/api/webhooks/{id}/enable', { params: { path: { id: mine.id } } }), 404, '/api/webhooks/{id}/enable', 'post');
    answered(await dashboard().POST('/api/webhooks/{id}/enable', { params: { path: { id: unknownId } } }), 404, '/api/webhooks/{id}/enable', 'post');
    answered(await dashboard().POST('/api/webhooks/{id}/enable', { params: { path: { id: 'nope' } } }), 400, '/api/webhooks/{id}/enable', 'post');
    answered(await dashboard().DELETE('/api/webhooks/{id}', { params: { path: { id: 'nope' } } }), 400, '/api/webhooks/{id}', 'delete');
    answered(await dashboard().PATCH('/api/webhooks/{id}', { params: { path: { id: mine.id } }, body: {} as never }), 400, '/api/webhooks/{id}', 'patch');
    for (const body of [{ url: 'http://hooks.example.com/x', events: ['contact.created'] }, { url: 'https://hooks.example.com/x', events: ['email.sent'] }, { url: 'https://10.0.0.1/x', events: ['contact.created'] }]) {
      answered(await dashboard().POST('/api/webhooks', { body: body as never }), 400, '/api/webhooks', 'post');
    }
    answered(await max().GET('/api/webhooks'), 401, '/api/webhooks', 'get');
    answered(await max().POST('/api/webhooks', { body: { url: receiver.url, events: ['contact.created'] } }), 401, '/api/webhooks', 'post');
    expect(await listed()).toHaveLength(1);
  });
});

describe('delivery', () => {
  test('the envelope {event, timestamp, data}, the published headers, signed with a secret of 16 characters', async () => {
    await endpoint(['contact.created', 'contact.updated', 'contact.unsubscribed']);
    const c = answered(await max().POST('/v1/contacts', { body: { email: 'ada@example.com', first_name: 'Ada' } }), 201, '/v1/contacts', 'post').data;
    answered(await max().PATCH('/v1/contacts/{id}', { params: { path: { id: c.id } }, body: { status: 'unsubscribed' } }), 200, '/v1/contacts/{id}', 'patch');
    await mail.app.runDue();
    expect(receiver.received.map((r) => r.json.event)).toEqual(['contact.created', 'contact.updated', 'contact.unsubscribed']);
    for (const r of receiver.received) {
      expect(payloadErrors(`formA:${r.json.event}`, r.json), r.json.event).toEqual([]);
      expect(Object.keys(r.json)).toEqual(['event', 'timestamp', 'data']);
      expect(r.headers['x-service-event']).toBe(r.json.event);
      expect(r.headers['user-agent']).toBe('Service-Webhooks/1.0');
      expect(Date.parse(r.headers['x-service-timestamp'] as string)).toBe(mail.clock.now());
      expect(await verifyWebhookSignature(r.body, r.headers['x-service-signature'] as string, longSecret)).toBe(true);
    }
    expect(receiver.received[0]!.json.data).toMatchObject({ contact_id: c.id, email: 'ada@example.com', first_name: 'Ada', status: 'subscribed' });
    expect(receiver.received[1]!.json.data).toMatchObject({ contact_id: c.id, changed_fields: ['status'], status: 'unsubscribed' });
  });

  test('a secret under 16 characters, or none, sends no signature', async () => {
    await endpoint(['contact.created'], 'fifteen-chars!!');
    await endpoint(['contact.created'], null);
    await contactCreated();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received.map((r) => r.headers['x-service-signature'])).toEqual([undefined, undefined]);
  });

  test('one attempt, no retry; a success resets the failure count; every attempt is logged', async () => {
    const hook = await endpoint();
    receiver.status = 500;
    await contactCreated();
    mail.clock.advance(24 * 3_600_000);
    await mail.app.runDue();
    expect(receiver.received).toHaveLength(1);
    expect((await listed())[0]).toMatchObject({ consecutive_failures: 1, last_status_code: 500, enabled: true });
    receiver.status = 200;
    await contactCreated();
    expect((await listed())[0]).toMatchObject({ consecutive_failures: 0, last_status_code: 200, last_attempt_at: new Date(mail.clock.now()).toISOString() });
    expect(mail.app.webhooks.formALogOf(hook.id).map((a) => [a.event, a.outcome.statusCode, a.signed])).toEqual([
      ['contact.created', 500, true],
      ['contact.created', 200, true],
    ]);
  });

  test('10 consecutive failures disable the endpoint; enable brings it back (done-when)', async () => {
    const hook = await endpoint();
    receiver.status = 503;
    for (let i = 0; i < 9; i++) await contactCreated();
    expect((await listed())[0]).toMatchObject({ enabled: true, consecutive_failures: 9 });
    await contactCreated();
    const disabled = (await listed())[0];
    expect(disabled).toMatchObject({ enabled: false, consecutive_failures: 10, disabled_at: new Date(mail.clock.now()).toISOString(), last_status_code: 503 });
    receiver.status = 200;
    await contactCreated();
    expect(receiver.received).toHaveLength(10);
    // Changing the endpoint does not re-enable it.
    answered(await dashboard().PATCH('/api/webhooks/{id}', { params: { path: { id: hook.id } }, body: { events: ['contact.created', 'contact.updated'] } }), 200, '/api/webhooks/{id}', 'patch');
    expect((await listed())[0].enabled).toBe(false);
    const enabled = answered(await dashboard().POST('/api/webhooks/{id}/enable', { params: { path: { id: hook.id } } }), 200, '/api/webhooks/{id}/enable', 'post').data;
    expect(enabled).toMatchObject({ enabled: true, consecutive_failures: 0, disabled_at: null });
    await contactCreated();
    expect(receiver.received).toHaveLength(11);
    // Enabling an enabled endpoint clears its failure count too.
    receiver.status = 500;
    await contactCreated();
    expect((await listed())[0].consecutive_failures).toBe(1);
    const again = answered(await dashboard().POST('/api/webhooks/{id}/enable', { params: { path: { id: hook.id } } }), 200, '/api/webhooks/{id}/enable', 'post').data;
    expect(again).toMatchObject({ enabled: true, consecutive_failures: 0, disabled_at: null });
  });

  test('a timeout counts as a failure with no status', async () => {
    mail.app.webhooks.configure({ timeoutMs: 200 });
    await endpoint();
    receiver.hang = true;
    await contactCreated();
    expect((await listed())[0]).toMatchObject({ consecutive_failures: 1, last_status_code: null });
  });

  test('the Form A and Form B forms of one action arrive side by side', async () => {
    await endpoint(['contact.created']);
    answered(await max().POST('/v1/webhooks', { body: { url: receiver.url, events: ['contact.created'], secret: 'form-b-secret' } }), 201, '/v1/webhooks', 'post');
    await contactCreated();
    expect(receiver.received.map((r) => ('event' in r.json ? 'A' : 'B')).sort()).toEqual(['A', 'B']);
  });
});
