/**
 * The automations part of the mail scenario: create (draft and active), list, move, and the
 * refusals of each move, over a template made for the run.
 */
import assert from 'node:assert/strict';
import { notJson, sendOnly, unknownId, type MailFixture, type MailScenarioPart } from './mail-fixture.js';
import { outcomeOf, required } from './scenario.js';

const from = { email: 'flows@example.com' };
const sendStep = (f: MailFixture) => ({ type: 'send_email' as const, template_id: f.made.automationTemplate!, from });

async function newAutomation(f: MailFixture, name: string) {
  return required(`create the automation "${name}"`, await f.api.POST('/v1/automations', { body: { name, trigger: { type: 'event', event_name: `scenario-${name}` } } }), 201).data.id;
}

export const automationsPart: MailScenarioPart = {
  async setup(f) {
    const body = { name: 'Scenario flow', subject: 'Hello {{first_name}}', html: '<p>Hello {{first_name}}</p>' };
    f.made.automationTemplate = required('create the automation template', await f.api.POST('/v1/templates', { body }), 201).data.id;
    f.made.automation = await newAutomation(f, 'listed');
  },

  calls: {
    listAutomations: async ({ api }) => outcomeOf(await api.GET('/v1/automations', { params: { query: { status: 'draft', limit: 100 } } })),
    createAutomation: async (f) =>
      outcomeOf(await f.api.POST('/v1/automations', { body: { name: 'Created', trigger: { type: 'event', event_name: 'scenario-created' }, steps: [{ type: 'wait', duration_minutes: 5 }, sendStep(f)], status: 'active' } })),
    updateAutomation: async (f) => outcomeOf(await f.api.PATCH('/v1/automations', { params: { query: { id: await newAutomation(f, 'activated') } }, body: { steps: [sendStep(f)], status: 'active' } })),
  },

  expectations: {
    listAutomations: (b, f) => assert.ok(b.data.some((a: { id: string }) => a.id === f.made.automation), 'the draft made in setup is listed'),
    createAutomation: (b) => assert.deepEqual({ status: b.data.status, steps: b.data.steps.length }, { status: 'active', steps: 2 }),
    updateAutomation: (b) => assert.deepEqual({ status: b.data.status, steps: b.data.steps.length }, { status: 'active', steps: 1 }),
  },

  refusals: [
    { id: 'listAutomations', status: 400, why: 'a page size over 100', call: async (f) => outcomeOf(await f.api.GET('/v1/automations', { params: { query: { limit: 101 } } })) },
    { id: 'listAutomations', status: 403, why: 'a token without the read scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/automations')) },
    {
      id: 'createAutomation',
      status: 404,
      why: 'a template the user does not have',
      call: async (f) => outcomeOf(await f.api.POST('/v1/automations', { body: { name: 'x', trigger: { type: 'contact_created' }, steps: [{ ...sendStep(f), template_id: unknownId }] } })),
    },
    { id: 'createAutomation', status: 422, why: 'active without a step', call: async (f) => outcomeOf(await f.api.POST('/v1/automations', { body: { name: 'x', trigger: { type: 'contact_created' }, status: 'active' } })) },
    { id: 'createAutomation', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).POST('/v1/automations', { body: { name: 'x', trigger: { type: 'contact_created' } } })) },
    { id: 'createAutomation', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/automations') },
    { id: 'updateAutomation', status: 404, why: 'no automation with that id', call: async (f) => outcomeOf(await f.api.PATCH('/v1/automations', { params: { query: { id: unknownId } }, body: { name: 'x' } })) },
    { id: 'updateAutomation', status: 422, why: 'pausing a draft', call: async (f) => outcomeOf(await f.api.PATCH('/v1/automations', { params: { query: { id: await newAutomation(f, 'paused draft') } }, body: { status: 'paused' } })) },
    { id: 'updateAutomation', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).PATCH('/v1/automations', { params: { query: { id: unknownId } }, body: { name: 'x' } })) },
    { id: 'updateAutomation', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'PATCH', `/v1/automations?id=${unknownId}`) },
  ],
};
