import { randomUUID } from 'node:crypto';
import { reachHandlers, type ReachDeps } from '../context.js';
import { requireLeads } from './shared.js';

export function autopilotHandlers({ store }: ReachDeps) {
  return reachHandlers({
    startAutopilot: ({ principal, body, fail }) => {
      const account = store.account(principal.accountId);
      if (account.plan === 'free') fail(402, undefined, 'plan_limit_exceeded', { feature: 'autopilot', used: 0, limit: 0, plan: 'free' });
      const leads = requireLeads(store, fail, principal.accountId, body.leadIds);
      const id = randomUUID();
      store.saveRun({ id, accountId: account.id, name: body.name, leadIds: leads.map((l) => l.id), steps: body.steps, createdAtMs: store.now() });
      return { status: 202, body: { run: store.run(account.id, id)! } };
    },

    getAutopilotStatus: ({ principal, params, fail }) => {
      const run = store.run(principal.accountId, params.id) ?? fail(404, undefined, 'Autopilot run not found');
      return { status: 200, body: { run } };
    },

    listAutopilotRuns: ({ principal }) => ({ status: 200, body: { runs: store.accountRuns(principal.accountId) } }),
  });
}
