/**
 * WhatsApp and push sends through HTTP with the generated mail client (issue 14, "WhatsApp and
 * push"): the Max plan gate with `feature`, the `send` scope, E.164 numbers, approved templates and
 * their parameter counts, free-form messages only inside the 24-hour session window an inbound
 * message opens, channels not configured, and push counts per device token through the adapters.
 */
import { describe, expect, test } from 'vitest';
import type { PushAdapter, WhatsAppAdapter } from '../../server-stubs/mail/channels/adapters.js';
import { answered, mailForEachTest } from './identity-support.js';

const mail = mailForEachTest();

const max = () => mail.key('msk_test_max');
const phone = '+14155550100';
const unknownId = '0f0e0d0c-0b0a-4909-8807-060504030201';
const hour = 60 * 60 * 1000;

async function whatsapp(body: Record<string, unknown>, status = 200, client = max()) {
  return answered(await client.POST('/v1/channels/whatsapp/send', { body: body as never }), status, '/v1/channels/whatsapp/send', 'post');
}

async function push(body: Record<string, unknown>, status = 200, client = max()) {
  return answered(await client.POST('/v1/channels/push/send', { body: body as never }), status, '/v1/channels/push/send', 'post');
}

async function contactWith(tokens: Array<{ platform: 'fcm' | 'apns'; token: string }>, client = max()) {
  const email = `device.${Math.random().toString(36).slice(2)}@example.com`;
  return answered(await client.POST('/v1/contacts', { body: { email, push_tokens: tokens } }), 201, '/v1/contacts', 'post').data.id as string;
}

const template = (name: string, ...texts: string[]) => ({ to: phone, template_name: name, parameters: texts.map((text) => ({ type: 'text', text })) });

describe('WhatsApp: plan, scope and channel', () => {
  test('Free and Pro: 403 with feature whatsapp and the plan to upgrade to; nothing sent', async () => {
    for (const key of ['msk_test_free', 'msk_test_pro']) {
      const refused = await whatsapp(template('welcome', 'Ada'), 403, mail.key(key));
      expect(refused).toEqual({ success: false, error: 'This feature requires the Max plan', feature: 'whatsapp', required_plan: 'max' });
    }
    expect(mail.app.channels.whatsAppSentBy('usr_free')).toEqual([]);
    expect(mail.app.channels.whatsAppSentBy('usr_pro')).toEqual([]);
  });

  test('an OAuth token holding only the send scope may send', async () => {
    await whatsapp(template('welcome', 'Ada'), 200, mail.key('msk_test_oauth_send'));
  });

  test('a Max account without a connected WhatsApp Business account: 403 channel not configured (no feature)', async () => {
    mail.app.channels.configure('usr_max', 'whatsapp', false);
    expect(await whatsapp(template('welcome', 'Ada'), 403)).toEqual({ success: false, error: 'WhatsApp channel not configured' });
    mail.app.channels.configure('usr_max', 'whatsapp', true);
    await whatsapp(template('welcome', 'Ada'));
  });

  test('without credentials: 401', async () => {
    await whatsapp(template('welcome', 'Ada'), 401, mail.anonymous());
  });
});

describe('WhatsApp: template sends', () => {
  test('an approved template with its parameters is sent: {success, message_id, status sent, channel whatsapp}; the adapter got it', async () => {
    const sent = await whatsapp({ ...template('order_update', '1042', 'shipped'), language: 'es' });
    expect(sent).toMatchObject({ success: true, status: 'sent', channel: 'whatsapp' });
    expect(sent.message_id).toMatch(/^wamid\./);
    expect(mail.app.channels.whatsAppSentBy('usr_max')).toEqual([
      expect.objectContaining({ messageId: sent.message_id, message: { kind: 'template', to: phone, contactId: null, templateName: 'order_update', language: 'es', parameters: ['1042', 'shipped'] } }),
    ]);
  });

  test('language defaults to en', async () => {
    await whatsapp(template('welcome', 'Ada'));
    expect(mail.app.channels.whatsAppSentBy('usr_max')[0]!.message).toMatchObject({ language: 'en' });
  });

  test('an unknown template, or one not approved in that language: 422 Template not found', async () => {
    const unknown = await whatsapp(template('order_returned', 'x'), 422);
    expect(unknown).toEqual({ success: false, error: 'Template not found', details: { fieldErrors: { template_name: ['No approved template order_returned in language en'] } } });
    const french = await whatsapp({ ...template('welcome', 'Ada'), language: 'fr' }, 422);
    expect(french.error).toBe('Template not found');
    expect(mail.app.channels.whatsAppSentBy('usr_max')).toEqual([]);
  });

  test('a parameter count that does not match the template: 422 Template parameters mismatch (too few, too many, none)', async () => {
    for (const body of [template('order_update', 'only one'), template('welcome', 'a', 'b'), { to: phone, template_name: 'welcome' }]) {
      const refused = await whatsapp(body, 422);
      expect(refused.error).toBe('Template parameters mismatch');
    }
    expect((await whatsapp(template('order_update', '1'), 422)).details).toEqual({ fieldErrors: { parameters: ['Template order_update takes 2 parameter(s); 1 given'] } });
    expect(mail.app.channels.whatsAppSentBy('usr_max')).toEqual([]);
  });

  test('with both template_name and message, the template is sent and no session window is needed', async () => {
    await whatsapp({ ...template('welcome', 'Ada'), message: 'ignored' });
    expect(mail.app.channels.whatsAppSentBy('usr_max')[0]!.message.kind).toBe('template');
  });

  test('contact_id links the send to a contact of the account; an unknown one or another user\'s is a 400 field error', async () => {
    const mine = await contactWith([]);
    await whatsapp({ ...template('welcome', 'Ada'), contact_id: mine });
    expect(mail.app.channels.whatsAppSentBy('usr_max')[0]!.message.contactId).toBe(mine);
    const theirs = await contactWith([], mail.key('msk_test_pro'));
    for (const contact_id of [unknownId, theirs]) {
      const refused = await whatsapp({ ...template('welcome', 'Ada'), contact_id }, 400);
      expect(refused.details).toEqual({ fieldErrors: { contact_id: ['No contact with this id'] } });
    }
  });
});

describe('WhatsApp: free-form messages and the 24-hour session window', () => {
  test('without an inbound message from the number: 422, nothing sent', async () => {
    const refused = await whatsapp({ to: phone, message: 'Hello' }, 422);
    expect(refused.error).toBe('Outside the 24-hour session window');
    expect(mail.app.channels.whatsAppSentBy('usr_max')).toEqual([]);
  });

  test('an inbound message opens the window for 24 hours, for that number only', async () => {
    mail.app.channels.recordInbound('usr_max', phone);
    const sent = await whatsapp({ to: phone, message: 'Thanks for your message' });
    expect(sent.status).toBe('sent');
    expect(mail.app.channels.whatsAppSentBy('usr_max')[0]!.message).toEqual({ kind: 'text', to: phone, contactId: null, text: 'Thanks for your message' });
    await whatsapp({ to: '+14155550199', message: 'Other number' }, 422);
    mail.clock.advance(24 * hour - 1);
    await whatsapp({ to: phone, message: 'Still inside' });
    mail.clock.advance(1);
    await whatsapp({ to: phone, message: 'Too late' }, 422);
  });

  test('a later inbound message moves the window', async () => {
    mail.app.channels.recordInbound('usr_max', phone);
    mail.clock.advance(20 * hour);
    mail.app.channels.recordInbound('usr_max', phone);
    mail.clock.advance(10 * hour);
    await whatsapp({ to: phone, message: 'Within 24 h of the latest' });
  });
});

describe('WhatsApp: contract refusals (400)', () => {
  test('`to` not E.164 is refused with a field error on `to`', async () => {
    for (const to of ['4155550100', '+0123', '+1 415 555 0100', '']) {
      const refused = await whatsapp({ to, template_name: 'welcome', parameters: [{ type: 'text', text: 'a' }] }, 400);
      expect(refused.details.fieldErrors.to.length).toBeGreaterThan(0);
    }
  });

  test('neither template_name nor message, a parameter of another type, a language with an underscore', async () => {
    await whatsapp({ to: phone }, 400);
    await whatsapp({ to: phone, template_name: 'welcome', parameters: [{ type: 'image', text: 'a' }] }, 400);
    await whatsapp({ ...template('welcome', 'a'), language: 'en_US' }, 400);
  });
});

describe('push', () => {
  test('Free and Pro: 403 with feature push', async () => {
    for (const key of ['msk_test_free', 'msk_test_pro']) {
      const refused = await push({ contact_id: unknownId, title: 'Hi', message: 'There' }, 403, mail.key(key));
      expect(refused).toMatchObject({ feature: 'push', required_plan: 'max' });
    }
  });

  test('push not enabled for the account: 403 without feature', async () => {
    const id = await contactWith([{ platform: 'fcm', token: 'f1' }]);
    mail.app.channels.configure('usr_max', 'push', false);
    expect(await push({ contact_id: id, title: 'Hi', message: 'There' }, 403)).toEqual({ success: false, error: 'Push notifications not enabled' });
  });

  test('every registered token is delivered by the default adapter; the log keeps the notification', async () => {
    const id = await contactWith([
      { platform: 'fcm', token: 'f1' },
      { platform: 'apns', token: 'a1' },
    ]);
    const sent = await push({ contact_id: id, title: 'Shipped', message: 'Order 1042', url: 'app://orders/1042', data: { order: '1042' } }, 200, mail.key('msk_test_oauth_send'));
    expect(sent).toEqual({ success: true, delivered: 2, failed: 0, device_count: 2, channel: 'push' });
    const log = mail.app.channels.pushDeliveriesOf('usr_max');
    expect(log.map((d) => [d.token.token, d.delivered, d.notification.title, d.notification.data])).toEqual([
      ['f1', true, 'Shipped', { order: '1042' }],
      ['a1', true, 'Shipped', { order: '1042' }],
    ]);
  });

  test('a platform refusing some tokens: they count as failed, the others are delivered', async () => {
    const failsApns: PushAdapter = { deliver: async (_user, token) => token.platform !== 'apns' };
    mail.app.channels.useAdapters({ push: failsApns });
    const id = await contactWith([
      { platform: 'fcm', token: 'f1' },
      { platform: 'apns', token: 'a1' },
      { platform: 'apns', token: 'a2' },
    ]);
    expect(await push({ contact_id: id, title: 'Hi', message: 'There' })).toEqual({ success: true, delivered: 1, failed: 2, device_count: 3, channel: 'push' });
  });

  test('an adapter that throws for a token counts that token as failed', async () => {
    const throws: PushAdapter = { deliver: async (_user, token) => { if (token.token === 'bad') throw new Error('platform down'); return true; } };
    mail.app.channels.useAdapters({ push: throws });
    const id = await contactWith([{ platform: 'fcm', token: 'bad' }, { platform: 'fcm', token: 'good' }]);
    expect(await push({ contact_id: id, title: 'Hi', message: 'There' })).toMatchObject({ delivered: 1, failed: 1, device_count: 2 });
  });

  test('reset restores the recording adapters', async () => {
    mail.app.channels.useAdapters({ push: { deliver: async () => false } });
    mail.app.reset();
    const id = await contactWith([{ platform: 'fcm', token: 'f1' }]);
    expect(await push({ contact_id: id, title: 'Hi', message: 'There' })).toMatchObject({ delivered: 1, failed: 0 });
  });

  test('a contact without push tokens: 404; an unknown contact or another user\'s: 404', async () => {
    const bare = await contactWith([]);
    expect(await push({ contact_id: bare, title: 'Hi', message: 'There' }, 404)).toEqual({ success: false, error: 'Contact has no push tokens' });
    const theirs = await contactWith([{ platform: 'fcm', token: 'f1' }], mail.key('msk_test_pro'));
    for (const contact_id of [unknownId, theirs]) {
      expect(await push({ contact_id, title: 'Hi', message: 'There' }, 404)).toEqual({ success: false, error: 'Contact not found' });
    }
  });

  test('missing title or message, an icon that is not a URL: 400 from the contract', async () => {
    await push({ contact_id: unknownId, message: 'There' }, 400);
    await push({ contact_id: unknownId, title: 'Hi' }, 400);
    await push({ contact_id: unknownId, title: 'Hi', message: 'There', icon: 'not a url' }, 400);
  });
});

describe('WhatsApp adapter', () => {
  test('the injected adapter gets the message and its id is answered', async () => {
    const seen: unknown[] = [];
    const adapter: WhatsAppAdapter = { send: async (_user, message) => { seen.push(message); return { messageId: 'wamid.injected' }; } };
    mail.app.channels.useAdapters({ whatsapp: adapter });
    expect((await whatsapp(template('welcome', 'Ada'))).message_id).toBe('wamid.injected');
    expect(seen).toEqual([expect.objectContaining({ templateName: 'welcome', parameters: ['Ada'] })]);
  });
});
