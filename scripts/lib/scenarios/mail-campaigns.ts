/**
 * The campaigns part of the mail scenario: create, list, update, delete and send (now, scheduled,
 * refused in each state it cannot be in), and A/B tests of campaigns, over a static segment of
 * one contact made for the run.
 */
import assert from 'node:assert/strict';
import { fresh, notJson, sendOnly, unknownId, withRestrictedKey, type MailFixture, type MailScenarioPart } from './mail-fixture.js';
import { outcomeOf, required } from './scenario.js';

const from = { email: 'news@example.com', name: 'Scenario News' };
const variants = [
  { name: 'A', subject: 'Scenario A' },
  { name: 'B', subject: 'Scenario B' },
];

async function newAbTest(f: MailFixture, label: string) {
  return required(`create the A/B test "${label}"`, await f.api.POST('/v1/ab-tests', { body: { campaign_id: await newCampaign(f, label), variants, test_size_percent: 50 } }), 201).data;
}

/** An A/B test whose campaign was sent: running, ready for a winner. */
async function runningAbTest(f: MailFixture, label: string) {
  const test = await newAbTest(f, label);
  required('send its campaign', await f.api.POST('/v1/campaigns/{id}/send', { params: { path: { id: test.campaign_id } } }), 202);
  return test;
}


/** A draft to the run's segment; `withoutSegment` leaves the recipients unchosen. */
async function newCampaign(f: MailFixture, name: string, withoutSegment = false) {
  const body = { name, subject: `Scenario ${name}`, from, html: '<p>Hello {{first_name}}</p>', ...(!withoutSegment && { segment_id: f.made.campaignSegment }) };
  return required(`create the campaign "${name}"`, await f.api.POST('/v1/campaigns', { body }), 201).data.id;
}

export const campaignsPart: MailScenarioPart = {
  async setup(f) {
    const email = fresh('campaign');
    const id = required('create the campaign contact', await f.api.POST('/v1/contacts', { body: { email, first_name: 'Campaign' } }), 201).data.id;
    const criteria = { operator: 'AND' as const, rules: [{ field: 'email', operator: 'equals' as const, value: email }] };
    const segment = required('create the campaign segment', await f.dashboard.POST('/api/segments', { body: { name: `Scenario campaign ${email}`, segment_type: 'static', filter_criteria: criteria } }), 201).data;
    f.made.campaignSegment = segment.id;
    f.made.campaignContact = id;
    f.made.campaign = await newCampaign(f, 'setup');
  },

  calls: {
    listCampaigns: async ({ api }) => outcomeOf(await api.GET('/v1/campaigns', { params: { query: { status: 'draft', limit: 100 } } })),
    createCampaign: async (f) => outcomeOf(await f.api.POST('/v1/campaigns', { body: { name: 'Created', subject: 'Scenario', from, text: 'Hello', segment_id: f.made.campaignSegment } })),
    updateCampaign: async ({ api, made }) => outcomeOf(await api.PATCH('/v1/campaigns', { params: { query: { id: made.campaign! } }, body: { subject: 'Scenario, changed' } })),
    deleteCampaign: async (f) => outcomeOf(await f.api.DELETE('/v1/campaigns', { params: { query: { id: await newCampaign(f, 'to delete') } } })),
    sendCampaign: async (f) => outcomeOf(await f.api.POST('/v1/campaigns/{id}/send', { params: { path: { id: await newCampaign(f, 'sent') } } })),
    listAbTests: async (f) => {
      f.made.abTest = (await newAbTest(f, 'listed test')).id;
      return outcomeOf(await f.api.GET('/v1/ab-tests', { params: { query: { limit: 100 } } }));
    },
    createAbTest: async (f) => outcomeOf(await f.api.POST('/v1/ab-tests', { body: { campaign_id: await newCampaign(f, 'tested'), variants } })),
    selectAbTestWinner: async (f) => {
      const test = await runningAbTest(f, 'winner by hand');
      f.made.abWinner = test.variants[1]!.id;
      return outcomeOf(await f.api.POST('/v1/ab-tests/{id}/winner', { params: { path: { id: test.id } }, body: { variant_id: test.variants[1]!.id } }));
    },
  },

  expectations: {
    listCampaigns: (b, f) => assert.ok(b.data.some((c: { id: string }) => c.id === f.made.campaign), 'the draft made in setup is listed'),
    createCampaign: (b) => assert.deepEqual({ status: b.data.status, recipients: b.data.stats.recipients }, { status: 'draft', recipients: 0 }),
    updateCampaign: (b) => assert.equal(b.data.subject, 'Scenario, changed'),
    deleteCampaign: (b) => assert.deepEqual(b, { success: true }),
    sendCampaign: (b) => assert.deepEqual({ status: b.data.status, recipients: b.data.stats.recipients }, { status: 'sending', recipients: 1 }),
    listAbTests: (b, f) => assert.ok(b.data.some((t: { id: string }) => t.id === f.made.abTest), 'the test made is listed'),
    createAbTest: (b) => assert.deepEqual({ status: b.data.status, names: b.data.variants.map((v: { name: string }) => v.name) }, { status: 'draft', names: ['A', 'B'] }),
    selectAbTestWinner: (b, f) => assert.deepEqual({ status: b.data.status, winner: b.data.winner_variant_id }, { status: 'completed', winner: f.made.abWinner }),
  },

  refusals: [
    { id: 'listCampaigns', status: 400, why: 'a page size over 100', call: async (f) => outcomeOf(await f.api.GET('/v1/campaigns', { params: { query: { limit: 101 } } })) },
    { id: 'listCampaigns', status: 403, why: 'a token without the read scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/campaigns')) },
    { id: 'createCampaign', status: 404, why: 'a segment the user does not have', call: async (f) => outcomeOf(await f.api.POST('/v1/campaigns', { body: { name: 'x', subject: 'x', from, segment_id: unknownId } })) },
    { id: 'createCampaign', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).POST('/v1/campaigns', { body: { name: 'x', subject: 'x', from } })) },
    { id: 'createCampaign', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/campaigns') },
    { id: 'updateCampaign', status: 404, why: 'no campaign with that id', call: async (f) => outcomeOf(await f.api.PATCH('/v1/campaigns', { params: { query: { id: unknownId } }, body: { name: 'x' } })) },
    {
      id: 'updateCampaign',
      status: 409,
      why: 'a cancelled campaign cannot change',
      call: async (f) => {
        const id = await newCampaign(f, 'cancelled');
        required('cancel it', await f.api.PATCH('/v1/campaigns', { params: { query: { id } }, body: { status: 'cancelled' } }), 200);
        return outcomeOf(await f.api.PATCH('/v1/campaigns', { params: { query: { id } }, body: { name: 'Too late' } }));
      },
    },
    { id: 'updateCampaign', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).PATCH('/v1/campaigns', { params: { query: { id: unknownId } }, body: { name: 'x' } })) },
    { id: 'updateCampaign', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'PATCH', `/v1/campaigns?id=${unknownId}`) },
    { id: 'deleteCampaign', status: 404, why: 'no campaign with that id', call: async (f) => outcomeOf(await f.api.DELETE('/v1/campaigns', { params: { query: { id: unknownId } } })) },
    { id: 'deleteCampaign', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).DELETE('/v1/campaigns', { params: { query: { id: unknownId } } })) },
    { id: 'sendCampaign', status: 404, why: 'no campaign with that id', call: async (f) => outcomeOf(await f.api.POST('/v1/campaigns/{id}/send', { params: { path: { id: unknownId } } })) },
    {
      id: 'sendCampaign',
      status: 409,
      why: 'a campaign already sent',
      call: async (f) => {
        const id = await newCampaign(f, 'twice');
        required('send it once', await f.api.POST('/v1/campaigns/{id}/send', { params: { path: { id } } }), 202);
        return outcomeOf(await f.api.POST('/v1/campaigns/{id}/send', { params: { path: { id } } }));
      },
    },
    { id: 'sendCampaign', status: 422, why: 'a campaign without a segment', call: async (f) => outcomeOf(await f.api.POST('/v1/campaigns/{id}/send', { params: { path: { id: await newCampaign(f, 'no segment', true) } } })) },
    {
      id: 'sendCampaign',
      status: 400,
      why: 'a schedule in the past',
      call: async (f) => outcomeOf(await f.api.POST('/v1/campaigns/{id}/send', { params: { path: { id: f.made.campaign! } }, body: { scheduled_at: '2020-01-01T00:00:00Z' } })),
    },
    {
      id: 'sendCampaign',
      status: 403,
      why: "a campaign from an address outside the key's allowed account",
      call: async (f) => {
        const id = await newCampaign(f, 'foreign sender');
        return withRestrictedKey(f, async (client) => outcomeOf(await client.POST('/v1/campaigns/{id}/send', { params: { path: { id } } })));
      },
    },
    { id: 'sendCampaign', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', `/v1/campaigns/${unknownId}/send`) },
    { id: 'listAbTests', status: 400, why: 'a page size over 100', call: async (f) => outcomeOf(await f.api.GET('/v1/ab-tests', { params: { query: { limit: 101 } } })) },
    { id: 'listAbTests', status: 403, why: 'a token without the read scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/ab-tests')) },
    { id: 'createAbTest', status: 404, why: 'a campaign the user does not have', call: async (f) => outcomeOf(await f.api.POST('/v1/ab-tests', { body: { campaign_id: unknownId, variants } })) },
    {
      id: 'createAbTest',
      status: 409,
      why: 'a campaign that already has a test',
      call: async (f) => outcomeOf(await f.api.POST('/v1/ab-tests', { body: { campaign_id: (await newAbTest(f, 'tested twice')).campaign_id, variants } })),
    },
    { id: 'createAbTest', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).POST('/v1/ab-tests', { body: { campaign_id: unknownId, variants } })) },
    { id: 'createAbTest', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/ab-tests') },
    { id: 'selectAbTestWinner', status: 404, why: 'no test with that id', call: async (f) => outcomeOf(await f.api.POST('/v1/ab-tests/{id}/winner', { params: { path: { id: unknownId } }, body: { variant_id: unknownId } })) },
    {
      id: 'selectAbTestWinner',
      status: 409,
      why: 'a test whose campaign was not sent yet',
      call: async (f) => {
        const test = await newAbTest(f, 'not started');
        return outcomeOf(await f.api.POST('/v1/ab-tests/{id}/winner', { params: { path: { id: test.id } }, body: { variant_id: test.variants[0]!.id } }));
      },
    },
    { id: 'selectAbTestWinner', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).POST('/v1/ab-tests/{id}/winner', { params: { path: { id: unknownId } }, body: { variant_id: unknownId } })) },
    { id: 'selectAbTestWinner', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', `/v1/ab-tests/${unknownId}/winner`) },
  ],

  underSwitch: [{ id: 'deleteCampaign', status: 409, switch: 'a campaign still sending: without a relay holding its copies, sending ends at once (test/mail/campaigns.test.ts holds one)' }],
};
