/**
 * The audience part of the mail scenario: contacts (list, create, update by path and by query,
 * delete, import as JSON and CSV) and the suppression list, with the refusals their handlers decide (duplicate address, unknown ids, the
 * plan's contact quota, scopes, bodies that are not JSON).
 */
import assert from 'node:assert/strict';
import { fresh, notJson, sendOnly, unknownId, type MailFixture, type MailScenarioPart } from './mail-fixture.js';
import { outcomeOf, required, transportOf } from './scenario.js';



async function newContact(f: MailFixture, label: string): Promise<string> {
  return required(`create the contact "${label}"`, await f.api.POST('/v1/contacts', { body: { email: fresh(label), tags: ['scenario'] } }), 201).data.id;
}


export const audiencePart: MailScenarioPart = {
  async setup(f) {
    f.made.contact = await newContact(f, 'scenario');
  },

  calls: {
    listContacts: async ({ api }) => outcomeOf(await api.GET('/v1/contacts', { params: { query: { tag: 'scenario', limit: 100 } } })),
    createContact: async ({ api }) => outcomeOf(await api.POST('/v1/contacts', { body: { email: fresh('created'), first_name: 'Ada', push_tokens: [{ platform: 'fcm', token: 'fcm-scenario' }] } })),
    updateContact: async ({ api, made }) =>
      outcomeOf(await api.PATCH('/v1/contacts/{id}', { params: { path: { id: made.contact! } }, body: { push_tokens: [{ platform: 'apns', token: 'apns-scenario' }] } })),
    updateContactByQuery: async ({ api, made }) => outcomeOf(await api.PATCH('/v1/contacts', { params: { query: { id: made.contact! } }, body: { first_name: 'Renamed' } })),
    deleteContact: async (f) => {
      const id = await newContact(f, 'to-delete');
      return outcomeOf(await f.api.DELETE('/v1/contacts', { params: { query: { id } } }));
    },
    importContacts: async ({ api }) => outcomeOf(await api.POST('/v1/contacts/import', { body: { contacts: [{ email: fresh('imported') }, { email: fresh('imported') }], tags: ['scenario-import'] } })),
    listSuppressions: async (f) => {
      required('create an unsubscribed contact', await f.api.POST('/v1/contacts', { body: { email: (f.made.unsubscribed = fresh('unsubscribed')), status: 'unsubscribed' } }), 201);
      return outcomeOf(await f.api.GET('/v1/suppressions', { params: { query: { reason: 'unsubscribed', limit: 100 } } }));
    },
  },

  expectations: {
    listContacts: (b, f) => assert.ok(b.data.some((c: { id: string }) => c.id === f.made.contact), 'the list holds the contact created'),
    createContact: (b) => {
      assert.equal(b.data.status, 'subscribed');
      assert.deepEqual(b.data.push_tokens, [{ platform: 'fcm', token: 'fcm-scenario' }]);
    },
    updateContact: (b, f) => assert.deepEqual({ id: b.data.id, tokens: b.data.push_tokens }, { id: f.made.contact, tokens: [{ platform: 'apns', token: 'apns-scenario' }] }),
    updateContactByQuery: (b, f) => assert.deepEqual({ id: b.data.id, name: b.data.first_name }, { id: f.made.contact, name: 'Renamed' }),
    deleteContact: (b) => assert.deepEqual(b, { success: true }),
    importContacts: (b) => assert.deepEqual({ total: b.data.total, created: b.data.created, errors: b.data.errors }, { total: 2, created: 2, errors: [] }),
    listSuppressions: (b, f) => assert.ok(b.data.some((s: { email: string; reason: string }) => s.email === f.made.unsubscribed!.toLowerCase() && s.reason === 'unsubscribed'), 'the unsubscribed address is listed'),
  },

  refusals: [
    {
      id: 'createContact',
      status: 409,
      why: 'another contact has this address',
      call: async (f) => {
        const email = fresh('twice');
        required('create the first contact', await f.api.POST('/v1/contacts', { body: { email } }), 201);
        return outcomeOf(await f.api.POST('/v1/contacts', { body: { email: email.toUpperCase() } }));
      },
    },
    { id: 'createContact', status: 403, why: 'a token without the write or contacts scope', call: async (f) => outcomeOf(await sendOnly(f).POST('/v1/contacts', { body: { email: fresh('scoped') } })) },
    { id: 'createContact', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/contacts') },
    { id: 'listContacts', status: 400, why: 'a page size over 100', call: async (f) => outcomeOf(await f.api.GET('/v1/contacts', { params: { query: { limit: 101 } } })) },
    { id: 'listContacts', status: 403, why: 'a token without the read or contacts scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/contacts')) },
    { id: 'updateContact', status: 404, why: 'no contact with that id', call: async (f) => outcomeOf(await f.api.PATCH('/v1/contacts/{id}', { params: { path: { id: unknownId } }, body: { first_name: 'Nobody' } })) },
    {
      id: 'updateContact',
      status: 403,
      why: 'a token without the write or contacts scope',
      call: async (f) => outcomeOf(await sendOnly(f).PATCH('/v1/contacts/{id}', { params: { path: { id: unknownId } }, body: { first_name: 'Nobody' } })),
    },
    { id: 'updateContact', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'PATCH', `/v1/contacts/${unknownId}`) },
    { id: 'updateContactByQuery', status: 404, why: 'no contact with that id', call: async (f) => outcomeOf(await f.api.PATCH('/v1/contacts', { params: { query: { id: unknownId } }, body: { first_name: 'Nobody' } })) },
    {
      id: 'updateContactByQuery',
      status: 403,
      why: 'a token without the write or contacts scope',
      call: async (f) => outcomeOf(await sendOnly(f).PATCH('/v1/contacts', { params: { query: { id: unknownId } }, body: { first_name: 'Nobody' } })),
    },
    { id: 'updateContactByQuery', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'PATCH', `/v1/contacts?id=${unknownId}`) },
    { id: 'deleteContact', status: 404, why: 'no contact with that id', call: async (f) => outcomeOf(await f.api.DELETE('/v1/contacts', { params: { query: { id: unknownId } } })) },
    { id: 'deleteContact', status: 403, why: 'a token without the write or contacts scope', call: async (f) => outcomeOf(await sendOnly(f).DELETE('/v1/contacts', { params: { query: { id: unknownId } } })) },
    { id: 'importContacts', status: 403, why: 'a token without the write or contacts scope', call: async (f) => outcomeOf(await sendOnly(f).POST('/v1/contacts/import', { body: { contacts: [{ email: fresh('scoped') }] } })) },
    { id: 'importContacts', status: 415, why: 'a body neither JSON nor CSV', call: (f) => notJson(f, 'POST', '/v1/contacts/import') },
    {
      id: 'importContacts',
      status: 400,
      why: 'a CSV file with an unclosed quote',
      call: async (f) => {
        const response = await transportOf(f.ctx)(`${f.ctx.baseUrl}/v1/contacts/import`, { method: 'POST', headers: { ...f.ctx.headers, 'content-type': 'text/csv' }, body: `email\n"${fresh('broken')}\n` });
        return { status: response.status, body: await response.json() };
      },
    },
    { id: 'listSuppressions', status: 400, why: 'an unknown reason', call: async (f) => outcomeOf(await f.api.GET('/v1/suppressions', { params: { query: { reason: 'bored' as never } } })) },
    { id: 'listSuppressions', status: 403, why: 'a token without the read or contacts scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/suppressions')) },
  ],
};
