import { randomUUID } from 'node:crypto';
import type { Fail } from '../../lib/handlers.js';
import { reachHandlers, type ReachDeps } from '../context.js';
import { STAGES, type ReachStore } from '../store.js';

function requireDeal(store: ReachStore, fail: Fail<404>, accountId: string, id: string) {
  return store.deal(accountId, id) ?? fail(404, undefined, 'Deal not found');
}

export function dealHandlers({ store }: ReachDeps) {
  return reachHandlers({
    listDeals: ({ principal }) => {
      const deals = store.accountDeals(principal.accountId);
      return { status: 200, body: { deals, summary: store.revenue(deals) } };
    },

    createDeal: ({ principal, body, fail }) => {
      if (body.leadId !== undefined && !store.lead(principal.accountId, body.leadId)) fail(404, undefined, 'Lead not found');
      const now = store.nowIso();
      const deal = store.saveDeal(principal.accountId, {
        id: randomUUID(),
        name: body.name.trim(),
        lead_id: body.leadId ?? null,
        status: 'new',
        value: body.value,
        notes: body.notes,
        created_at: now,
        updated_at: now,
        closed_at: null,
      });
      return { status: 201, body: { deal } };
    },

    updateDeal: ({ principal, params, body, fail }) => {
      requireDeal(store, fail, principal.accountId, params.id);
      return { status: 200, body: { deal: store.changeDeal(principal.accountId, params.id, body) } };
    },

    getPipeline: ({ principal }) => {
      const deals = store.accountDeals(principal.accountId);
      const stages = STAGES.map((stage) => {
        const inStage = deals.filter((d) => d.status === stage);
        // Lost deals are excluded from revenue (published): the lost column shows its deals, worth 0.
        const revenue = stage === 'lost' ? 0 : inStage.reduce((sum, d) => sum + d.value, 0);
        return { stage, count: inStage.length, revenue, deals: inStage };
      });
      return { status: 200, body: { stages, revenue: store.revenue(deals) } };
    },

    moveDeal: ({ principal, body, fail }) => {
      requireDeal(store, fail, principal.accountId, body.dealId);
      return { status: 200, body: { deal: store.changeDeal(principal.accountId, body.dealId, { status: body.stage }) } };
    },
  });
}
