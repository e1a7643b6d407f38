/**
 * The asynchronous lead search: 202 `{jobId}` at once, the job moving queued → running → completed
 * on the clock (a client polling every 2 s sees it finish well within 120 s), the free plan's 25
 * searches per calendar month in UTC, the paid wallet, usage, discovery and the provider switch.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { createManualClock } from '../../server-stubs/lib/clock.js';
import { FREE, PAID, checked, contract, raw, searchAndWait, startReach, type ReachStub } from './support.js';
import type { AnswerBody } from '../helpers/answer-body.js';

let reach: ReachStub | undefined;
afterEach(async () => {
  await reach?.close();
  reach = undefined;
});

const usage = async (r: ReachStub, key = FREE) => checked(await r.client(key).GET('/billing/usage'), { path: '/billing/usage', method: 'get' }).body;

describe('the job', () => {
  test('202 {jobId, status: queued} at once; polled every 2 s it runs, then completes with saved leads', async () => {
    reach = await startReach();
    const client = reach.client(FREE);
    const started = checked(await client.POST('/api/lead-finder/search', { body: { query: 'software companies in Stockholm' } }), { path: '/api/lead-finder/search', method: 'post' });
    expect(started.status).toBe(202);
    expect(started.body.status).toBe('queued');
    const statuses: string[] = [];
    let job: AnswerBody = {};
    for (let polls = 0; polls <= 60; polls += 1) {
      job = checked(await client.GET('/api/lead-finder/jobs/{jobId}', { params: { path: { jobId: started.body.jobId } } }), { path: '/api/lead-finder/jobs/{jobId}', method: 'get' }).body.job;
      statuses.push(job.status);
      if (job.status === 'completed' || job.status === 'failed') break;
      reach.clock.advance(2_000);
    }
    expect([...new Set(statuses)]).toEqual(['queued', 'running', 'completed']);
    expect(statuses.length * 2).toBeLessThan(120);
    expect(job.result_count).toBeGreaterThan(0);
    expect(job.results.length).toBe(job.result_count);
    expect(job.results.every((l: AnswerBody) => l.verify_status === 'unverified' && l.verify_score === null && l.job_id === job.id)).toBe(true);
    const saved = checked(await client.GET('/api/lead-finder/leads', { params: { query: { pageSize: 100 } } }), { path: '/api/lead-finder/leads', method: 'get' }).body;
    expect(saved.total).toBe(job.result_count);
    expect(saved.leads.map((l: AnswerBody) => l.id).sort()).toEqual(job.results.map((l: AnswerBody) => l.id).sort());
  });

  test('results are the same on every run (the fixture dataset)', async () => {
    reach = await startReach();
    const first = await searchAndWait(reach, FREE, 'fintech founders in Berlin');
    await reach.close();
    reach = await startReach();
    const second = await searchAndWait(reach, FREE, 'fintech founders in Berlin');
    const emails = (job: AnswerBody) => job.results.map((l: AnswerBody) => l.email);
    expect(emails(second.job)).toEqual(emails(first.job));
  });

  test('another account\'s job and an unknown job are 404; a malformed id is 400', async () => {
    reach = await startReach();
    const { jobId } = await searchAndWait(reach, FREE, 'software');
    const path = { path: '/api/lead-finder/jobs/{jobId}', method: 'get' };
    expect(checked(await reach.client(PAID).GET('/api/lead-finder/jobs/{jobId}', { params: { path: { jobId } } }), path).status).toBe(404);
    expect(checked(await reach.client(FREE).GET('/api/lead-finder/jobs/{jobId}', { params: { path: { jobId: crypto.randomUUID() } } }), path).status).toBe(404);
    expect(checked(await reach.client(FREE).GET('/api/lead-finder/jobs/{jobId}', { params: { path: { jobId: '12' } } }), path).status).toBe(400);
  });

  test('leads can be searched and filtered', async () => {
    reach = await startReach();
    const { job } = await searchAndWait(reach, FREE, 'software media logistics', 30);
    const some = job.results[0];
    const found = checked(await reach.client().GET('/api/lead-finder/leads', { params: { query: { search: some.email.toUpperCase() } } }), { path: '/api/lead-finder/leads', method: 'get' }).body;
    expect(found.leads.map((l: AnswerBody) => l.id)).toEqual([some.id]);
    const page = checked(await reach.client().GET('/api/lead-finder/leads', { params: { query: { page: 2, pageSize: 5, scored: false } } }), { path: '/api/lead-finder/leads', method: 'get' }).body;
    expect({ page: page.page, pageSize: page.pageSize, length: page.leads.length, total: page.total }).toEqual({ page: 2, pageSize: 5, length: 5, total: job.result_count });
  });
});

describe('the free plan: 25 searches per calendar month in UTC (DECISIONS reach-5)', () => {
  test('the 26th search is 429 with balance, freeRemaining and upgrade; usage counts searches', async () => {
    reach = await startReach({ clock: createManualClock(Date.parse('2026-01-31T12:00:00Z')) });
    for (let i = 0; i < 25; i += 1) expect((await raw(reach.baseUrl, 'POST', '/api/lead-finder/search', { body: JSON.stringify({ query: `software ${i}` }) })).status).toBe(202);
    expect(await usage(reach)).toEqual({ success: true, leadsUsed: 25, leadsLimit: 25, periodStart: '2026-01-01T00:00:00Z' });
    const refused = checked(await reach.client().POST('/api/lead-finder/search', { body: { query: 'one more search' } }), { path: '/api/lead-finder/search', method: 'post' });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: expect.stringContaining('2026-02-01T00:00:00Z'), balance: 0, freeRemaining: 0, upgrade: true });
    expect(refused.headers.get('retry-after')).toBeNull();
  });

  test('the allowance comes back on the 1st, 00:00 UTC, and not a moment before', async () => {
    reach = await startReach({ clock: createManualClock(Date.parse('2026-01-31T23:59:00Z')) });
    for (let i = 0; i < 25; i += 1) await reach.client().POST('/api/lead-finder/search', { body: { query: `software ${i}` } });
    reach.clock.advance(59_000); // 23:59:59
    expect((await reach.client().POST('/api/lead-finder/search', { body: { query: 'still January' } })).response.status).toBe(429);
    reach.clock.advance(1_000); // 2026-02-01T00:00:00Z
    expect(await usage(reach)).toEqual({ success: true, leadsUsed: 0, leadsLimit: 25, periodStart: '2026-02-01T00:00:00Z' });
    expect((await reach.client().POST('/api/lead-finder/search', { body: { query: 'February' } })).response.status).toBe(202);
  });

  test('keys of the same account share the allowance; another account has its own', async () => {
    reach = await startReach();
    for (let i = 0; i < 3; i += 1) await reach.client(FREE).POST('/api/lead-finder/search', { body: { query: 'software' } });
    expect((await usage(reach, 'msr_test_readonly')).leadsUsed).toBe(3);
    expect((await usage(reach, 'msr_test_other')).leadsUsed).toBe(0);
  });
});

describe('the paid plan: credits from the wallet', () => {
  test('no numeric cap (leadsLimit null); 5 credits a search; an empty wallet is 429 with freeRemaining null', async () => {
    reach = await startReach({ paidWalletCredits: 12 });
    const paid = reach.client(PAID);
    expect((await paid.POST('/api/lead-finder/search', { body: { query: 'software' } })).response.status).toBe(202);
    expect((await paid.POST('/api/lead-finder/search', { body: { query: 'fintech' } })).response.status).toBe(202);
    const refused = checked(await paid.POST('/api/lead-finder/search', { body: { query: 'media' } }), { path: '/api/lead-finder/search', method: 'post' });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ balance: 2, freeRemaining: null, upgrade: true });
    const used = await usage(reach, PAID);
    expect({ leadsUsed: used.leadsUsed, leadsLimit: used.leadsLimit }).toEqual({ leadsUsed: 2, leadsLimit: null });
    const subscription = checked(await paid.GET('/billing/subscription'), { path: '/billing/subscription', method: 'get' }).body;
    expect(subscription).toMatchObject({ plan: 'growth', credits: 2, renewsAt: '2026-02-01T00:00:00Z', portalUrl: null });
  });
});

describe('discovery', () => {
  test('filters by industry, location, headcount and technology; contacts only with includeEmails', async () => {
    reach = await startReach();
    const path = { path: '/api/lead-finder/discover', method: 'post' };
    const plain = checked(await reach.client().POST('/api/lead-finder/discover', { body: { industry: 'media', headcount: '51-200' } }), path).body;
    expect(plain.companies.length).toBeGreaterThan(0);
    expect(plain.companies.every((c: AnswerBody) => c.industry === 'media' && c.headcount >= 51 && c.headcount <= 200 && c.contacts.length === 0)).toBe(true);
    const withEmails = checked(await reach.client().POST('/api/lead-finder/discover', { body: { technology: 'react', includeEmails: true, limit: 2 } }), path).body;
    expect(withEmails.companies.length).toBe(2);
    expect(withEmails.companies.every((c: AnswerBody) => c.technologies.includes('react') && c.contacts.length > 0)).toBe(true);
  });
});

describe('the provider switched down (DECISIONS reach-6)', () => {
  test('every route that needs the provider answers 502 {error}; the others work', async () => {
    reach = await startReach({ provider: 'down' });
    const calls: Array<[string, string, unknown?]> = [
      ['POST', '/api/lead-finder/search', { query: 'software' }],
      ['POST', '/api/lead-finder/discover', { industry: 'software' }],
      ['GET', '/api/lead-finder/lists'],
      ['POST', '/api/lead-finder/lists', { name: 'Down' }],
    ];
    for (const [method, path, body] of calls) {
      const answer = await raw(reach.baseUrl, method, path, body === undefined ? {} : { body: JSON.stringify(body) });
      expect(answer.status, `${method} ${path}`).toBe(502);
      expect(answer.body).toEqual({ error: expect.stringMatching(/provider/) });
      expect(contractOk(method, path, 502, answer.body)).toEqual([]);
    }
    expect((await usage(reach)).leadsUsed).toBe(0);
    expect((await raw(reach.baseUrl, 'GET', '/api/deals')).status).toBe(200);
  });

  test('verify and enrich answer 502 too, and charge nothing', async () => {
    reach = await startReach();
    const { job } = await searchAndWait(reach, PAID, 'software');
    const leadIds = [job.results[0].id];
    const before = (await reach.client(PAID).GET('/billing/subscription')).data!.credits;
    reach.app.provider.down = true;
    expect((await reach.client(PAID).POST('/api/lead-finder/verify', { body: { leadIds } })).response.status).toBe(502);
    expect((await reach.client(PAID).POST('/api/lead-finder/enrich', { body: { leadIds } })).response.status).toBe(502);
    expect((await reach.client(PAID).GET('/billing/subscription')).data!.credits).toBe(before);
  });

  test('a provider that goes down after the search was accepted fails the job, and the search is not counted', async () => {
    reach = await startReach();
    const started = await reach.client().POST('/api/lead-finder/search', { body: { query: 'software' } });
    expect((await usage(reach)).leadsUsed).toBe(1);
    reach.app.provider.down = true;
    reach.clock.advance(6_000);
    const job = checked(await reach.client().GET('/api/lead-finder/jobs/{jobId}', { params: { path: { jobId: started.data!.jobId } } }), { path: '/api/lead-finder/jobs/{jobId}', method: 'get' }).body.job;
    expect({ status: job.status, results: job.results }).toEqual({ status: 'failed', results: [] });
    expect(job.error).toMatch(/provider/);
    expect((await usage(reach)).leadsUsed).toBe(0);
  });
});

function contractOk(method: string, path: string, status: number, body: unknown) {
  return contract.responseErrors(path, method.toLowerCase(), status, body);
}
