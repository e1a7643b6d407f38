import { randomUUID } from 'node:crypto';
import { reachHandlers, type ReachDeps } from '../context.js';
import { requireLeads, upgradeOffer, viaProvider } from './shared.js';

export function leadListHandlers({ store, provider }: ReachDeps) {
  return reachHandlers({
    listLeadLists: async ({ principal, fail }) => {
      await viaProvider(fail, () => provider.ping());
      return { status: 200, body: { lists: store.accountLists(principal.accountId) } };
    },

    createLeadList: async ({ principal, body, fail }) => {
      const leads = requireLeads(store, fail, principal.accountId, body.leadIds);
      await viaProvider(fail, () => provider.ping());
      const list = store.saveList(principal.accountId, {
        id: randomUUID(),
        name: body.name.trim(),
        lead_ids: leads.map((l) => l.id),
        lead_count: leads.length,
        campaign_id: null,
        synced_at: null,
        created_at: store.nowIso(),
      });
      return { status: 201, body: { list } };
    },

    syncLeadList: async ({ principal, params, body, fail }) => {
      const list = store.list(principal.accountId, params.listId) ?? fail(404, undefined, 'Lead list not found');
      if (store.account(principal.accountId).plan === 'free') {
        fail(402, 'plan_limit_exceeded', 'Campaign sync is not on the free plan; the Growth plan has it', { upgrade: upgradeOffer('free', 'campaign_sync') });
      }
      await viaProvider(fail, () => provider.ping());
      const synced = store.saveList(principal.accountId, { ...list, campaign_id: body.campaignId, synced_at: store.nowIso() });
      return { status: 200, body: { list: synced, synced: synced.lead_count } };
    },
  });
}
