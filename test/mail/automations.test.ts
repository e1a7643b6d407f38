/**
 * Automations through HTTP (issue 14, "automations: CRUD, a trigger on contact events that sends a
 * template"): draft → active ⇄ paused with its refusals, each trigger (contact created, tag added,
 * custom event, a date field reached on the stub clock), steps in order (send a template, wait on
 * the stub clock, add and remove tags), a paused automation holding its contacts, and what a send
 * skips (an unsubscribed contact).
 */
import { describe, expect, test } from 'vitest';
import type { MailEvents } from '../../server-stubs/mail/events.js';
import { answered, mailForEachTest } from './identity-support.js';

const mail = mailForEachTest();

const max = () => mail.key('msk_test_max');
const unknownId = '0f0e0d0c-0b0a-4909-8807-060504030201';
const from = { email: 'welcome@example.com' };
const path = '/v1/automations';

async function template(subject = 'Welcome {{first_name}}') {
  return answered(await max().POST('/v1/templates', { body: { name: 'Welcome', subject, html: '<p>Hello {{first_name}}</p>' } }), 201, '/v1/templates', 'post').data;
}

async function automation(body: Record<string, unknown>) {
  return answered(await max().POST(path, { body: { name: 'Flow', ...body } as never }), 201, path, 'post').data;
}

async function contact(email: string, extra: Record<string, unknown> = {}) {
  return answered(await max().POST('/v1/contacts', { body: { email, first_name: 'Ada', ...extra } as never }), 201, '/v1/contacts', 'post').data;
}

const mailTo = (email: string) => mail.app.outbox.all('usr_max').filter((m) => m.to[0]!.email === email);
const tagsOf = async (email: string) => answered(await max().GET('/v1/contacts', { params: { query: { email } } }), 200, '/v1/contacts', 'get').data[0].tags;
const patch = async (id: string, body: Record<string, unknown>) => max().PATCH(path, { params: { query: { id } }, body: body as never });

describe('create, list, move', () => {
  test('created in draft by default, listed newest first and by status; active needs a step (422); a template of nobody is a 404', async () => {
    const draft = await automation({ trigger: { type: 'contact_created' } });
    expect(draft).toMatchObject({ status: 'draft', steps: [], trigger: { type: 'contact_created' } });
    mail.clock.advance(1000);
    const t = await template();
    const active = await automation({ trigger: { type: 'tag_added', tag: 'vip' }, steps: [{ type: 'send_email', template_id: t.id, from }], status: 'active' });
    expect(answered(await max().GET(path), 200, path, 'get').data.map((a: { id: string }) => a.id)).toEqual([active.id, draft.id]);
    expect(answered(await max().GET(path, { params: { query: { status: 'active' } } }), 200, path, 'get').data.map((a: { id: string }) => a.id)).toEqual([active.id]);
    expect(answered(await max().POST(path, { body: { name: 'x', trigger: { type: 'contact_created' }, status: 'active' } }), 422, path, 'post').error).toBe('Automation needs at least one step to be active');
    expect(answered(await max().POST(path, { body: { name: 'x', trigger: { type: 'contact_created' }, steps: [{ type: 'send_email', template_id: unknownId, from }] } }), 404, path, 'post').error).toBe('Template not found');
    expect(answered(await mail.key('msk_test_pro').GET(path), 200, path, 'get').data).toEqual([]);
  });

  test('draft → active ⇄ paused, announced; pausing a draft or activating without steps is a 422; unknown ids 404', async () => {
    const t = await template();
    const a = await automation({ trigger: { type: 'contact_created' } });
    expect(answered(await patch(a.id, { status: 'paused' }), 422, path, 'patch').error).toBe('Only an active automation can be paused');
    answered(await patch(a.id, { status: 'active' }), 422, path, 'patch');
    const moves: Array<MailEvents['automation.status_changed']['status']> = [];
    const off = mail.app.events.on('automation.status_changed', (e) => moves.push(e.status));
    answered(await patch(a.id, { steps: [{ type: 'send_email', template_id: t.id, from }], status: 'active' }), 200, path, 'patch');
    answered(await patch(a.id, { status: 'paused' }), 200, path, 'patch');
    answered(await patch(a.id, { status: 'active', name: 'Renamed' }), 200, path, 'patch');
    off();
    expect(moves).toEqual(['active', 'paused', 'active']);
    expect(answered(await patch(a.id, { steps: [] }), 422, path, 'patch').error).toBe('Automation needs at least one step to be active');
    answered(await patch(unknownId, { name: 'x' }), 404, path, 'patch');
    answered(await patch(a.id, { status: 'draft' }), 400, path, 'patch');
  });
});

describe('running', () => {
  test('a contact created enters an active contact_created automation: the template is sent to it, personalized', async () => {
    const t = await template();
    await automation({ trigger: { type: 'contact_created' }, steps: [{ type: 'send_email', template_id: t.id, from }], status: 'active' });
    await contact('new@example.com');
    await mail.app.runDue();
    expect(mailTo('new@example.com').map((m) => [m.subject, m.html, m.from.email])).toEqual([['Welcome Ada', '<p>Hello Ada</p>', 'welcome@example.com']]);
  });

  test('steps run in order: a wait holds the contact until the stub clock passes it; tags are added and removed', async () => {
    const t = await template();
    const steps = [
      { type: 'add_tag', tag: 'onboarding' },
      { type: 'wait', duration_minutes: 60 },
      { type: 'send_email', template_id: t.id, from },
      { type: 'remove_tag', tag: 'onboarding' },
    ];
    await automation({ trigger: { type: 'tag_added', tag: 'trial' }, steps, status: 'active' });
    const c = await contact('trial@example.com');
    answered(await max().PATCH('/v1/contacts/{id}', { params: { path: { id: c.id } }, body: { tags: ['trial'] } }), 200, '/v1/contacts/{id}', 'patch');
    await mail.app.runDue();
    expect(await tagsOf('trial@example.com')).toEqual(['trial', 'onboarding']);
    expect(mailTo('trial@example.com')).toEqual([]);
    mail.clock.advance(59 * 60_000);
    await mail.app.runDue();
    expect(mailTo('trial@example.com')).toEqual([]);
    mail.clock.advance(60_000);
    await mail.app.runDue();
    expect(mailTo('trial@example.com')).toHaveLength(1);
    expect(await tagsOf('trial@example.com')).toEqual(['trial']);
  });

  test('a custom event tracked enrols the contact; a contact is in an automation once at a time', async () => {
    const t = await template();
    await automation({ trigger: { type: 'event', event_name: 'signed_up' }, steps: [{ type: 'wait', duration_minutes: 10 }, { type: 'send_email', template_id: t.id, from }], status: 'active' });
    await contact('event@example.com');
    answered(await max().POST('/v1/track/event', { body: { email: 'event@example.com', event: 'signed_up' } }), 201, '/v1/track/event', 'post');
    answered(await max().POST('/v1/track/event', { body: { email: 'event@example.com', event: 'signed_up' } }), 201, '/v1/track/event', 'post');
    answered(await max().POST('/v1/track/event', { body: { email: 'event@example.com', event: 'other' } }), 201, '/v1/track/event', 'post');
    mail.clock.advance(10 * 60_000);
    await mail.app.runDue();
    expect(mailTo('event@example.com')).toHaveLength(1);
  });

  test('a date field reached on the stub clock (shifted by offset_days) enrols the contact once; dates already past when activated do not', async () => {
    const t = await template();
    const now = mail.clock.now();
    const inTwoDays = new Date(now + 2 * 86_400_000).toISOString().slice(0, 10);
    await contact('renewal@example.com', { custom_fields: { renewal: inTwoDays } });
    await contact('past@example.com', { custom_fields: { renewal: '2020-01-01' } });
    await automation({ trigger: { type: 'date_field', field: 'custom_fields.renewal', offset_days: -1 }, steps: [{ type: 'send_email', template_id: t.id, from }], status: 'active' });
    await mail.app.runDue();
    expect(mailTo('renewal@example.com')).toEqual([]);
    mail.clock.set(Date.parse(`${inTwoDays}T00:00:00Z`) - 86_400_000);
    await mail.app.runDue();
    mail.clock.advance(86_400_000);
    await mail.app.runDue();
    expect(mailTo('renewal@example.com')).toHaveLength(1);
    expect(mailTo('past@example.com')).toEqual([]);
  });

  test('a paused automation takes no new contacts and holds those inside until it is active again', async () => {
    const t = await template();
    const a = await automation({ trigger: { type: 'contact_created' }, steps: [{ type: 'wait', duration_minutes: 5 }, { type: 'send_email', template_id: t.id, from }], status: 'active' });
    await contact('inside@example.com');
    answered(await patch(a.id, { status: 'paused' }), 200, path, 'patch');
    await contact('outside@example.com');
    mail.clock.advance(10 * 60_000);
    await mail.app.runDue();
    expect(mailTo('inside@example.com')).toEqual([]);
    answered(await patch(a.id, { status: 'active' }), 200, path, 'patch');
    await mail.app.runDue();
    expect(mailTo('inside@example.com')).toHaveLength(1);
    expect(mailTo('outside@example.com')).toEqual([]);
  });

  test('a contact that unsubscribed meanwhile is not sent to; a draft automation runs nobody', async () => {
    const t = await template();
    await automation({ trigger: { type: 'contact_created' }, steps: [{ type: 'send_email', template_id: t.id, from }] });
    await contact('draft@example.com');
    await automation({ trigger: { type: 'tag_added', tag: 'later' }, steps: [{ type: 'wait', duration_minutes: 1 }, { type: 'send_email', template_id: t.id, from }], status: 'active' });
    const c = await contact('leaver@example.com', { tags: ['later'] });
    answered(await max().PATCH('/v1/contacts/{id}', { params: { path: { id: c.id } }, body: { status: 'unsubscribed' } }), 200, '/v1/contacts/{id}', 'patch');
    mail.clock.advance(60_000);
    await mail.app.runDue();
    expect(mailTo('draft@example.com')).toEqual([]);
    expect(mailTo('leaver@example.com')).toEqual([]);
  });
});
