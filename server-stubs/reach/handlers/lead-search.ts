import { randomUUID } from 'node:crypto';
import { reachHandlers, type ReachDeps } from '../context.js';
import { settleDueJobs } from '../jobs.js';
import { monthOf, nextPeriodStartOf, pricing } from '../store.js';
import { charge, viaProvider } from './shared.js';

export function leadSearchHandlers({ store, provider }: ReachDeps) {
  return reachHandlers({
    searchLeads: async ({ principal, body, fail }) => {
      await viaProvider(fail, () => provider.ping());
      const account = store.account(principal.accountId);
      const month = monthOf(store.now());
      const used = store.searchesThisMonth(account);
      let credits = 0;
      if (account.plan === 'free') {
        if (used >= pricing.freeSearchesPerMonth) {
          const resets = new Date(nextPeriodStartOf(store.now())).toISOString().replace('.000Z', 'Z');
          fail(429, undefined, `The free plan's ${pricing.freeSearchesPerMonth} lead searches this month are used; they reset on ${resets}`, {
            balance: account.wallet,
            freeRemaining: 0,
            upgrade: true,
          });
        }
      } else {
        charge(store, fail, account, pricing.searchCredits, 'a lead search');
        credits = pricing.searchCredits;
      }
      account.searches[month] = used + 1;
      const id = randomUUID();
      store.jobs.set(id, { id, accountId: account.id, query: body.query, limit: body.limit, createdAtMs: store.now(), charge: { credits, month } });
      return { status: 202, body: { jobId: id, status: 'queued' as const } };
    },

    getLeadSearchJob: async ({ principal, params, fail }) => {
      await settleDueJobs(store, provider);
      const row = store.job(principal.accountId, params.jobId) ?? fail(404, undefined, 'Lead-search job not found');
      return { status: 200, body: { job: store.jobView(row) } };
    },

    discoverCompanies: async ({ principal, body, fail }) => {
      // At least one filter: the contract's `anyOf` (none given is the validator's 400).
      const companies = await viaProvider(fail, () => provider.discover(body));
      // Contacts fetched with their e-mails are saved as leads, so they can be verified and scored.
      for (const company of companies) {
        for (const contact of company.contacts) {
          const { contacts: _contacts, technologies: _technologies, ...firm } = company;
          store.saveLead(principal.accountId, { ...contact, company: firm.name, domain: firm.domain, industry: firm.industry, location: firm.location, headcount: firm.headcount }, 'discover', null);
        }
      }
      return { status: 200, body: { companies } };
    },
  });
}
