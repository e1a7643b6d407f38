/**
 * The sending part of the mail scenario: `POST /v1/send` (an idempotent retry answers the first
 * answer), the sandbox it fills with `X-Service-Sandbox`, and the refusals the handler decides
 * (a key reused with another body, a `from` outside the key's account, scopes).
 */
import assert from 'node:assert/strict';
import { createMailClient } from '../../../generated/mail/client.gen.js';
import { fresh, notJson, sendOnly, type MailFixture, type MailScenarioPart } from './mail-fixture.js';
import { outcomeOf, required } from './scenario.js';

const message = () => ({ from: { email: 'hello@example.com', name: 'Scenario' }, to: [{ email: fresh('recipient') }], subject: 'Scenario', text: 'Hello from the scenario.' });
const sandboxed = { header: { 'X-Service-Sandbox': true } } as const;

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
    clearSandbox: async (f) => {
      required('send to the sandbox', await f.api.POST('/v1/send', { params: sandboxed, body: message() }), 200);
      return outcomeOf(await f.api.DELETE('/v1/sandbox'));
    },
  },

  expectations: {
    sendEmail: (b, f) => assert.deepEqual(b, JSON.parse(f.made.firstSend!), 'a retry with the same key answers the first answer'),
    listSandboxMessages: (b, f) => assert.ok(b.data.some((m: { id: string }) => m.id === f.made.sandboxed), 'the sandboxed send is captured with its id'),
    clearSandbox: (b) => assert.deepEqual(b, { success: true }),
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
    {
      id: 'sendEmail',
      status: 403,
      why: "a from address outside the key's allowed account",
      call: async (f) => {
        const account = required('create a sender account', await f.dashboard.POST('/accounts', { body: { name: 'Restricted sender', email: fresh('sender') } }), 201).data.id;
        const key = required('create a key restricted to it', await f.dashboard.POST('/v1/keys', { body: { name: 'Restricted scenario sender', allowed_account_id: account } }), 201).data;
        const restricted = createMailClient({ baseUrl: f.ctx.baseUrl, headers: { authorization: `Bearer ${key.key}` } });
        const outcome = outcomeOf(await restricted.POST('/v1/send', { body: message() }));
        required('revoke the key', await f.dashboard.DELETE('/v1/keys', { params: { query: { id: key.id } } }), 200);
        return outcome;
      },
    },
    { id: 'sendEmail', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/send') },
    { id: 'listSandboxMessages', status: 400, why: 'a page size over 100', call: async (f) => outcomeOf(await f.api.GET('/v1/sandbox', { params: { query: { limit: 101 } } })) },
    { id: 'listSandboxMessages', status: 403, why: 'a token without the read scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/sandbox')) },
    { id: 'clearSandbox', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).DELETE('/v1/sandbox')) },
  ],
};
