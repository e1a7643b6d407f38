/**
 * The lead-outreach scenario: a completed lead search, a list, a deal and an outreach run made
 * through the API, then one call per operation on a path that succeeds, and the documented
 * refusals (403 per scope, 404 unknown or another account's, 422 bodies, 402 plan gates, 429 credit
 * limit, 400 returnUrl and missing fields).
 *
 * The tenant's credential (the first seed, `msr_test_key`: free plan, every scope) works on deals and
 * billing. Credit-metered and paid-only calls use the paid key (`REACH_PAID_KEY`, default
 * `mrk_test_key`), so the free plan's 25 searches a month left by earlier runs on a long-running
 * server do not matter. `REACH_READONLY_KEY` (default `msr_test_readonly`: leads:read deals:read)
 * and `REACH_OTHER_KEY` (default `msr_test_other`: another account that writes but cannot read)
 * show the scope refusals and the other account's 404s.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createReachClient, type ReachClient } from '../../../generated/reach/client.gen.js';
import { outcomeOf, patiently, required, ScenarioSetupError, type ScenarioContext, type ServiceScenario, transportOf } from './scenario.js';
import type { operations } from '../../../generated/reach/types.gen.js';

export interface ReachFixture {
  client: ReachClient;
  paid: ReachClient;
  readonly: ReachClient;
  other: ReachClient;
  jobId: string;
  leadId: string;
  /** a lead of the tenant's own (free) account */
  freeLeadId: string;
  listId: string;
  freeListId: string;
  dealId: string;
  runId: string;
}

const paidKey = () => process.env.REACH_PAID_KEY ?? 'mrk_test_key';
const readonlyKey = () => process.env.REACH_READONLY_KEY ?? 'msr_test_readonly';
const otherKey = () => process.env.REACH_OTHER_KEY ?? 'msr_test_other';
const SEARCH = 'heads of growth at software companies';

/** Polls the job as the document suggests (every 2 s, up to 120 s), or moves the stub clock past it. */
async function searchFinished(ctx: ScenarioContext, client: ReachClient, jobId: string) {
  await ctx.advance(10);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { job } = required('follow the lead search', await patiently(ctx, () => client.GET('/api/lead-finder/jobs/{jobId}', { params: { path: { jobId } } })), 200);
    if (job.status === 'completed') return job;
    if (job.status === 'failed') throw new ScenarioSetupError(`the lead search failed: ${job.error}`);
    if (Date.now() > deadline) throw new ScenarioSetupError('the lead search did not finish within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

const nobody = () => randomUUID();

export const reachScenario: ServiceScenario<ReachFixture, operations> = {
  async setup(ctx) {
    const client = createReachClient({ baseUrl: ctx.baseUrl, headers: ctx.headers, fetch: transportOf(ctx) });
    const keyed = (key: string) => createReachClient({ baseUrl: ctx.baseUrl, headers: { Authorization: `Bearer ${key}` }, fetch: transportOf(ctx) });
    const paid = keyed(paidKey());
    const { jobId } = required('start a lead search (paid key)', await patiently(ctx, () => paid.POST('/api/lead-finder/search', { body: { query: SEARCH, limit: 5 } })), 202);
    const job = await searchFinished(ctx, paid, jobId);
    const leadId = job.results[0]?.id ?? (() => { throw new ScenarioSetupError(`the search "${SEARCH}" found no leads`); })();
    const { list } = required('create a lead list (paid key)', await patiently(ctx, () => paid.POST('/api/lead-finder/lists', { body: { name: 'Scenario list', leadIds: [leadId] } })), 201);
    required('discover companies with e-mails (tenant)', await patiently(ctx, () => client.POST('/api/lead-finder/discover', { body: { industry: 'software', includeEmails: true, limit: 1 } })), 200);
    const { leads } = required('list the tenant\'s leads', await patiently(ctx, () => client.GET('/api/lead-finder/leads', { params: { query: { pageSize: 1 } } })), 200);
    const freeLeadId = leads[0]?.id ?? (() => { throw new ScenarioSetupError('discovery saved no lead for the tenant'); })();
    const freeList = required('create a lead list (tenant)', await patiently(ctx, () => client.POST('/api/lead-finder/lists', { body: { name: 'Free list' } })), 201);
    const { deal } = required('create a deal', await patiently(ctx, () => client.POST('/api/deals', { body: { name: 'Scenario deal', value: 5000 } })), 201);
    const { run } = required('start an outreach run (paid key)', await patiently(ctx, () => paid.POST('/api/autopilot/start', { body: { leadIds: [leadId], steps: 2 } })), 202);
    return { client, paid, readonly: keyed(readonlyKey()), other: keyed(otherKey()), jobId, leadId, freeLeadId, listId: list.id, freeListId: freeList.list.id, dealId: deal.id, runId: run.id };
  },

  calls: {
    searchLeads: async ({ paid }) => outcomeOf(await paid.POST('/api/lead-finder/search', { body: { query: 'founders of fintech companies' } })),
    getLeadSearchJob: async ({ paid, jobId }) => outcomeOf(await paid.GET('/api/lead-finder/jobs/{jobId}', { params: { path: { jobId } } })),
    discoverCompanies: async ({ client }) => outcomeOf(await client.POST('/api/lead-finder/discover', { body: { industry: 'software', limit: 3 } })),
    listLeads: async ({ paid }) => outcomeOf(await paid.GET('/api/lead-finder/leads', { params: { query: { page: 1, pageSize: 100 } } })),
    verifyLeads: async ({ paid, leadId }) => outcomeOf(await paid.POST('/api/lead-finder/verify', { body: { leadIds: [leadId] } })),
    scoreLeads: async ({ paid, leadId }) => outcomeOf(await paid.POST('/api/lead-finder/score', { body: { leadIds: [leadId] } })),
    listLeadLists: async ({ paid }) => outcomeOf(await paid.GET('/api/lead-finder/lists')),
    createLeadList: async ({ paid, leadId }) => outcomeOf(await paid.POST('/api/lead-finder/lists', { body: { name: 'Another list', leadIds: [leadId] } })),
    syncLeadList: async ({ paid, listId }) =>
      outcomeOf(await paid.POST('/api/lead-finder/lists/{listId}/sync', { params: { path: { listId } }, body: { campaignId: 'scenario-campaign' } })),
    enrichLeads: async ({ paid, leadId }) => outcomeOf(await paid.POST('/api/lead-finder/enrich', { body: { leadIds: [leadId] } })),
    previewOutreachMessage: async ({ paid, leadId }) => outcomeOf(await paid.POST('/api/lead-finder/preview-message', { body: { leadId, tone: 'formal' } })),
    listDeals: async ({ client }) => outcomeOf(await client.GET('/api/deals')),
    createDeal: async ({ client }) => outcomeOf(await client.POST('/api/deals', { body: { name: 'Created deal', value: 1200, notes: 'From the scenario' } })),
    updateDeal: async ({ client, dealId }) => outcomeOf(await client.PATCH('/api/deals/{id}', { params: { path: { id: dealId } }, body: { status: 'closed', value: 6000 } })),
    getPipeline: async ({ client }) => outcomeOf(await client.GET('/api/pipeline')),
    moveDeal: async ({ client }) => {
      const { deal } = required('create a deal to move', await client.POST('/api/deals', { body: { name: 'Deal to move', value: 300 } }), 201);
      return outcomeOf(await client.POST('/api/pipeline', { body: { dealId: deal.id, stage: 'meeting' } }));
    },
    startAutopilot: async ({ paid, leadId }) => outcomeOf(await paid.POST('/api/autopilot/start', { body: { name: 'Scenario run', leadIds: [leadId] } })),
    getAutopilotStatus: async ({ paid, runId }) => outcomeOf(await paid.GET('/api/autopilot/{id}/status', { params: { path: { id: runId } } })),
    listAutopilotRuns: async ({ paid }) => outcomeOf(await paid.GET('/api/autopilot/runs')),
    getUsage: async ({ client }) => outcomeOf(await client.GET('/billing/usage')),
    getSubscription: async ({ client }) => outcomeOf(await client.GET('/billing/subscription', { params: { query: { returnUrl: '/settings/billing' } } })),
  },

  expectations: {
    searchLeads: (b) => assert.equal(b.status, 'queued'),
    getLeadSearchJob: (b, f) => assert.deepEqual({ id: b.job.id, status: b.job.status, found: b.job.results.some((l: { id: string }) => l.id === f.leadId) }, { id: f.jobId, status: 'completed', found: true }),
    discoverCompanies: (b) => assert.ok(b.companies.length > 0 && b.companies.every((c: { industry: string; contacts: unknown[] }) => c.industry === 'software' && c.contacts.length === 0), 'software companies, no contacts unless asked'),
    listLeads: (b, f) => assert.ok(b.leads.some((l: { id: string }) => l.id === f.leadId), 'the search\'s lead is saved'),
    verifyLeads: (b, f) => {
      assert.deepEqual(b.results.map((r: { leadId: string }) => r.leadId), [f.leadId]);
      assert.equal(b.creditsUsed, 1);
    },
    scoreLeads: (b, f) => assert.deepEqual({ leadIds: b.leadIds, creditsUsed: b.creditsUsed }, { leadIds: [f.leadId], creditsUsed: 1 }),
    listLeadLists: (b, f) => assert.ok(b.lists.some((l: { id: string }) => l.id === f.listId), 'the list created is listed'),
    createLeadList: (b, f) => assert.deepEqual({ name: b.list.name, lead_ids: b.list.lead_ids }, { name: 'Another list', lead_ids: [f.leadId] }),
    syncLeadList: (b, f) => assert.deepEqual({ id: b.list.id, campaign_id: b.list.campaign_id, synced: b.synced }, { id: f.listId, campaign_id: 'scenario-campaign', synced: 1 }),
    enrichLeads: (b, f) => assert.ok(b.leads[0]?.id === f.leadId && b.leads[0].linkedin_url !== null, 'the lead is enriched'),
    previewOutreachMessage: (b, f) => assert.equal(b.leadId, f.leadId),
    listDeals: (b, f) => assert.ok(b.deals.some((d: { id: string }) => d.id === f.dealId), 'the deal created is listed'),
    createDeal: (b) => assert.deepEqual({ status: b.deal.status, value: b.deal.value, closed_at: b.deal.closed_at }, { status: 'new', value: 1200, closed_at: null }),
    updateDeal: (b, f) => {
      assert.deepEqual({ id: b.deal.id, status: b.deal.status, value: b.deal.value }, { id: f.dealId, status: 'closed', value: 6000 });
      assert.notEqual(b.deal.closed_at, null, 'closing records closed_at');
    },
    getPipeline: (b) => {
      assert.deepEqual(b.stages.map((s: { stage: string }) => s.stage), ['new', 'contacted', 'interested', 'meeting', 'proposal', 'closed', 'lost']);
      assert.equal(b.revenue.total, b.revenue.closed + b.revenue.pipeline);
    },
    moveDeal: (b) => assert.deepEqual({ status: b.deal.status, closed_at: b.deal.closed_at }, { status: 'meeting', closed_at: null }),
    startAutopilot: (b, f) => assert.deepEqual({ status: b.run.status, lead_ids: b.run.lead_ids }, { status: 'queued', lead_ids: [f.leadId] }),
    getAutopilotStatus: (b, f) => assert.equal(b.run.id, f.runId),
    listAutopilotRuns: (b, f) => assert.ok(b.runs.some((r: { id: string }) => r.id === f.runId), 'the run is listed'),
    getUsage: (b) => assert.deepEqual({ success: b.success, leadsLimit: b.leadsLimit }, { success: true, leadsLimit: 25 }),
    getSubscription: (b) => assert.deepEqual({ plan: b.plan, returns: String(b.portalUrl).includes(encodeURIComponent('/settings/billing')) }, { plan: 'free', returns: true }),
  },

  refusals: [
    // 403: a key without the route's scope (read-only for writes, the write-only other key for reads).
    { id: 'searchLeads', status: 403, why: 'leads:search missing', call: async ({ readonly }) => outcomeOf(await readonly.POST('/api/lead-finder/search', { body: { query: SEARCH } })) },
    { id: 'getLeadSearchJob', status: 403, why: 'leads:search missing', call: async ({ readonly, jobId }) => outcomeOf(await readonly.GET('/api/lead-finder/jobs/{jobId}', { params: { path: { jobId } } })) },
    { id: 'discoverCompanies', status: 403, why: 'leads:search missing', call: async ({ readonly }) => outcomeOf(await readonly.POST('/api/lead-finder/discover', { body: { industry: 'software' } })) },
    { id: 'listLeads', status: 403, why: 'leads:read missing', call: async ({ other }) => outcomeOf(await other.GET('/api/lead-finder/leads')) },
    { id: 'verifyLeads', status: 403, why: 'leads:verify missing', call: async ({ readonly, freeLeadId }) => outcomeOf(await readonly.POST('/api/lead-finder/verify', { body: { leadIds: [freeLeadId] } })) },
    { id: 'scoreLeads', status: 403, why: 'leads:score missing', call: async ({ readonly, freeLeadId }) => outcomeOf(await readonly.POST('/api/lead-finder/score', { body: { leadIds: [freeLeadId] } })) },
    { id: 'listLeadLists', status: 403, why: 'leads:read missing', call: async ({ other }) => outcomeOf(await other.GET('/api/lead-finder/lists')) },
    { id: 'createLeadList', status: 403, why: 'leads:search missing', call: async ({ readonly }) => outcomeOf(await readonly.POST('/api/lead-finder/lists', { body: { name: 'Not allowed' } })) },
    { id: 'syncLeadList', status: 403, why: 'leads:search missing', call: async ({ readonly, freeListId }) => outcomeOf(await readonly.POST('/api/lead-finder/lists/{listId}/sync', { params: { path: { listId: freeListId } }, body: { campaignId: 'c' } })) },
    { id: 'enrichLeads', status: 403, why: 'leads:search missing', call: async ({ readonly, freeLeadId }) => outcomeOf(await readonly.POST('/api/lead-finder/enrich', { body: { leadIds: [freeLeadId] } })) },
    { id: 'previewOutreachMessage', status: 403, why: 'leads:read missing', call: async ({ other, freeLeadId }) => outcomeOf(await other.POST('/api/lead-finder/preview-message', { body: { leadId: freeLeadId } })) },
    { id: 'listDeals', status: 403, why: 'deals:read missing', call: async ({ other }) => outcomeOf(await other.GET('/api/deals')) },
    { id: 'createDeal', status: 403, why: 'deals:write missing', call: async ({ readonly }) => outcomeOf(await readonly.POST('/api/deals', { body: { name: 'Not allowed' } })) },
    { id: 'updateDeal', status: 403, why: 'deals:write missing', call: async ({ readonly, dealId }) => outcomeOf(await readonly.PATCH('/api/deals/{id}', { params: { path: { id: dealId } }, body: { notes: 'x' } })) },
    { id: 'getPipeline', status: 403, why: 'deals:read missing', call: async ({ other }) => outcomeOf(await other.GET('/api/pipeline')) },
    { id: 'moveDeal', status: 403, why: 'deals:write missing', call: async ({ readonly, dealId }) => outcomeOf(await readonly.POST('/api/pipeline', { body: { dealId, stage: 'lost' } })) },
    { id: 'startAutopilot', status: 403, why: 'deals:write missing', call: async ({ readonly, freeLeadId }) => outcomeOf(await readonly.POST('/api/autopilot/start', { body: { leadIds: [freeLeadId] } })) },
    { id: 'getAutopilotStatus', status: 403, why: 'deals:read missing', call: async ({ other, runId }) => outcomeOf(await other.GET('/api/autopilot/{id}/status', { params: { path: { id: runId } } })) },
    { id: 'listAutopilotRuns', status: 403, why: 'deals:read missing', call: async ({ other }) => outcomeOf(await other.GET('/api/autopilot/runs')) },
    // 404: unknown, or another account's.
    { id: 'getLeadSearchJob', status: 404, why: 'another account\'s job', call: async ({ other, jobId }) => outcomeOf(await other.GET('/api/lead-finder/jobs/{jobId}', { params: { path: { jobId } } })) },
    { id: 'verifyLeads', status: 404, why: 'another account\'s lead', call: async ({ other, leadId }) => outcomeOf(await other.POST('/api/lead-finder/verify', { body: { leadIds: [leadId] } })) },
    { id: 'scoreLeads', status: 404, why: 'an unknown job', call: async ({ paid }) => outcomeOf(await paid.POST('/api/lead-finder/score', { body: { jobId: nobody() } })) },
    { id: 'createLeadList', status: 404, why: 'an unknown lead', call: async ({ paid }) => outcomeOf(await paid.POST('/api/lead-finder/lists', { body: { name: 'Unknown lead', leadIds: [nobody()] } })) },
    { id: 'syncLeadList', status: 404, why: 'another account\'s list', call: async ({ other, listId }) => outcomeOf(await other.POST('/api/lead-finder/lists/{listId}/sync', { params: { path: { listId } }, body: { campaignId: 'c' } })) },
    { id: 'enrichLeads', status: 404, why: 'an unknown lead', call: async ({ paid }) => outcomeOf(await paid.POST('/api/lead-finder/enrich', { body: { leadIds: [nobody()] } })) },
    { id: 'previewOutreachMessage', status: 404, why: 'an unknown lead', call: async ({ paid }) => outcomeOf(await paid.POST('/api/lead-finder/preview-message', { body: { leadId: nobody() } })) },
    { id: 'createDeal', status: 404, why: 'an unknown lead', call: async ({ client }) => outcomeOf(await client.POST('/api/deals', { body: { name: 'Unknown lead', leadId: nobody() } })) },
    { id: 'updateDeal', status: 404, why: 'another account\'s deal', call: async ({ other, dealId }) => outcomeOf(await other.PATCH('/api/deals/{id}', { params: { path: { id: dealId } }, body: { status: 'lost' } })) },
    { id: 'moveDeal', status: 404, why: 'another account\'s deal', call: async ({ other, dealId }) => outcomeOf(await other.POST('/api/pipeline', { body: { dealId, stage: 'lost' } })) },
    { id: 'startAutopilot', status: 404, why: 'an unknown lead', call: async ({ paid }) => outcomeOf(await paid.POST('/api/autopilot/start', { body: { leadIds: [nobody()] } })) },
    { id: 'getAutopilotStatus', status: 404, why: 'an unknown run', call: async ({ paid }) => outcomeOf(await paid.GET('/api/autopilot/{id}/status', { params: { path: { id: nobody() } } })) },
    // 422: bodies that parse but break their schema or a rule.
    { id: 'searchLeads', status: 422, why: 'a query under 3 characters', call: async ({ paid }) => outcomeOf(await paid.POST('/api/lead-finder/search', { body: { query: 'ab' } })) },
    { id: 'discoverCompanies', status: 422, why: 'a limit over 50', call: async ({ client }) => outcomeOf(await client.POST('/api/lead-finder/discover', { body: { industry: 'software', limit: 51 } })) },
    { id: 'verifyLeads', status: 422, why: 'more than 20 leads', call: async ({ paid }) => outcomeOf(await paid.POST('/api/lead-finder/verify', { body: { leadIds: Array.from({ length: 21 }, nobody) } })) },
    { id: 'scoreLeads', status: 422, why: 'both jobId and leadIds', call: async ({ paid, jobId, leadId }) => outcomeOf(await paid.POST('/api/lead-finder/score', { body: { jobId, leadIds: [leadId] } })) },
    { id: 'scoreLeads', status: 422, why: 'an empty leadIds', call: async ({ paid }) => outcomeOf(await paid.POST('/api/lead-finder/score', { body: { leadIds: [] } })) },
    { id: 'createLeadList', status: 422, why: 'an empty name', call: async ({ paid }) => outcomeOf(await paid.POST('/api/lead-finder/lists', { body: { name: '' } })) },
    { id: 'syncLeadList', status: 422, why: 'an empty campaignId', call: async ({ paid, listId }) => outcomeOf(await paid.POST('/api/lead-finder/lists/{listId}/sync', { params: { path: { listId } }, body: { campaignId: '' } })) },
    { id: 'enrichLeads', status: 422, why: 'no leadIds', call: async ({ paid }) => outcomeOf(await paid.POST('/api/lead-finder/enrich', { body: { leadIds: [] } })) },
    { id: 'previewOutreachMessage', status: 422, why: 'an unknown tone', call: async ({ paid, leadId }) => outcomeOf(await paid.POST('/api/lead-finder/preview-message', { body: { leadId, tone: 'shouty' as never } })) },
    { id: 'createDeal', status: 422, why: 'a negative value', call: async ({ client }) => outcomeOf(await client.POST('/api/deals', { body: { name: 'Negative', value: -1 } })) },
    { id: 'updateDeal', status: 422, why: 'no field to update', call: async ({ client, dealId }) => outcomeOf(await client.PATCH('/api/deals/{id}', { params: { path: { id: dealId } }, body: {} })) },
    { id: 'moveDeal', status: 422, why: 'an unknown stage', call: async ({ client, dealId }) => outcomeOf(await client.POST('/api/pipeline', { body: { dealId, stage: 'won' as never } })) },
    { id: 'startAutopilot', status: 422, why: 'more than 5 steps', call: async ({ paid, leadId }) => outcomeOf(await paid.POST('/api/autopilot/start', { body: { leadIds: [leadId], steps: 6 } })) },
    // 402: paid-only features on the free plan, in both published forms.
    { id: 'syncLeadList', status: 402, why: 'campaign sync is not on the free plan', call: async ({ client, freeListId }) => outcomeOf(await client.POST('/api/lead-finder/lists/{listId}/sync', { params: { path: { listId: freeListId } }, body: { campaignId: 'c' } })) },
    { id: 'startAutopilot', status: 402, why: 'autopilot is not on the free plan', call: async ({ client, freeLeadId }) => outcomeOf(await client.POST('/api/autopilot/start', { body: { leadIds: [freeLeadId] } })) },
    // 429 credit limit: the free plan has no wallet.
    { id: 'verifyLeads', status: 429, why: 'the free plan has no credits', call: async ({ client, freeLeadId }) => outcomeOf(await client.POST('/api/lead-finder/verify', { body: { leadIds: [freeLeadId] } })) },
    { id: 'scoreLeads', status: 429, why: 'the free plan has no credits', call: async ({ client, freeLeadId }) => outcomeOf(await client.POST('/api/lead-finder/score', { body: { leadIds: [freeLeadId] } })) },
    // 400: what fails before the body is shaped, and bodies that lack a required field (DECISIONS reach-2).
    { id: 'createDeal', status: 400, why: 'no name', call: async ({ client }) => outcomeOf(await client.POST('/api/deals', { body: {} as never })) },
    { id: 'syncLeadList', status: 400, why: 'no campaignId', call: async ({ paid, listId }) => outcomeOf(await paid.POST('/api/lead-finder/lists/{listId}/sync', { params: { path: { listId } }, body: {} as never })) },
    { id: 'scoreLeads', status: 400, why: 'neither jobId nor leadIds', call: async ({ paid }) => outcomeOf(await paid.POST('/api/lead-finder/score', { body: {} })) },
    { id: 'discoverCompanies', status: 400, why: 'no filter at all', call: async ({ client }) => outcomeOf(await client.POST('/api/lead-finder/discover', { body: { limit: 3 } })) },
    { id: 'listLeads', status: 400, why: 'page 0', call: async ({ client }) => outcomeOf(await client.GET('/api/lead-finder/leads', { params: { query: { page: 0 } } })) },
    { id: 'getSubscription', status: 400, why: 'a returnUrl off the registered domain', call: async ({ client }) => outcomeOf(await client.GET('/billing/subscription', { params: { query: { returnUrl: 'https://evil.example/phish' } } })) },
  ],

  underSwitch: [
    { id: 'searchLeads', status: 502, switch: 'REACH_PROVIDER=down' },
    { id: 'discoverCompanies', status: 502, switch: 'REACH_PROVIDER=down' },
    { id: 'verifyLeads', status: 502, switch: 'REACH_PROVIDER=down' },
    { id: 'listLeadLists', status: 502, switch: 'REACH_PROVIDER=down' },
    { id: 'createLeadList', status: 502, switch: 'REACH_PROVIDER=down' },
    { id: 'syncLeadList', status: 502, switch: 'REACH_PROVIDER=down' },
    { id: 'enrichLeads', status: 502, switch: 'REACH_PROVIDER=down' },
  ],
};

/** The service's scenario, found by its file name (index.ts). */
export default reachScenario;
