/**
 * Campaigns through HTTP (issue 14, "Campaigns"): CRUD with its references (segment, template),
 * the transitions draft → sending → sent, draft → scheduled → sending on the stub clock,
 * cancellation, the refusals of each state (409) and of an unsendable campaign (422), one copy per
 * subscribed, unsuppressed member of the segment in the outbox, the sandbox, the key's account
 * restriction and the monthly quota, `campaign.sent` and `campaign.completed` on the bus.
 */
import { describe, expect, test } from 'vitest';
import type { MailEvents } from '../../server-stubs/mail/events.js';
import { answered, mailForEachTest, startMail } from './identity-support.js';

const mail = mailForEachTest();

const max = () => mail.key('msk_test_max');
const dashboard = () => mail.session('sess_test_max');
const unknownId = '0f0e0d0c-0b0a-4909-8807-060504030201';
const from = { email: 'news@example.com', name: 'Example News' };

async function contact(email: string, extra: Record<string, unknown> = {}) {
  return answered(await max().POST('/v1/contacts', { body: { email, tags: ['campaign'], ...extra } as never }), 201, '/v1/contacts', 'post').data;
}

async function segment(type: 'dynamic' | 'static' = 'dynamic') {
  const body = { name: 'Campaign audience', segment_type: type, filter_criteria: { operator: 'AND' as const, rules: [{ field: 'tags', operator: 'contains' as const, value: 'campaign' }] } };
  return answered(await dashboard().POST('/api/segments', { body }), 201, '/api/segments', 'post').data;
}

async function campaign(body: Record<string, unknown> = {}) {
  return answered(await max().POST('/v1/campaigns', { body: { name: 'March', subject: 'News for March', from, html: '<p>Hello</p>', ...body } as never }), 201, '/v1/campaigns', 'post').data;
}

const send = async (id: string, body?: Record<string, unknown>, sandbox?: boolean) =>
  max().POST('/v1/campaigns/{id}/send', { params: { path: { id }, ...(sandbox !== undefined && { header: { 'X-Service-Sandbox': sandbox } }) }, body: body as never });

const get = async (id: string) => answered(await max().GET('/v1/campaigns', { params: { query: { limit: 100 } } }), 200, '/v1/campaigns', 'get').data.find((c: { id: string }) => c.id === id);

describe('create, list, update, delete', () => {
  test('a campaign is created in draft with zero counters and listed newest first, filtered by status', async () => {
    const audience = await segment();
    const first = await campaign({ segment_id: audience.id });
    mail.clock.advance(1000);
    const second = await campaign({ name: 'April' });
    expect(first).toMatchObject({ status: 'draft', segment_id: audience.id, template_id: null, scheduled_at: null, sent_at: null, stats: { recipients: 0, sent: 0, delivered: 0 } });
    const page = answered(await max().GET('/v1/campaigns'), 200, '/v1/campaigns', 'get');
    expect(page.data.map((c: { id: string }) => c.id)).toEqual([second.id, first.id]);
    expect(answered(await max().GET('/v1/campaigns', { params: { query: { status: 'sent' } } }), 200, '/v1/campaigns', 'get').data).toEqual([]);
    expect(answered(await mail.key('msk_test_pro').GET('/v1/campaigns'), 200, '/v1/campaigns', 'get').data).toEqual([]);
  });

  test('a segment or template that is not the user\'s is a 404; html and a template together a 400', async () => {
    answered(await max().POST('/v1/campaigns', { body: { name: 'x', subject: 'x', from, segment_id: unknownId } }), 404, '/v1/campaigns', 'post');
    const theirs = answered(await mail.session('sess_test_pro').POST('/api/segments', { body: { name: 'Pro', segment_type: 'static', filter_criteria: { operator: 'AND', rules: [{ field: 'status', operator: 'equals', value: 'subscribed' }] } } }), 201, '/api/segments', 'post').data;
    expect(answered(await max().POST('/v1/campaigns', { body: { name: 'x', subject: 'x', from, segment_id: theirs.id } }), 404, '/v1/campaigns', 'post').error).toBe('Segment not found');
    expect(answered(await max().POST('/v1/campaigns', { body: { name: 'x', subject: 'x', from, template_id: unknownId } }), 404, '/v1/campaigns', 'post').error).toBe('Template not found');
  });

  test('update changes the given fields of a draft; cancelled, sent or sending campaigns cannot change (409)', async () => {
    const c = await campaign();
    const updated = answered(await max().PATCH('/v1/campaigns', { params: { query: { id: c.id } }, body: { subject: 'Changed', text: 'Plain' } }), 200, '/v1/campaigns', 'patch').data;
    expect(updated).toMatchObject({ subject: 'Changed', text: 'Plain', html: '<p>Hello</p>', status: 'draft' });
    const cancelled = answered(await max().PATCH('/v1/campaigns', { params: { query: { id: c.id } }, body: { status: 'cancelled' } }), 200, '/v1/campaigns', 'patch').data;
    expect(cancelled.status).toBe('cancelled');
    const again = answered(await max().PATCH('/v1/campaigns', { params: { query: { id: c.id } }, body: { name: 'Too late' } }), 409, '/v1/campaigns', 'patch');
    expect(again.error).toBe('Campaign can no longer be changed');
    answered(await max().PATCH('/v1/campaigns', { params: { query: { id: unknownId } }, body: { name: 'x' } }), 404, '/v1/campaigns', 'patch');
  });

  test('delete answers {success: true}; unknown ids 404', async () => {
    const c = await campaign();
    expect(answered(await max().DELETE('/v1/campaigns', { params: { query: { id: c.id } } }), 200, '/v1/campaigns', 'delete')).toEqual({ success: true });
    answered(await max().DELETE('/v1/campaigns', { params: { query: { id: c.id } } }), 404, '/v1/campaigns', 'delete');
  });
});

describe('send', () => {
  test('goes to the subscribed, unsuppressed members of the segment, one copy each; sending → sent; events announce start and completion', async () => {
    const audience = await segment();
    await contact('one@example.com', { first_name: 'One' });
    await contact('two@example.com');
    await contact('gone@example.com', { status: 'unsubscribed' });
    const c = await campaign({ segment_id: audience.id });
    const seen: string[] = [];
    const offs = [
      mail.app.events.on('campaign.sent', (e: MailEvents['campaign.sent']) => seen.push(`sent ${e.recipients}`)),
      mail.app.events.on('campaign.completed', (e: MailEvents['campaign.completed']) => seen.push(`completed ${e.delivered}/${e.failed}`)),
    ];
    const started = answered(await send(c.id), 202, '/v1/campaigns/{id}/send', 'post').data;
    expect(started).toMatchObject({ status: 'sending', stats: { recipients: 2 } });
    await mail.app.runDue();
    offs.forEach((off) => off());
    expect(seen).toEqual(['sent 2', 'completed 2/0']);
    const done = await get(c.id);
    expect(done).toMatchObject({ status: 'sent', sent_at: started.sent_at, stats: { recipients: 2, sent: 2, delivered: 2 } });
    const copies = mail.app.outbox.ofCampaign(c.id);
    expect(copies.map((m) => m.to[0]!).sort((a, b) => a.email.localeCompare(b.email))).toEqual([{ email: 'one@example.com', name: 'One' }, { email: 'two@example.com' }]);
    expect(answered(await send(c.id), 409, '/v1/campaigns/{id}/send', 'post').error).toBe('Campaign already sent');
  });

  test('a dynamic segment is evaluated when sending starts, so a contact added after the segment is included', async () => {
    const audience = await segment('dynamic');
    const c = await campaign({ segment_id: audience.id });
    await contact('late@example.com');
    answered(await send(c.id), 202, '/v1/campaigns/{id}/send', 'post');
    expect(mail.app.outbox.ofCampaign(c.id).map((m) => m.to[0]!.email)).toContain('late@example.com');
  });

  test('422 without a segment or a body, or when the segment is gone; 409 when cancelled; 404 for an unknown id', async () => {
    const noSegment = await campaign();
    expect(answered(await send(noSegment.id), 422, '/v1/campaigns/{id}/send', 'post').error).toBe('Campaign has no segment');
    const audience = await segment();
    const noBody = await campaign({ segment_id: audience.id, html: undefined });
    expect(answered(await send(noBody.id), 422, '/v1/campaigns/{id}/send', 'post').error).toBe('Campaign has no body');
    const orphan = await campaign({ segment_id: audience.id });
    answered(await dashboard().DELETE('/api/segments/{id}', { params: { path: { id: audience.id } } }), 200, '/api/segments/{id}', 'delete');
    expect(answered(await send(orphan.id), 422, '/v1/campaigns/{id}/send', 'post').error).toBe('Segment not found');
    answered(await max().PATCH('/v1/campaigns', { params: { query: { id: orphan.id } }, body: { status: 'cancelled' } }), 200, '/v1/campaigns', 'patch');
    expect(answered(await send(orphan.id), 409, '/v1/campaigns/{id}/send', 'post').error).toBe('Campaign is cancelled');
    answered(await send(unknownId), 404, '/v1/campaigns/{id}/send', 'post');
  });

  test('scheduled: a future time schedules it, the stub clock starts it; a past time is a 400; a scheduled campaign can still be changed and sent at once', async () => {
    const audience = await segment();
    await contact('sched@example.com');
    const c = await campaign({ segment_id: audience.id });
    const at = new Date(mail.clock.now() + 3600_000).toISOString();
    answered(await send(c.id, { scheduled_at: new Date(mail.clock.now() - 1000).toISOString() }), 400, '/v1/campaigns/{id}/send', 'post');
    const scheduled = answered(await send(c.id, { scheduled_at: at }), 202, '/v1/campaigns/{id}/send', 'post').data;
    expect(scheduled).toMatchObject({ status: 'scheduled', scheduled_at: at, sent_at: null });
    answered(await max().PATCH('/v1/campaigns', { params: { query: { id: c.id } }, body: { subject: 'Rescheduled subject' } }), 200, '/v1/campaigns', 'patch');
    mail.clock.advance(3599_000);
    await mail.app.runDue();
    expect((await get(c.id)).status).toBe('scheduled');
    mail.clock.advance(1000);
    await mail.app.runDue();
    expect(await get(c.id)).toMatchObject({ status: 'sent', stats: { recipients: 1, delivered: 1 } });
    expect(mail.app.outbox.ofCampaign(c.id)[0]!.subject).toBe('Rescheduled subject');

    const other = await campaign({ segment_id: audience.id });
    answered(await send(other.id, { scheduled_at: new Date(mail.clock.now() + 60_000).toISOString() }), 202, '/v1/campaigns/{id}/send', 'post');
    expect(answered(await send(other.id), 202, '/v1/campaigns/{id}/send', 'post').data.status).toBe('sending');
  });

  test('a scheduled campaign whose segment was deleted is cancelled when its time comes', async () => {
    const audience = await segment();
    const c = await campaign({ segment_id: audience.id });
    answered(await send(c.id, { scheduled_at: new Date(mail.clock.now() + 60_000).toISOString() }), 202, '/v1/campaigns/{id}/send', 'post');
    answered(await dashboard().DELETE('/api/segments/{id}', { params: { path: { id: audience.id } } }), 200, '/api/segments/{id}', 'delete');
    mail.clock.advance(60_000);
    await mail.app.runDue();
    expect((await get(c.id)).status).toBe('cancelled');
  });

  test('with X-Service-Sandbox the copies are captured in the sandbox, nothing is delivered; the status changes are announced as the sandbox\'s', async () => {
    const audience = await segment();
    await contact('box@example.com');
    const c = await campaign({ segment_id: audience.id });
    const seen: Array<MailEvents['campaign.sent'] | MailEvents['campaign.completed']> = [];
    const offSent = mail.app.events.on('campaign.sent', (e) => seen.push(e));
    const offCompleted = mail.app.events.on('campaign.completed', (e) => seen.push(e));
    answered(await send(c.id, undefined, true), 202, '/v1/campaigns/{id}/send', 'post');
    await mail.app.runDue();
    offSent();
    offCompleted();
    expect(seen).toEqual([
      { userId: expect.any(String), campaignId: c.id, recipients: 1, sandbox: true },
      { userId: expect.any(String), campaignId: c.id, delivered: 0, failed: 0, sandbox: true, captured: 1 },
    ]);
    expect(await get(c.id)).toMatchObject({ status: 'sent', stats: { sent: 1, delivered: 0 } });
    const box = answered(await max().GET('/v1/sandbox'), 200, '/v1/sandbox', 'get').data;
    expect(box.map((m: { to: Array<{ email: string }> }) => m.to[0]!.email)).toEqual(['box@example.com']);
  });

  test("a key restricted to an account sends only campaigns from that account's address (403)", async () => {
    const account = answered(await dashboard().POST('/accounts', { body: { name: 'News', email: 'news@example.com' } }), 201, '/accounts', 'post').data;
    const key = answered(await dashboard().POST('/v1/keys', { body: { name: 'news only', allowed_account_id: account.id } }), 201, '/v1/keys', 'post').data;
    const restricted = mail.key(key.key);
    answered(await restricted.POST('/v1/campaigns', { body: { name: 'x', subject: 'x', from, html: '<p>x</p>' } }), 201, '/v1/campaigns', 'post');
    const refused = answered(await restricted.POST('/v1/campaigns', { body: { name: 'x', subject: 'x', from: { email: 'other@example.com' }, html: '<p>x</p>' } }), 403, '/v1/campaigns', 'post');
    expect(refused.error).toBe('from.email does not match the account this API key is restricted to');
    const audience = await segment();
    const c = await campaign({ segment_id: audience.id, from: { email: 'other@example.com' } });
    answered(await restricted.POST('/v1/campaigns/{id}/send', { params: { path: { id: c.id } } }), 403, '/v1/campaigns/{id}/send', 'post');
  });

  test('a sending campaign cannot be deleted (409) while its copies are being handed over', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const held = await startMail({ relay: { deliver: () => gate, close() {} } });
    try {
      const key = held.key('msk_test_max');
      const audience = answered(await held.session('sess_test_max').POST('/api/segments', { body: { name: 'All', segment_type: 'static', filter_criteria: { operator: 'AND', rules: [{ field: 'status', operator: 'equals', value: 'subscribed' }] } } }), 201, '/api/segments', 'post').data;
      const c = answered(await key.POST('/v1/campaigns', { body: { name: 'Held', subject: 'x', from, html: '<p>x</p>', segment_id: audience.id } }), 201, '/v1/campaigns', 'post').data;
      answered(await key.POST('/v1/campaigns/{id}/send', { params: { path: { id: c.id } } }), 202, '/v1/campaigns/{id}/send', 'post');
      const refused = answered(await key.DELETE('/v1/campaigns', { params: { query: { id: c.id } } }), 409, '/v1/campaigns', 'delete');
      expect(refused.error).toBe('Campaign is sending and cannot be deleted');
      open();
      await held.app.runDue();
      answered(await key.DELETE('/v1/campaigns', { params: { query: { id: c.id } } }), 200, '/v1/campaigns', 'delete');
    } finally {
      await held.close();
    }
  });

  test('each copy is written for its contact: fields and custom fields fill the placeholders, a missing value is written empty, values are escaped in html', async () => {
    const audience = await segment();
    await contact('ada@example.com', { first_name: 'Ada', custom_fields: { company: '<Analytical>' } });
    await contact('anon@example.com');
    const c = await campaign({ segment_id: audience.id, subject: 'Hi {{first_name}}', html: '<p>{{first_name}} at {{company}}</p>', text: 'Dear {{contact.email}}' });
    answered(await send(c.id), 202, '/v1/campaigns/{id}/send', 'post');
    const byEmail = Object.fromEntries(mail.app.outbox.ofCampaign(c.id).map((m) => [m.to[0]!.email, m]));
    expect(byEmail['ada@example.com']).toMatchObject({ subject: 'Hi Ada', html: '<p>Ada at &lt;Analytical&gt;</p>', text: 'Dear ada@example.com' });
    expect(byEmail['anon@example.com']).toMatchObject({ subject: 'Hi ', html: '<p> at </p>' });
  });

  test('a campaign may use a stored template for its body; a subject or body that does not parse is a 400 at once', async () => {
    const audience = await segment();
    await contact('tpl@example.com', { first_name: 'Tee' });
    const template = answered(await max().POST('/v1/templates', { body: { name: 'Welcome', subject: 'Template subject', html: '<h1>Welcome {{first_name}}</h1>', text: 'Welcome {{first_name}}' } }), 201, '/v1/templates', 'post').data;
    const c = await campaign({ segment_id: audience.id, html: undefined, template_id: template.id });
    answered(await send(c.id), 202, '/v1/campaigns/{id}/send', 'post');
    expect(mail.app.outbox.ofCampaign(c.id)[0]).toMatchObject({ subject: 'News for March', html: '<h1>Welcome Tee</h1>', text: 'Welcome Tee' });
    const broken = answered(await max().POST('/v1/campaigns', { body: { name: 'x', subject: 'x', from, html: '<p>{{ first_name </p>' } }), 400, '/v1/campaigns', 'post');
    expect(Object.keys(broken.details.fieldErrors)).toEqual(['html']);
    expect(answered(await max().POST('/v1/campaigns', { body: { name: 'x', subject: 'x', from, html: '<p>x</p>', template_id: template.id } }), 400, '/v1/campaigns', 'post').details).toEqual({ formErrors: ['Give html or template_id, not both'] });
  });
});

