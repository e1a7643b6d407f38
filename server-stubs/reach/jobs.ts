import type { SwitchableProvider } from './provider.js';
import { ProviderUnavailable } from './provider.js';
import type { JobRow, ReachStore } from './store.js';

/**
 * Runs the lead searches whose time has come: the provider is asked then, so a provider that went
 * down after the search was accepted fails the job, and the search is given back (not counted).
 */
export async function settleDueJobs(store: ReachStore, provider: SwitchableProvider): Promise<void> {
  for (const job of store.dueJobs()) await settle(store, provider, job);
}

async function settle(store: ReachStore, provider: SwitchableProvider, job: JobRow): Promise<void> {
  try {
    const people = await provider.search(job.query, job.limit);
    if (job.outcome) return;
    const leadIds = people.map((p) => store.saveLead(job.accountId, p, 'search', job.id).id);
    job.outcome = { status: 'completed', leadIds };
  } catch (error) {
    if (!(error instanceof ProviderUnavailable) || job.outcome) throw error;
    const account = store.account(job.accountId);
    account.wallet += job.charge.credits;
    account.searches[job.charge.month] = Math.max(0, (account.searches[job.charge.month] ?? 0) - 1);
    job.outcome = { status: 'failed', error: `${error.message}; the search was not counted` };
  }
}
