/**
 * The content part of the mail scenario: templates (create, list, render) and the Max-plan
 * channels (a WhatsApp template send, a push notification to a contact's devices), with the
 * refusals their handlers decide: templates that do not parse or reach for files, missing values,
 * unknown ids, unknown WhatsApp templates, contacts without push tokens, the plan gate (a Free key),
 * scopes. Free-form WhatsApp messages need an inbound message first, which only the stub's tests
 * can record: the scenario sends templates.
 */
import assert from 'node:assert/strict';
import { createMailClient } from '../../../generated/mail/client.gen.js';
import { fresh, notJson, sendOnly, type MailFixture, type MailScenarioPart } from './mail-fixture.js';
import { outcomeOf, required, transportOf } from './scenario.js';

const unknownId = '0f0e0d0c-0b0a-4909-8807-060504030201';
const phone = '+14155550100';
const onFreePlan = (f: MailFixture) => createMailClient({ baseUrl: f.ctx.baseUrl, headers: { authorization: 'Bearer msk_test_free' }, fetch: transportOf(f.ctx) });

/** Unique per run, so the list check finds this run's template on a long-running stub. */
const templateName = () => `Welcome ${fresh('template')}`;

export const contentPart: MailScenarioPart = {
  async setup(f) {
    const created = required(
      'create a template',
      await f.api.POST('/v1/templates', { body: { name: (f.made.templateName = templateName()), subject: 'Welcome, {{ first_name }}', html: '<p>Hi {{ first_name }} from {{ company }}</p>' } }),
      201,
    );
    f.made.template = created.data.id;
    const contact = required('create a contact with two devices', await f.api.POST('/v1/contacts', { body: { email: fresh('devices'), push_tokens: [{ platform: 'fcm', token: 'fcm-content' }, { platform: 'apns', token: 'apns-content' }] } }), 201);
    f.made.deviceContact = contact.data.id;
    f.made.bareContact = required('create a contact without devices', await f.api.POST('/v1/contacts', { body: { email: fresh('no-devices') } }), 201).data.id;
  },

  calls: {
    // Newest first: the template made by setup heads the list unless a parallel caller made one since.
    listTemplates: async ({ api }) => outcomeOf(await api.GET('/v1/templates', { params: { query: { limit: 100 } } })),
    createTemplate: async ({ api }) => outcomeOf(await api.POST('/v1/templates', { body: { name: templateName(), subject: 'Order {{ order.number }}', html: '{% for item in items %}<li>{{ item }}</li>{% endfor %}', text: 'Order {{ order.number }}' } })),
    renderTemplate: async ({ api, made }) => outcomeOf(await api.POST('/v1/templates/render', { body: { template_id: made.template!, variables: { first_name: '<b>Ada</b>', company: 'Example Ltd', unused: true } } })),
    sendWhatsAppMessage: async ({ api }) => outcomeOf(await api.POST('/v1/channels/whatsapp/send', { body: { to: phone, template_name: 'order_update', parameters: [{ type: 'text', text: '1042' }, { type: 'text', text: 'shipped' }] } })),
    sendPushNotification: async ({ api, made }) => outcomeOf(await api.POST('/v1/channels/push/send', { body: { contact_id: made.deviceContact!, title: 'Shipped', message: 'Order 1042 is on its way.', data: { order: '1042' } } })),
  },

  expectations: {
    listTemplates: (b, f) => assert.ok(b.data.some((t: { id: string; name: string }) => t.id === f.made.template && t.name === f.made.templateName), 'the list holds the template created'),
    createTemplate: (b) => assert.deepEqual({ variables: b.data.variables, text: b.data.text }, { variables: ['order', 'items'], text: 'Order {{ order.number }}' }),
    renderTemplate: (b) => assert.deepEqual(b.data, { subject: 'Welcome, <b>Ada</b>', html: '<p>Hi &lt;b&gt;Ada&lt;/b&gt; from Example Ltd</p>', text: null }),
    sendWhatsAppMessage: (b) => assert.ok(b.status === 'sent' && b.channel === 'whatsapp' && b.message_id.length > 0, 'a sent WhatsApp message with an id'),
    sendPushNotification: (b) => assert.deepEqual(b, { success: true, delivered: 2, failed: 0, device_count: 2, channel: 'push' }),
  },

  refusals: [
    { id: 'createTemplate', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/templates') },
    { id: 'renderTemplate', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/templates/render') },
    { id: 'sendWhatsAppMessage', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/channels/whatsapp/send') },
    { id: 'sendPushNotification', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/channels/push/send') },
    { id: 'listTemplates', status: 400, why: 'a page size over 100', call: async (f) => outcomeOf(await f.api.GET('/v1/templates', { params: { query: { limit: 101 } } })) },
    { id: 'listTemplates', status: 403, why: 'a token without the read scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/templates')) },
    { id: 'createTemplate', status: 400, why: 'an include tag: templates read no files', call: async (f) => outcomeOf(await f.api.POST('/v1/templates', { body: { name: templateName(), subject: 'x', html: '{% include "/etc/passwd" %}' } })) },
    { id: 'createTemplate', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).POST('/v1/templates', { body: { name: templateName(), subject: 'x', html: 'y' } })) },
    { id: 'renderTemplate', status: 400, why: 'an inline template that does not parse', call: async (f) => outcomeOf(await f.api.POST('/v1/templates/render', { body: { subject: '{% if x %}', html: 'y', variables: { x: 1 } } })) },
    { id: 'renderTemplate', status: 403, why: 'a token without the read scope', call: async (f) => outcomeOf(await sendOnly(f).POST('/v1/templates/render', { body: { subject: 'x', html: 'y' } })) },
    { id: 'renderTemplate', status: 404, why: 'no template with that id', call: async (f) => outcomeOf(await f.api.POST('/v1/templates/render', { body: { template_id: unknownId } })) },
    {
      id: 'renderTemplate',
      status: 422,
      why: 'a placeholder without a value',
      call: async (f) => outcomeOf(await f.api.POST('/v1/templates/render', { body: { template_id: f.made.template!, variables: { first_name: 'Ada' } } })),
    },
    { id: 'sendWhatsAppMessage', status: 400, why: 'a number that is not E.164', call: async (f) => outcomeOf(await f.api.POST('/v1/channels/whatsapp/send', { body: { to: '4155550100', template_name: 'welcome' } })) },
    { id: 'sendWhatsAppMessage', status: 403, why: 'the Free plan lacks WhatsApp', call: async (f) => outcomeOf(await onFreePlan(f).POST('/v1/channels/whatsapp/send', { body: { to: phone, template_name: 'welcome', parameters: [{ type: 'text', text: 'Ada' }] } })) },
    { id: 'sendWhatsAppMessage', status: 422, why: 'no approved template of that name', call: async (f) => outcomeOf(await f.api.POST('/v1/channels/whatsapp/send', { body: { to: phone, template_name: 'no_such_template' } })) },
    { id: 'sendPushNotification', status: 400, why: 'no title', call: async (f) => outcomeOf(await f.api.POST('/v1/channels/push/send', { body: { contact_id: f.made.deviceContact!, message: 'x' } as never })) },
    { id: 'sendPushNotification', status: 403, why: 'the Free plan lacks push', call: async (f) => outcomeOf(await onFreePlan(f).POST('/v1/channels/push/send', { body: { contact_id: unknownId, title: 'Hi', message: 'There' } })) },
    { id: 'sendPushNotification', status: 404, why: 'a contact without push tokens', call: async (f) => outcomeOf(await f.api.POST('/v1/channels/push/send', { body: { contact_id: f.made.bareContact!, title: 'Hi', message: 'There' } })) },
  ],
};
