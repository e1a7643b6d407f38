/**
 * Deals on the seven-stage pipeline (`new` on create, `closed_at` on closing by PATCH or by a
 * pipeline move), the revenue summary and kanban with lost deals excluded from revenue, another
 * account's deal 404; the 402 plan gates in both published forms; outreach runs on the clock.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { FREE, OTHER, PAID, READONLY, checked, searchAndWait, startReach, type ReachStub } from './support.js';
import type { AnswerBody } from '../helpers/answer-body.js';

let reach: ReachStub | undefined;
afterEach(async () => {
  await reach?.close();
  reach = undefined;
});

const dealsPath = { path: '/api/deals', method: 'post' };
const patchPath = { path: '/api/deals/{id}', method: 'patch' };
const movePath = { path: '/api/pipeline', method: 'post' };

async function newDeal(r: ReachStub, name: string, value: number, key = FREE) {
  const created = checked(await r.client(key).POST('/api/deals', { body: { name, value } }), dealsPath);
  expect(created.status).toBe(201);
  return created.body.deal;
}

describe('deals', () => {
  test('a deal starts as new; closing it by PATCH records closed_at at the clock\'s time; reopening clears it', async () => {
    reach = await startReach();
    const deal = await newDeal(reach, 'Northwind', 1000);
    expect({ status: deal.status, closed_at: deal.closed_at, notes: deal.notes }).toEqual({ status: 'new', closed_at: null, notes: '' });
    reach.clock.advance(60_000);
    const closed = checked(await reach.client().PATCH('/api/deals/{id}', { params: { path: { id: deal.id } }, body: { status: 'closed', value: 1500, notes: 'Signed' } }), patchPath).body.deal;
    expect(closed).toMatchObject({ status: 'closed', value: 1500, notes: 'Signed', closed_at: '2026-01-15T09:31:00Z' });
    reach.clock.advance(60_000);
    const stillClosed = checked(await reach.client().PATCH('/api/deals/{id}', { params: { path: { id: deal.id } }, body: { notes: 'Invoice sent' } }), patchPath).body.deal;
    expect(stillClosed.closed_at).toBe('2026-01-15T09:31:00Z');
    const reopened = checked(await reach.client().PATCH('/api/deals/{id}', { params: { path: { id: deal.id } }, body: { status: 'proposal' } }), patchPath).body.deal;
    expect(reopened.closed_at).toBeNull();
  });

  test('a pipeline move to closed records closed_at too (DECISIONS reach-5)', async () => {
    reach = await startReach();
    const deal = await newDeal(reach, 'Contoso', 800);
    const moved = checked(await reach.client().POST('/api/pipeline', { body: { dealId: deal.id, stage: 'closed' } }), movePath).body.deal;
    expect({ status: moved.status, closed_at: moved.closed_at }).toEqual({ status: 'closed', closed_at: '2026-01-15T09:30:00Z' });
    const back = checked(await reach.client().POST('/api/pipeline', { body: { dealId: deal.id, stage: 'meeting' } }), movePath).body.deal;
    expect({ status: back.status, closed_at: back.closed_at }).toEqual({ status: 'meeting', closed_at: null });
  });

  test('revenue summary and kanban: closed, pipeline and total exclude lost deals', async () => {
    reach = await startReach();
    const won = await newDeal(reach, 'Won', 1000);
    const open = await newDeal(reach, 'Open', 300);
    const lost = await newDeal(reach, 'Lost', 5000);
    await reach.client().PATCH('/api/deals/{id}', { params: { path: { id: won.id } }, body: { status: 'closed' } });
    await reach.client().POST('/api/pipeline', { body: { dealId: open.id, stage: 'proposal' } });
    await reach.client().POST('/api/pipeline', { body: { dealId: lost.id, stage: 'lost' } });
    const list = checked(await reach.client().GET('/api/deals'), { path: '/api/deals', method: 'get' }).body;
    expect(list.summary).toEqual({ total: 1300, closed: 1000, pipeline: 300 });
    expect(list.deals.map((d: AnswerBody) => d.name)).toEqual(['Lost', 'Open', 'Won']);
    const pipeline = checked(await reach.client().GET('/api/pipeline'), { path: '/api/pipeline', method: 'get' }).body;
    expect(pipeline.stages.map((s: AnswerBody) => [s.stage, s.count, s.revenue])).toEqual([
      ['new', 0, 0],
      ['contacted', 0, 0],
      ['interested', 0, 0],
      ['meeting', 0, 0],
      ['proposal', 1, 300],
      ['closed', 1, 1000],
      ['lost', 1, 0],
    ]);
    expect(pipeline.stages[6].deals.map((d: AnswerBody) => d.id)).toEqual([lost.id]);
    expect(pipeline.revenue).toEqual({ total: 1300, closed: 1000, pipeline: 300 });
  });

  test('another account\'s deal is 404 on PATCH and on a pipeline move, and is not listed', async () => {
    reach = await startReach();
    const deal = await newDeal(reach, 'Mine', 100);
    expect(checked(await reach.client(OTHER).PATCH('/api/deals/{id}', { params: { path: { id: deal.id } }, body: { status: 'lost' } }), patchPath)).toMatchObject({ status: 404, body: { error: 'Deal not found' } });
    expect(checked(await reach.client(OTHER).POST('/api/pipeline', { body: { dealId: deal.id, stage: 'lost' } }), movePath).status).toBe(404);
    expect((await reach.client(PAID).GET('/api/deals')).data!.deals).toEqual([]);
    // A key of the same account sees it.
    expect((await reach.client(READONLY).GET('/api/deals')).data!.deals.map((d) => d.id)).toEqual([deal.id]);
    expect((await reach.client().GET('/api/deals')).data!.deals[0]!.status).toBe('new');
  });

  test('PATCH with nothing to update, or an unknown stage, is 422', async () => {
    reach = await startReach();
    const deal = await newDeal(reach, 'Mine', 100);
    expect(checked(await reach.client().PATCH('/api/deals/{id}', { params: { path: { id: deal.id } }, body: {} }), patchPath).status).toBe(422);
    const unknown = checked(await reach.client().POST('/api/pipeline', { body: { dealId: deal.id, stage: 'won' as never } }), movePath);
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.error.fieldErrors)).toEqual(['stage']);
  });
});

describe('402 plan limits, both published forms (DECISIONS reach-3)', () => {
  test('autopilot on the free plan: {error: plan_limit_exceeded, feature, used, limit, plan}', async () => {
    reach = await startReach();
    const { job } = await searchAndWait(reach, FREE, 'software');
    const refused = checked(await reach.client(FREE).POST('/api/autopilot/start', { body: { leadIds: [job.results[0].id] } }), { path: '/api/autopilot/start', method: 'post' });
    expect(refused).toMatchObject({ status: 402, body: { error: 'plan_limit_exceeded', feature: 'autopilot', used: 0, limit: 0, plan: 'free' } });
  });

  test('campaign sync on the free plan: the generic upgrade body {error, code: plan_limit_exceeded, upgrade} as published for the blog', async () => {
    reach = await startReach();
    const list = (await reach.client(FREE).POST('/api/lead-finder/lists', { body: { name: 'Free list' } })).data!.list;
    const refused = checked(
      await reach.client(FREE).POST('/api/lead-finder/lists/{listId}/sync', { params: { path: { listId: list.id } }, body: { campaignId: 'spring' } }),
      { path: '/api/lead-finder/lists/{listId}/sync', method: 'post' },
    );
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 402,
      body: {
        error: 'Campaign sync is not on the free plan; the Growth plan has it',
        code: 'plan_limit_exceeded',
        upgrade: {
          feature: 'campaign_sync',
          feature_label: 'Campaign sync',
          usage: { used: 0, limit: 0, remaining: 0, resets_at: null },
          current_plan: { slug: 'free', name: 'Free' },
          plans: [{ slug: 'growth', name: 'Growth', price: 49, url: 'https://reach.example/pricing?plan=growth' }],
          trial: { available: false, days: 0, plan_name: 'Growth', requires_card: true },
        },
      },
    });
    // The list was not synced.
    expect((await reach.client(FREE).GET('/api/lead-finder/lists')).data!.lists[0]).toMatchObject({ campaign_id: null, synced_at: null });
  });
});

describe('lists and autopilot on the paid plan', () => {
  test('a list syncs to a campaign; an outreach run goes queued → running → completed, a step a minute', async () => {
    reach = await startReach();
    const { job } = await searchAndWait(reach, PAID, 'software', 3);
    const leadIds = job.results.map((l: AnswerBody) => l.id);
    const list = checked(await reach.client(PAID).POST('/api/lead-finder/lists', { body: { name: 'Nordic', leadIds } }), { path: '/api/lead-finder/lists', method: 'post' }).body.list;
    const synced = checked(await reach.client(PAID).POST('/api/lead-finder/lists/{listId}/sync', { params: { path: { listId: list.id } }, body: { campaignId: 'spring' } }), { path: '/api/lead-finder/lists/{listId}/sync', method: 'post' }).body;
    expect({ campaign: synced.list.campaign_id, synced: synced.synced }).toEqual({ campaign: 'spring', synced: leadIds.length });
    expect((await reach.client(PAID).GET('/api/lead-finder/lists')).data!.lists.map((l) => l.id)).toEqual([list.id]);

    const started = checked(await reach.client(PAID).POST('/api/autopilot/start', { body: { leadIds, steps: 3 } }), { path: '/api/autopilot/start', method: 'post' });
    expect(started).toMatchObject({ status: 202, body: { run: { status: 'queued', steps_completed: 0, name: 'Outreach run' } } });
    const status = async () =>
      checked(await reach!.client(PAID).GET('/api/autopilot/{id}/status', { params: { path: { id: started.body.run.id } } }), { path: '/api/autopilot/{id}/status', method: 'get' }).body.run;
    reach.clock.advance(2_000);
    expect(await status()).toMatchObject({ status: 'running', steps_completed: 1, messages_sent: leadIds.length });
    reach.clock.advance(120_000);
    const lastStep = new Date(Date.parse(started.body.run.created_at) + 2_000 + 2 * 60_000).toISOString().replace('.000Z', 'Z');
    expect(await status()).toMatchObject({ status: 'completed', steps_completed: 3, messages_sent: 3 * leadIds.length, completed_at: lastStep });
    expect((await reach.client(PAID).GET('/api/autopilot/runs')).data!.runs.map((r) => r.id)).toEqual([started.body.run.id]);
    expect((await reach.client(OTHER).POST('/api/autopilot/start', { body: { leadIds } })).response.status).toBe(402);
  });
});
