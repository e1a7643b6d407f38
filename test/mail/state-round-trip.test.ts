/**
 * Mail's state through the one state store (issue 28): data built through HTTP on one stub, its
 * snapshot taken as JSON and restored into a fresh stub, is there and behaves there (the API key
 * authenticates, an idempotent retry sends nothing more, the campaign can be sent, the webhook
 * endpoint receives events, retries queued before the restore are dropped); a snapshot naming an
 * unknown collection is refused with nothing changed.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { StateRejected } from '../../server-stubs/lib/store.js';
import { answered, startMail, type MailStub } from './identity-support.js';
import { startReceiver, type Receiver } from './webhooks-support.js';

const from = { email: 'news@example.com', name: 'Example News' };
const message = { from, to: [{ email: 'ada@example.com', name: 'Ada' }], subject: 'Welcome', html: '<p>Welcome, Ada!</p>', idempotency_key: 'welcome-1' };
const sandboxed = { params: { header: { 'X-Service-Sandbox': true } } } as const;

/** What the source stub was given through HTTP, with the answers that name it. */
interface Built {
  contactId: string;
  templateId: string;
  segmentId: string;
  campaignId: string;
  rawKey: string;
  webhookId: string;
  sendAnswer: unknown;
}

let receiver: Receiver;
let source: MailStub;
let built: Built;
let snapshot: unknown;
const started: MailStub[] = [];

async function fresh(): Promise<MailStub> {
  const mail = await startMail();
  mail.app.webhooks.configure({ allowLoopback: true });
  started.push(mail);
  return mail;
}

async function build(mail: MailStub): Promise<Built> {
  const max = mail.key('msk_test_max');
  const contact = answered(await max.POST('/v1/contacts', { body: { email: 'reader@example.com', first_name: 'Reader', tags: ['round-trip'] } }), 201, '/v1/contacts', 'post').data;
  const template = answered(await max.POST('/v1/templates', { body: { name: 'Letter', subject: 'Hello {{ first_name }}', html: '<p>Hello {{ first_name }}</p>' } }), 201, '/v1/templates', 'post').data;
  const criteria = { operator: 'AND' as const, rules: [{ field: 'tags', operator: 'contains' as const, value: 'round-trip' }] };
  const segment = answered(await mail.session('sess_test_max').POST('/api/segments', { body: { name: 'Round trip', segment_type: 'dynamic', filter_criteria: criteria } }), 201, '/api/segments', 'post').data;
  const campaign = answered(
    await max.POST('/v1/campaigns', { body: { name: 'Kept', subject: 'Kept across a restore', from, segment_id: segment.id, template_id: template.id } }),
    201,
    '/v1/campaigns',
    'post',
  ).data;
  const key = answered(await max.POST('/v1/keys', { body: { name: 'Kept key' } }), 201, '/v1/keys', 'post').data;
  const webhook = answered(await max.POST('/v1/webhooks', { body: { url: receiver.url, events: ['contact.created'], secret: 'whsec_round_trip_0123456789' } }), 201, '/v1/webhooks', 'post').data;
  const sendAnswer = answered(await max.POST('/v1/send', { body: message, ...sandboxed }), 200, '/v1/send', 'post');
  await mail.app.runDue();
  return { contactId: contact.id, templateId: template.id, segmentId: segment.id, campaignId: campaign.id, rawKey: key.key, webhookId: webhook.id, sendAnswer };
}

const contactOf = async (mail: MailStub, id: string) =>
  answered(await mail.key('msk_test_max').GET('/v1/contacts', { params: { query: { limit: 100 } } }), 200, '/v1/contacts', 'get').data.find((c: { id: string }) => c.id === id);

const sandboxOf = async (mail: MailStub) => answered(await mail.key('msk_test_max').GET('/v1/sandbox'), 200, '/v1/sandbox', 'get');

beforeAll(async () => {
  receiver = await startReceiver();
  source = await fresh();
  built = await build(source);
  snapshot = JSON.parse(JSON.stringify(source.app.state.snapshot()));
});
afterAll(async () => {
  await Promise.all(started.map((mail) => mail.close()));
  await receiver.close();
});
beforeEach(() => {
  receiver.received.length = 0;
});
afterEach(() => {
  receiver.status = 200;
});

describe('a snapshot restored into a fresh stub', () => {
  test('the snapshot is plain JSON already: no Set, Map, Date or undefined member is lost on the way', () => {
    const live = source.app.state.snapshot();
    expect(JSON.parse(JSON.stringify(live))).toStrictEqual(live);
    expect(Object.keys(live.collections)).toEqual(expect.arrayContaining(['identity.keys', 'contacts.contacts', 'campaigns.campaigns', 'webhooks.formB', 'outbox.messages', 'sendKeys.answers']));
  });

  test('the contact, template, segment, campaign, key, webhook endpoint and sandboxed message are there', async () => {
    const target = await fresh();
    // Before the restore the fresh stub knows none of it: the key is refused.
    answered(await target.key(built.rawKey).GET('/v1/plan-limits'), 401, '/v1/plan-limits', 'get');
    target.app.state.restore(snapshot);
    const max = target.key('msk_test_max');

    expect(await contactOf(target, built.contactId)).toMatchObject({ email: 'reader@example.com', first_name: 'Reader', tags: ['round-trip'] });
    const templates = answered(await max.GET('/v1/templates'), 200, '/v1/templates', 'get').data;
    expect(templates).toMatchObject([{ id: built.templateId, name: 'Letter', variables: ['first_name'] }]);
    const segment = answered(await target.session('sess_test_max').GET('/api/segments/{id}', { params: { path: { id: built.segmentId } } }), 200, '/api/segments/{id}', 'get').data;
    expect(segment).toMatchObject({ name: 'Round trip', membership_count: 1 });
    const campaigns = answered(await max.GET('/v1/campaigns'), 200, '/v1/campaigns', 'get').data;
    expect(campaigns.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([[built.campaignId, 'draft']]);
    const webhooks = answered(await max.GET('/v1/webhooks'), 200, '/v1/webhooks', 'get').data;
    expect(webhooks).toMatchObject([{ id: built.webhookId, url: receiver.url, events: ['contact.created'], enabled: true }]);
    const box = await sandboxOf(target);
    expect(box.data).toMatchObject([{ subject: 'Welcome', to: [{ email: 'ada@example.com' }] }]);
    // Seeds come back as they were kept, not seeded anew: the same seeded contact ids.
    const seeded = (mail: MailStub) => mail.key('msk_test_pro').GET('/v1/contacts');
    const ids = async (mail: MailStub) => answered(await seeded(mail), 200, '/v1/contacts', 'get').data.map((c: { id: string }) => c.id);
    expect(await ids(target)).toEqual(await ids(source));
  });

  test('the new API key authenticates as its user', async () => {
    const target = await fresh();
    target.app.state.restore(snapshot);
    const keys = answered(await target.key(built.rawKey).GET('/v1/keys', { params: { query: { limit: 100 } } }), 200, '/v1/keys', 'get').data;
    expect(keys.map((k: { name: string }) => k.name)).toContain('Kept key');
  });

  test('a send with the same idempotency key answers the first answer and captures nothing more', async () => {
    const target = await fresh();
    target.app.state.restore(snapshot);
    const retry = answered(await target.key('msk_test_max').POST('/v1/send', { body: message, ...sandboxed }), 200, '/v1/send', 'post');
    expect(retry).toEqual(built.sendAnswer);
    expect((await sandboxOf(target)).pagination.total).toBe(1);
    // The key still tells another request apart.
    const changed = answered(await target.key('msk_test_max').POST('/v1/send', { body: { ...message, subject: 'Other' }, ...sandboxed }), 422, '/v1/send', 'post');
    expect(changed.error).toBe('idempotency_key was already used with a different request');
  });

  test('the campaign can be sent to its segment, with the kept template', async () => {
    const target = await fresh();
    target.app.state.restore(snapshot);
    const max = target.key('msk_test_max');
    const sending = answered(await max.POST('/v1/campaigns/{id}/send', { params: { path: { id: built.campaignId } } }), 202, '/v1/campaigns/{id}/send', 'post').data;
    expect(sending).toMatchObject({ status: 'sending', stats: { recipients: 1 } });
    await target.app.runDue();
    const sent = answered(await max.GET('/v1/campaigns'), 200, '/v1/campaigns', 'get').data.find((c: { id: string }) => c.id === built.campaignId);
    expect(sent).toMatchObject({ status: 'sent', stats: { recipients: 1, sent: 1, delivered: 1 } });

    // Its copies travel with it: restored once more, the campaign still counts them.
    const again = await fresh();
    again.app.state.restore(JSON.parse(JSON.stringify(target.app.state.snapshot())));
    const counted = answered(await again.key('msk_test_max').GET('/v1/campaigns'), 200, '/v1/campaigns', 'get').data.find((c: { id: string }) => c.id === built.campaignId);
    expect(counted).toMatchObject({ status: 'sent', stats: { recipients: 1, sent: 1, delivered: 1 } });
  });

  test('the webhook endpoint receives what happens after the restore', async () => {
    const target = await fresh();
    target.app.state.restore(snapshot);
    const created = answered(await target.key('msk_test_max').POST('/v1/contacts', { body: { email: 'after@example.com' } }), 201, '/v1/contacts', 'post').data;
    await target.app.runDue();
    expect(receiver.received.map((r) => [r.json.type, (r.json.data as { contactId?: string }).contactId])).toEqual([['contact.created', created.id]]);
    const attempts = answered(await target.key('msk_test_max').GET('/v1/webhooks/{id}/events', { params: { path: { id: built.webhookId } } }), 200, '/v1/webhooks/{id}/events', 'get').data;
    expect(attempts).toMatchObject([{ event_type: 'contact.created', status: 'succeeded' }]);
  });

  test('a retry queued before a restore belongs to the state it replaced: it is dropped', async () => {
    const target = await fresh();
    target.app.state.restore(snapshot);
    const kept = JSON.parse(JSON.stringify(target.app.state.snapshot()));
    receiver.status = 500;
    answered(await target.key('msk_test_max').POST('/v1/contacts', { body: { email: 'refused@example.com' } }), 201, '/v1/contacts', 'post');
    await target.app.runDue();
    expect(receiver.received).toHaveLength(1);
    target.app.state.restore(kept);
    receiver.status = 200;
    target.clock.advance(60_000); // the first retry's delay
    await target.app.runDue();
    expect(receiver.received).toHaveLength(1);
    const attempts = answered(await target.key('msk_test_max').GET('/v1/webhooks/{id}/events', { params: { path: { id: built.webhookId } } }), 200, '/v1/webhooks/{id}/events', 'get').data;
    expect(attempts).toEqual([]);
  });

  test('the restored stub resets to its own seeds', async () => {
    const target = await fresh();
    target.app.state.restore(snapshot);
    target.app.reset();
    answered(await target.key(built.rawKey).GET('/v1/plan-limits'), 401, '/v1/plan-limits', 'get');
    expect(answered(await target.key('msk_test_max').GET('/v1/campaigns'), 200, '/v1/campaigns', 'get').data).toEqual([]);
  });
});

describe('a snapshot that does not fit', () => {
  test('an unknown collection is refused, naming it, and the stub keeps what it had', async () => {
    const target = await fresh();
    const mine = answered(await target.key('msk_test_max').POST('/v1/contacts', { body: { email: 'mine@example.com' } }), 201, '/v1/contacts', 'post').data;
    const before = JSON.stringify(target.app.state.snapshot());
    const foreign = snapshot as { collections: Record<string, unknown> };
    const bad = { ...foreign, collections: { ...foreign.collections, 'contacts.unknown': [] } };

    expect(() => target.app.state.restore(bad)).toThrow(StateRejected);
    expect(() => target.app.state.restore(bad)).toThrow(/unknown collection "contacts.unknown"/);

    expect(JSON.stringify(target.app.state.snapshot())).toBe(before);
    expect(await contactOf(target, mine.id)).toMatchObject({ email: 'mine@example.com' });
    expect(await contactOf(target, built.contactId)).toBeUndefined();
    answered(await target.key(built.rawKey).GET('/v1/plan-limits'), 401, '/v1/plan-limits', 'get');
  });
});
