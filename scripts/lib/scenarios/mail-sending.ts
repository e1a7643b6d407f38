/**
 * The sending part of the mail scenario: `POST /v1/send` (an idempotent retry answers the first
 * answer), the sandbox it fills with `X-Service-Sandbox`, the open pixel and tracked links, and the refusals the handler decides
 * (a key reused with another body, a `from` outside the key's account, scopes).
 */
import assert from 'node:assert/strict';
import { fresh, notJson, sendOnly, withRestrictedKey, type MailFixture, type MailScenarioPart } from './mail-fixture.js';
import { outcomeOf, required, transportOf } from './scenario.js';

const message = () => ({ from: { email: 'hello@example.com', name: 'Scenario' }, to: [{ email: fresh('recipient') }], subject: 'Scenario', text: 'Hello from the scenario.' });
const sandboxed = { header: { 'X-Service-Sandbox': true } } as const;
const trackedLink = 'https://example.com/offer';

/** A message with one link, delivered (a stub without a relay delivers at once): what the tracking routes need. */
async function sentWithLink(f: MailFixture): Promise<string> {
  const body = { ...message(), html: `<p><a href="${trackedLink}">Offer</a></p>` };
  return required('send a message with a link', await f.api.POST('/v1/send', { body }), 200).data.id;
}

export const sendingPart: MailScenarioPart = {
  calls: {
    sendEmail: async (f) => {
      const body = { ...message(), idempotency_key: fresh('key') };
      const first = required('send once', await f.api.POST('/v1/send', { body }), 200);
      f.made.firstSend = JSON.stringify(first);
      return outcomeOf(await f.api.POST('/v1/send', { body }));
    },
    listSandboxMessages: async (f) => {
      f.made.sandboxed = required('send to the sandbox', await f.api.POST('/v1/send', { params: sandboxed, body: message() }), 200).data.id;
      return outcomeOf(await f.api.GET('/v1/sandbox', { params: { query: { limit: 100 } } }));
    },
    // Not JSON: the image and the redirect are kept in the fixture for their expectations.
    trackOpen: async (f) => {
      const response = await transportOf(f.ctx)(`${f.ctx.baseUrl}/t/open/${await sentWithLink(f)}`);
      f.made.pixel = `${response.headers.get('content-type')} ${Buffer.from(await response.arrayBuffer()).subarray(0, 6).toString()}`;
      return { status: response.status };
    },
    trackClick: async (f) => {
      const response = await transportOf(f.ctx)(`${f.ctx.baseUrl}/t/click/${await sentWithLink(f)}.0`, { redirect: 'manual' });
      await response.body?.cancel();
      f.made.clickedTo = response.headers.get('location') ?? '';
      return { status: response.status };
    },
    clearSandbox: async (f) => {
      required('send to the sandbox', await f.api.POST('/v1/send', { params: sandboxed, body: message() }), 200);
      return outcomeOf(await f.api.DELETE('/v1/sandbox'));
    },
  },

  expectations: {
    sendEmail: (b, f) => assert.deepEqual(b, JSON.parse(f.made.firstSend!), 'a retry with the same key answers the first answer'),
    listSandboxMessages: (b, f) => assert.ok(b.data.some((m: { id: string }) => m.id === f.made.sandboxed), 'the sandboxed send is captured with its id'),
    clearSandbox: (b) => assert.deepEqual(b, { success: true }),
    trackOpen: (_b, f) => assert.equal(f.made.pixel, 'image/gif GIF89a'),
    trackClick: (_b, f) => assert.equal(f.made.clickedTo, trackedLink),
  },

  refusals: [
    {
      id: 'sendEmail',
      status: 422,
      why: 'an idempotency key reused with another body',
      call: async (f) => {
        const body = { ...message(), idempotency_key: fresh('key') };
        required('send once', await f.api.POST('/v1/send', { body }), 200);
        return outcomeOf(await f.api.POST('/v1/send', { body: { ...body, subject: 'Changed' } }));
      },
    },
    { id: 'sendEmail', status: 403, why: "a from address outside the key's allowed account", call: (f) => withRestrictedKey(f, async (client) => outcomeOf(await client.POST('/v1/send', { body: message() }))) },
    { id: 'sendEmail', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/send') },
    { id: 'listSandboxMessages', status: 400, why: 'a page size over 100', call: async (f) => outcomeOf(await f.api.GET('/v1/sandbox', { params: { query: { limit: 101 } } })) },
    { id: 'listSandboxMessages', status: 403, why: 'a token without the read scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/sandbox')) },
    {
      id: 'trackClick',
      status: 404,
      why: 'a link the message does not have',
      call: async (f) => {
        const response = await transportOf(f.ctx)(`${f.ctx.baseUrl}/t/click/${await sentWithLink(f)}.9`, { redirect: 'manual' });
        return { status: response.status, body: await response.json() };
      },
    },
    { id: 'clearSandbox', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).DELETE('/v1/sandbox')) },
  ],
};
