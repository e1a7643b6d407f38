/**
 * Verification (at most 20 a call, sets `verify_status` and `verify_score`) and background scoring
 * (exactly one of `jobId` and `leadIds`: neither 400, both 422; an empty `leadIds` is 422, at most 200, scores land on the clock), both
 * drawing credits from the wallet (DECISIONS reach-5); enrichment and message previews.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { FREE, OTHER, PAID, checked, contract, searchAndWait, startReach, type ReachStub } from './support.js';
import type { AnswerBody } from '../helpers/answer-body.js';

let reach: ReachStub | undefined;
afterEach(async () => {
  await reach?.close();
  reach = undefined;
});

const credits = async (r: ReachStub) => (await r.client(PAID).GET('/billing/subscription')).data!.credits;
const verifyPath = { path: '/api/lead-finder/verify', method: 'post' };
const scorePath = { path: '/api/lead-finder/score', method: 'post' };
const leadsPath = { path: '/api/lead-finder/leads', method: 'get' };

describe('verify', () => {
  test('sets verify_status and verify_score on the leads, 1 credit each', async () => {
    reach = await startReach();
    const { job } = await searchAndWait(reach, PAID, 'software media', 20);
    const leadIds = job.results.slice(0, 3).map((l: AnswerBody) => l.id);
    const before = await credits(reach);
    const verified = checked(await reach.client(PAID).POST('/api/lead-finder/verify', { body: { leadIds } }), verifyPath);
    expect(verified.status).toBe(200);
    expect(verified.body.results.map((r: AnswerBody) => r.leadId)).toEqual(leadIds);
    expect({ creditsUsed: verified.body.creditsUsed, balance: verified.body.balance }).toEqual({ creditsUsed: 3, balance: before - 3 });
    const leads = checked(await reach.client(PAID).GET('/api/lead-finder/leads', { params: { query: { pageSize: 100 } } }), leadsPath).body.leads;
    for (const result of verified.body.results) {
      const lead = leads.find((l: AnswerBody) => l.id === result.leadId);
      expect({ verify_status: lead.verify_status, verify_score: lead.verify_score }).toEqual({ verify_status: result.verify_status, verify_score: result.verify_score });
      expect(lead.verify_status).not.toBe('unverified');
    }
    const filtered = checked(await reach.client(PAID).GET('/api/lead-finder/leads', { params: { query: { verifyStatus: 'unverified', pageSize: 100 } } }), leadsPath).body;
    expect(filtered.total).toBe(job.result_count - 3);
  });

  test('at most 20 per call: 21 is 422 on leadIds, 20 is fine', async () => {
    reach = await startReach();
    const { job } = await searchAndWait(reach, PAID, 'software media logistics fintech', 25);
    const ids = job.results.map((l: AnswerBody) => l.id);
    expect(ids.length).toBeGreaterThanOrEqual(21);
    const refused = checked(await reach.client(PAID).POST('/api/lead-finder/verify', { body: { leadIds: ids.slice(0, 21) } }), verifyPath);
    expect(refused.status).toBe(422);
    expect(refused.body.error.fieldErrors.leadIds).toEqual([expect.stringMatching(/20/)]);
    expect(checked(await reach.client(PAID).POST('/api/lead-finder/verify', { body: { leadIds: ids.slice(0, 20) } }), verifyPath).status).toBe(200);
  });

  test('the free plan has no wallet: 429 with balance 0, freeRemaining and upgrade; nothing is verified', async () => {
    reach = await startReach();
    const { job } = await searchAndWait(reach, FREE, 'software');
    const refused = checked(await reach.client(FREE).POST('/api/lead-finder/verify', { body: { leadIds: [job.results[0].id] } }), verifyPath);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: expect.any(String), balance: 0, freeRemaining: 24, upgrade: true });
    const lead = checked(await reach.client(FREE).GET('/api/lead-finder/leads'), leadsPath).body.leads.find((l: AnswerBody) => l.id === job.results[0].id);
    expect(lead.verify_status).toBe('unverified');
  });

  test('a wallet short of the batch refuses the whole batch', async () => {
    reach = await startReach({ paidWalletCredits: 7 });
    const { job } = await searchAndWait(reach, PAID, 'software media', 10);
    const refused = checked(await reach.client(PAID).POST('/api/lead-finder/verify', { body: { leadIds: job.results.slice(0, 3).map((l: AnswerBody) => l.id) } }), verifyPath);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ balance: 2, freeRemaining: null, upgrade: true });
  });

  test('another account\'s lead is 404', async () => {
    reach = await startReach();
    const { job } = await searchAndWait(reach, PAID, 'software');
    expect(checked(await reach.client(OTHER).POST('/api/lead-finder/verify', { body: { leadIds: [job.results[0].id] } }), verifyPath).status).toBe(404);
  });
});

describe('score', () => {
  test('by jobId: every unscored result, 1 credit each; scores land on the clock', async () => {
    reach = await startReach();
    const { jobId, job } = await searchAndWait(reach, PAID, 'software', 5);
    const queued = checked(await reach.client(PAID).POST('/api/lead-finder/score', { body: { jobId } }), scorePath);
    expect(queued.status).toBe(202);
    expect(queued.body.leadIds.sort()).toEqual(job.results.map((l: AnswerBody) => l.id).sort());
    expect(queued.body.creditsUsed).toBe(job.result_count);
    const scored = async () => checked(await reach!.client(PAID).GET('/api/lead-finder/leads', { params: { query: { scored: true } } }), leadsPath).body.total;
    expect(await scored()).toBe(0);
    reach.clock.advance(5_000);
    expect(await scored()).toBe(job.result_count);
    // Scoring the job again finds nothing unscored, and costs nothing.
    const again = checked(await reach.client(PAID).POST('/api/lead-finder/score', { body: { jobId } }), scorePath).body;
    expect({ leadIds: again.leadIds, creditsUsed: again.creditsUsed }).toEqual({ leadIds: [], creditsUsed: 0 });
  });

  test('jobId and leadIds are exactly one of (DECISIONS reach-2): neither is 400 (a missing field), both and an empty leadIds 422', async () => {
    reach = await startReach();
    const { jobId, job } = await searchAndWait(reach, PAID, 'software', 5);
    const leadIds = [job.results[0].id];
    const before = await credits(reach);
    const neither = checked(await reach.client(PAID).POST('/api/lead-finder/score', { body: {} }), scorePath);
    expect({ status: neither.status, body: neither.body }).toEqual({ status: 400, body: { error: { fieldErrors: {}, formErrors: ['Exactly one of jobId or leadIds is needed'] } } });
    const both = checked(await reach.client(PAID).POST('/api/lead-finder/score', { body: { jobId, leadIds } }), scorePath);
    expect({ status: both.status, body: both.body }).toEqual({ status: 422, body: { error: { fieldErrors: {}, formErrors: ['jobId and leadIds are exclusive: give exactly one'] } } });
    const empty = checked(await reach.client(PAID).POST('/api/lead-finder/score', { body: { leadIds: [] } }), scorePath);
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.error.fieldErrors)).toEqual(['leadIds']);
    expect(await credits(reach)).toBe(before);
  });

  test('the contract states the pair: neither and both break the body schema, either alone keeps it', () => {
    const id = crypto.randomUUID();
    const errors = (body: unknown) => contract.requestErrors('/api/lead-finder/score', 'post', body);
    expect(errors({})).not.toEqual([]);
    expect(errors({ jobId: id, leadIds: [id] })).not.toEqual([]);
    expect(errors({ jobId: id })).toEqual([]);
    expect(errors({ leadIds: [id] })).toEqual([]);
  });

  test('at most 200 leads per call: 201 is 422', async () => {
    reach = await startReach();
    const ids = Array.from({ length: 201 }, () => crypto.randomUUID());
    const refused = checked(await reach.client(PAID).POST('/api/lead-finder/score', { body: { leadIds: ids } }), scorePath);
    expect(refused.status).toBe(422);
    expect(refused.body.error.fieldErrors.leadIds).toEqual([expect.stringMatching(/200/)]);
  });

  test('a search still running is 422; an unknown or another account\'s job is 404', async () => {
    reach = await startReach();
    const started = (await reach.client(PAID).POST('/api/lead-finder/search', { body: { query: 'software' } })).data!;
    const running = checked(await reach.client(PAID).POST('/api/lead-finder/score', { body: { jobId: started.jobId } }), scorePath);
    expect(running.status).toBe(422);
    expect(running.body.error.fieldErrors.jobId).toEqual([expect.stringMatching(/queued|running/)]);
    expect(checked(await reach.client(OTHER).POST('/api/lead-finder/score', { body: { jobId: started.jobId } }), scorePath).status).toBe(404);
    expect(checked(await reach.client(PAID).POST('/api/lead-finder/score', { body: { jobId: crypto.randomUUID() } }), scorePath).status).toBe(404);
  });

  test('the free plan has no wallet: 429 with the credit extras', async () => {
    reach = await startReach();
    const { job } = await searchAndWait(reach, FREE, 'software');
    const refused = checked(await reach.client(FREE).POST('/api/lead-finder/score', { body: { leadIds: [job.results[0].id] } }), scorePath);
    expect(refused).toMatchObject({ status: 429, body: { balance: 0, freeRemaining: 24, upgrade: true } });
  });
});

describe('enrich and preview', () => {
  test('enrich fills linkedin_url and phone; preview drafts a message to the lead', async () => {
    reach = await startReach();
    const { job } = await searchAndWait(reach, FREE, 'software');
    const lead = job.results[0];
    const enriched = checked(await reach.client().POST('/api/lead-finder/enrich', { body: { leadIds: [lead.id] } }), { path: '/api/lead-finder/enrich', method: 'post' }).body.leads[0];
    expect(enriched.linkedin_url).toMatch(/^https:\/\/www\.linkedin\.com\/in\//);
    expect(enriched.phone).toEqual(expect.any(String));
    const preview = checked(await reach.client().POST('/api/lead-finder/preview-message', { body: { leadId: lead.id, tone: 'formal', offer: 'a demo' } }), { path: '/api/lead-finder/preview-message', method: 'post' }).body;
    expect(preview.to).toBe(lead.email);
    expect(preview.body).toContain(`Dear ${lead.name},`);
    expect(preview.body).toContain('a demo');
  });
});
