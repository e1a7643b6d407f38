import type { operations } from '../../../generated/reach/types.gen.js';
import { reachHandlers, type ReachDeps } from '../context.js';
import { settleDueJobs } from '../jobs.js';
import { pricing, timing } from '../store.js';
import { charge, requireLeads, viaProvider } from './shared.js';

const MAX_SCORE = 200;

/**
 * The framework types a query whose parameters are all optional (`query?:`) as empty, so the
 * contract's own type is taken here; the validator has filled `page` and `pageSize` from their defaults.
 */
type ListLeadsQuery = NonNullable<operations['listLeads']['parameters']['query']> & { page: number; pageSize: number };

export function leadHandlers({ store, provider }: ReachDeps) {
  return reachHandlers({
    listLeads: async ({ principal, query: typed }) => {
      const query = typed as unknown as ListLeadsQuery;
      await settleDueJobs(store, provider);
      const needle = query.search?.toLowerCase();
      const matching = store
        .accountLeads(principal.accountId)
        .filter((l) => !needle || [l.name, l.title, l.company, l.email, l.industry, l.location].some((f) => f.toLowerCase().includes(needle)))
        .filter((l) => !query.verifyStatus || l.verify_status === query.verifyStatus)
        .filter((l) => query.scored === undefined || (l.score !== null) === query.scored);
      const start = (query.page - 1) * query.pageSize;
      return { status: 200, body: { leads: matching.slice(start, start + query.pageSize), page: query.page, pageSize: query.pageSize, total: matching.length } };
    },

    verifyLeads: async ({ principal, body, fail }) => {
      const leads = requireLeads(store, fail, principal.accountId, body.leadIds);
      const account = store.account(principal.accountId);
      const cost = leads.length * pricing.verifyCreditsPerLead;
      if (account.wallet < cost) charge(store, fail, account, cost, 'verification');
      // Ask the provider before charging: an unreachable provider costs nothing.
      const outcomes = await viaProvider(fail, () => Promise.all(leads.map((l) => provider.verify(l.email))));
      charge(store, fail, account, cost, 'verification');
      const results = leads.map((lead, i) => {
        const { status, score } = outcomes[i]!;
        store.updateLead(principal.accountId, lead.id, { verify_status: status, verify_score: score });
        return { leadId: lead.id, email: lead.email, verify_status: status, verify_score: score };
      });
      return { status: 200, body: { results, creditsUsed: cost, balance: account.wallet } };
    },

    scoreLeads: async ({ principal, body, fail }) => {
      // Exactly one of jobId and leadIds: the contract's `oneOf` (neither is the validator's 400, both its 422).
      let ids: string[];
      if (body.jobId !== undefined) {
        await settleDueJobs(store, provider);
        const job = store.job(principal.accountId, body.jobId) ?? fail(404, undefined, 'Lead-search job not found');
        const outcome = job.outcome;
        if (outcome?.status !== 'completed') {
          return fail(422, undefined, 'The search has not completed', { fieldErrors: { jobId: [`The search is ${store.jobView(job).status}; only a completed search can be scored`] } });
        }
        ids = outcome.leadIds.filter((id) => !store.isScoredOrQueued(id));
      } else {
        ids = requireLeads(store, fail, principal.accountId, body.leadIds ?? []).map((l) => l.id);
      }
      if (ids.length > MAX_SCORE) fail(422, undefined, 'Too many leads', { fieldErrors: { jobId: [`At most ${MAX_SCORE} leads per call; this search has ${ids.length} unscored`] } });
      const account = store.account(principal.accountId);
      const cost = ids.length * pricing.scoreCreditsPerLead;
      charge(store, fail, account, cost, 'scoring');
      const readyAtMs = store.now() + timing.scoreMs;
      for (const id of ids) store.queueScore(principal.accountId, id, readyAtMs);
      return {
        status: 202,
        body: { status: 'queued' as const, leadIds: ids, creditsUsed: cost, balance: account.wallet, readyAt: new Date(readyAtMs).toISOString() },
      };
    },

    enrichLeads: async ({ principal, body, fail }) => {
      const leads = requireLeads(store, fail, principal.accountId, body.leadIds);
      const found = await viaProvider(fail, () => Promise.all(leads.map((l) => provider.enrich(l.email))));
      const enriched = leads.map((lead, i) => store.updateLead(principal.accountId, lead.id, { linkedin_url: found[i]!.linkedinUrl, phone: found[i]!.phone }));
      return { status: 200, body: { leads: enriched } };
    },

    previewOutreachMessage: ({ principal, body, fail }) => {
      const [lead] = requireLeads(store, fail, principal.accountId, [body.leadId]);
      const first = lead!.name.split(' ')[0];
      const offer = body.offer ?? 'a short call to see whether we can help';
      const greeting = { friendly: `Hi ${first},`, formal: `Dear ${lead!.name},`, direct: `${first},` }[body.tone];
      const text = `${greeting}\n\nI noticed ${lead!.company} is growing its ${lead!.industry} work. Would ${offer} be useful?\n\nBest regards`;
      return { status: 200, body: { leadId: lead!.id, to: lead!.email, subject: `${first}, a quick idea for ${lead!.company}`, body: text } };
    },
  });
}
