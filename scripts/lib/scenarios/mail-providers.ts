/**
 * The providers part of the mail scenario: the feedback loop (health, an ARF complaint about a
 * message the scenario sent, which suppresses its recipient), mail server A's bounce, mail server
 * B's signed event, and the internal translation of a sent message. Provider secrets are read like
 * the stub reads them (the environment, else the printed test defaults); mail server B signs with
 * `POSTAL_TEST_PRIVATE_KEY`, else the published test key the stub verifies by default.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { providerSecretsFromEnv } from '../../../server-stubs/mail/auth.js';
import { signPostalBody } from '../../../server-stubs/mail/providers/postal-signature.js';
import { postalTestPrivateKey } from '../../../server-stubs/mail/providers/postal-test-keys.js';
import { fresh, unknownId, type MailFixture, type MailScenarioPart } from './mail-fixture.js';
import { required, transportOf } from './scenario.js';

const secrets = () => providerSecretsFromEnv();
const postalPrivateKey = () => process.env.POSTAL_TEST_PRIVATE_KEY ?? postalTestPrivateKey;

/** A real send of the scenario's user to a fresh address: what the provider events are about. */
async function sent(f: MailFixture, to: string): Promise<string> {
  const body = { from: { email: 'hello@example.com', name: 'Scenario' }, to: [{ email: to }], subject: 'Provider scenario', text: 'Hello from the provider scenario.', html: '<p>Hello from the provider scenario.</p>' };
  return required('send a message to report on', await f.api.POST('/v1/send', { body }), 200).data.id;
}

async function raw(f: MailFixture, method: string, path: string, headers: Record<string, string>, body?: string) {
  const response = await transportOf(f.ctx)(`${f.ctx.baseUrl}${path}`, { method, headers, body });
  return { status: response.status, body: await response.json() };
}

/** An ARF complaint (RFC 5965) about the scenario's message, with a report Message-ID of its own. */
function complaint(messageId: string, recipient: string): string {
  return [
    'From: feedback@fbl.example.net',
    'To: fbl@mail.platform.example',
    'Subject: FW: Provider scenario',
    `Message-ID: <${randomUUID()}@fbl.example.net>`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="arf"',
    '',
    '--arf',
    'Content-Type: text/plain',
    '',
    'This is an email abuse report.',
    '',
    '--arf',
    'Content-Type: message/feedback-report',
    '',
    'Feedback-Type: abuse',
    'User-Agent: ScenarioFBL/1.0',
    'Version: 1',
    `Original-Rcpt-To: <${recipient}>`,
    '',
    '--arf',
    'Content-Type: text/rfc822-headers',
    '',
    'From: hello@example.com',
    `To: ${recipient}`,
    `Message-ID: <${messageId}@mail.platform.example>`,
    '',
    '--arf--',
    '',
  ].join('\r\n');
}

function mailServerB(f: MailFixture, event: Record<string, unknown>) {
  const body = JSON.stringify(event);
  return raw(f, 'POST', '/webhooks/mailserver-b', { 'content-type': 'application/json', 'x-postal-signature': signPostalBody(body, postalPrivateKey()) }, body);
}

const translate = (f: MailFixture, body: Record<string, unknown>) =>
  raw(f, 'POST', '/webhooks/auto-translate', { 'content-type': 'application/json', 'x-internal-secret': secrets().internal }, JSON.stringify(body));

export const providersPart: MailScenarioPart = {
  calls: {
    getFeedbackLoopHealth: (f) => raw(f, 'GET', '/webhooks/fbl', {}),
    receiveFeedbackReport: async (f) => {
      const recipient = (f.made.complainer = fresh('complainer'));
      const messageId = await sent(f, recipient);
      return raw(f, 'POST', '/webhooks/fbl', { 'content-type': 'message/rfc822', 'x-webhook-secret': secrets().fbl }, complaint(messageId, recipient));
    },
    receiveMailServerAEvent: async (f) => {
      const recipient = fresh('bounced');
      const messageId = await sent(f, recipient);
      const payload = { type: 'bounce', message_id: messageId, recipient, bounce_type: 'hard', bounce_code: '5.1.1', diagnostic: '550 5.1.1 no such user', timestamp: new Date().toISOString() };
      return raw(f, 'POST', '/webhooks/mailserver-a', { 'content-type': 'application/json', 'x-inbound-secret': secrets().inbound }, JSON.stringify({ payload }));
    },
    receiveMailServerBEvent: async (f) => {
      const recipient = fresh('delivered');
      const messageId = await sent(f, recipient);
      const message = { id: 1, token: 'scenario', message_id: `${messageId}@mail.platform.example`, to: recipient, subject: 'Provider scenario' };
      return mailServerB(f, { event: 'MessageDelivered', timestamp: Date.now() / 1000, uuid: randomUUID(), payload: { status: 'Sent', details: 'accepted', message } });
    },
    translateStoredEmail: async (f) => {
      f.made.translated = await sent(f, fresh('translated'));
      return translate(f, { emailId: f.made.translated, targetLanguage: 'de', text: 'Hello, I have a question about invoice 1042.' });
    },
  },

  expectations: {
    getFeedbackLoopHealth: (b) => assert.deepEqual(b, { status: 'ok', accepts: ['message/rfc822', 'application/json', 'text/plain'] }),
    receiveFeedbackReport: (b, f) => assert.deepEqual(b, { success: true, feedbackType: 'abuse', recipient: f.made.complainer!.toLowerCase(), suppressed: true }),
    receiveMailServerAEvent: (b) => assert.deepEqual(b, { success: true }),
    receiveMailServerBEvent: (b) => assert.deepEqual(b, { success: true }),
    translateStoredEmail: (b, f) => {
      assert.equal(b.data.emailId, f.made.translated);
      assert.equal(b.data.targetLanguage, 'de');
      assert.ok(typeof b.data.text === 'string' && b.data.text !== '', 'the translated text is answered');
    },
  },

  refusals: [
    {
      id: 'receiveFeedbackReport',
      status: 400,
      why: 'a body that is not an ARF report',
      call: (f) => raw(f, 'POST', '/webhooks/fbl', { 'content-type': 'text/plain', 'x-webhook-secret': secrets().fbl }, 'this is not a report'),
    },
    {
      id: 'receiveMailServerAEvent',
      status: 400,
      why: 'an event type that is not delivery, bounce or complaint',
      call: (f) =>
        raw(f, 'POST', '/webhooks/mailserver-a', { 'content-type': 'application/json', 'x-inbound-secret': secrets().inbound }, JSON.stringify({ payload: { type: 'opened', message_id: unknownId, recipient: fresh('x'), timestamp: new Date().toISOString() } })),
    },
    {
      id: 'receiveMailServerBEvent',
      status: 400,
      why: 'a message event without its message',
      call: (f) => mailServerB(f, { event: 'MessageSent', timestamp: Date.now() / 1000, uuid: randomUUID(), payload: { status: 'Sent' } }),
    },
    {
      id: 'receiveMailServerBEvent',
      status: 401,
      why: 'a signature that does not verify',
      call: (f) => raw(f, 'POST', '/webhooks/mailserver-b', { 'content-type': 'application/json', 'x-postal-signature': 'bm90IGEgc2lnbmF0dXJl' }, '{"event":"MessageHeld","timestamp":1,"uuid":"x","payload":{}}'),
    },
    { id: 'translateStoredEmail', status: 404, why: 'no stored email with that id', call: (f) => translate(f, { emailId: unknownId, targetLanguage: 'de' }) },
    { id: 'translateStoredEmail', status: 400, why: 'a target language that is not a BCP-47 tag', call: (f) => translate(f, { emailId: unknownId, targetLanguage: 'not a language!!' }) },
  ],

  underSwitch: [{ id: 'receiveMailServerBEvent', status: 403, switch: 'POSTAL_ALLOWED_IPS without the caller\'s address' }],
};
