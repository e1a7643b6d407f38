import { randomUUID } from 'node:crypto';
import type { AutopilotRun, Deal, Lead, LeadList, LeadSearchJob, RevenueSummary } from '../../generated/schemas/reach/types.gen.js';
import type { Clock } from '../lib/clock.js';
import { StateStore, type Collection } from '../lib/store.js';
import { stableHash, type ProviderPerson } from './provider.js';

export type Plan = 'free' | 'growth';
export type Stage = Deal['status'];

/** Designed prices and allowances (provisional in the contract). */
export const pricing = {
  freeSearchesPerMonth: 25,
  searchCredits: 5,
  verifyCreditsPerLead: 1,
  scoreCreditsPerLead: 1,
  paidWalletCredits: 10_000,
};

/** The plans as the upgrade offer lists them (designed): names, US dollars a month, pricing pages. */
export const plans: Record<Plan, { name: 'Free' | 'Growth'; price: number; url: string }> = {
  free: { name: 'Free', price: 0, url: 'https://reach.example/pricing?plan=free' },
  growth: { name: 'Growth', price: 49, url: 'https://reach.example/pricing?plan=growth' },
};

/** Designed timings, on the stub clock. */
export const timing = {
  jobQueuedMs: 2_000,
  jobDoneMs: 6_000,
  scoreMs: 5_000,
  runQueuedMs: 2_000,
  runStepMs: 60_000,
};

export const STAGES: readonly Stage[] = ['new', 'contacted', 'interested', 'meeting', 'proposal', 'closed', 'lost'];

export interface Account {
  id: string;
  plan: Plan;
  wallet: number;
  /** searches per calendar month in UTC, by `YYYY-MM` */
  searches: Record<string, number>;
}

interface LeadRow {
  accountId: string;
  lead: Lead;
  /** background scoring: the score and when it lands */
  pendingScore?: { score: number; atMs: number };
}

export interface JobRow {
  id: string;
  accountId: string;
  query: string;
  limit: number;
  createdAtMs: number;
  /** credits charged (paid plan) or the month counted (free plan), given back if the job fails */
  charge: { credits: number; month: string };
  /** set once the job has run, at or after `createdAtMs + jobDoneMs` */
  outcome?: { status: 'completed'; leadIds: string[] } | { status: 'failed'; error: string };
}

interface DealRow {
  accountId: string;
  deal: Deal;
}

interface ListRow {
  accountId: string;
  list: LeadList;
}

interface RunRow {
  accountId: string;
  id: string;
  name: string;
  leadIds: string[];
  steps: number;
  createdAtMs: number;
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

export function periodStartOf(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

export function nextPeriodStartOf(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

export interface SeedAccount {
  id: string;
  plan: Plan;
}

/** The reach stub's state: one instance per app, accounts kept apart by `accountId`. */
export class ReachStore {
  readonly state: StateStore;
  readonly accounts: Collection<Account>;
  readonly leads: Collection<LeadRow>;
  readonly jobs: Collection<JobRow>;
  readonly deals: Collection<DealRow>;
  readonly lists: Collection<ListRow>;
  readonly runs: Collection<RunRow>;

  constructor(
    readonly clock: Clock,
    seeds: readonly SeedAccount[],
    paidWalletCredits = pricing.paidWalletCredits,
  ) {
    this.state = new StateStore(clock);
    this.accounts = this.state.collection<Account>('accounts');
    this.leads = this.state.collection<LeadRow>('leads', { tenantOf: (r) => r.accountId, createdAtOf: (r) => r.lead.created_at });
    this.jobs = this.state.collection<JobRow>('jobs', { tenantOf: (j) => j.accountId });
    this.deals = this.state.collection<DealRow>('deals', { tenantOf: (r) => r.accountId, createdAtOf: (r) => r.deal.created_at });
    this.lists = this.state.collection<ListRow>('lists', { tenantOf: (r) => r.accountId, createdAtOf: (r) => r.list.created_at });
    this.runs = this.state.collection<RunRow>('runs', { tenantOf: (r) => r.accountId, createdAtOf: (r) => r.createdAtMs });
    // The seeds: the accounts, the paid one with its wallet, no searches made.
    this.state.seed(() => {
      for (const s of seeds) this.accounts.set(s.id, { id: s.id, plan: s.plan, wallet: s.plan === 'growth' ? paidWalletCredits : 0, searches: {} });
    });
  }

  clear(): void {
    this.state.reset();
  }

  now(): number {
    return this.clock.now();
  }

  nowIso(): string {
    return iso(this.now());
  }

  account(id: string): Account {
    const account = this.accounts.get(id);
    if (!account) throw new Error(`unknown account ${id}`);
    return account;
  }

  searchesThisMonth(account: Account): number {
    return account.searches[monthOf(this.now())] ?? 0;
  }

  /** Free searches left this month; null on a plan without a free allowance. */
  freeRemaining(account: Account): number | null {
    return account.plan === 'free' ? Math.max(0, pricing.freeSearchesPerMonth - this.searchesThisMonth(account)) : null;
  }

  // Leads

  saveLead(accountId: string, person: ProviderPerson, source: Lead['source'], jobId: string | null): Lead {
    const lead: Lead = {
      id: randomUUID(),
      ...person,
      linkedin_url: null,
      phone: null,
      verify_status: 'unverified',
      verify_score: null,
      score: null,
      scored_at: null,
      source,
      job_id: jobId,
      created_at: this.nowIso(),
    };
    this.leads.set(lead.id, { accountId, lead });
    return lead;
  }

  /** The account's lead as it stands now (a background score lands when its time has come). */
  lead(accountId: string, id: string): Lead | undefined {
    const row = this.leads.ownedBy(accountId, id);
    if (!row) return undefined;
    if (row.pendingScore && row.pendingScore.atMs <= this.now()) {
      row.lead = { ...row.lead, score: row.pendingScore.score, scored_at: iso(row.pendingScore.atMs) };
      delete row.pendingScore;
    }
    return row.lead;
  }

  updateLead(accountId: string, id: string, change: Partial<Lead>): Lead {
    const row = this.leads.get(id)!;
    row.lead = { ...this.lead(accountId, id)!, ...change };
    return row.lead;
  }

  accountLeads(accountId: string): Lead[] {
    return this.leads.newest(accountId).map((r) => this.lead(accountId, r.lead.id)!);
  }

  /** Queues background scoring; true when the lead was queued (unscored and not already queued). */
  queueScore(accountId: string, id: string, readyAtMs: number): void {
    const row = this.leads.get(id)!;
    row.pendingScore = { score: stableHash(`score:${row.lead.email}`) % 101, atMs: readyAtMs };
  }

  isScoredOrQueued(id: string): boolean {
    const row = this.leads.get(id);
    return !!row && (row.lead.score !== null || row.pendingScore !== undefined);
  }

  // Jobs

  jobView(row: JobRow): LeadSearchJob {
    const elapsed = this.now() - row.createdAtMs;
    const status = row.outcome?.status ?? (elapsed >= timing.jobQueuedMs ? 'running' : 'queued');
    const results = row.outcome?.status === 'completed' ? row.outcome.leadIds.map((id) => this.lead(row.accountId, id)!) : [];
    return {
      id: row.id,
      status,
      query: row.query,
      limit: row.limit,
      result_count: results.length,
      results,
      error: row.outcome?.status === 'failed' ? row.outcome.error : null,
      created_at: iso(row.createdAtMs),
      started_at: status === 'queued' ? null : iso(row.createdAtMs + timing.jobQueuedMs),
      completed_at: row.outcome ? iso(row.createdAtMs + timing.jobDoneMs) : null,
    };
  }

  job(accountId: string, id: string): JobRow | undefined {
    return this.jobs.ownedBy(accountId, id);
  }

  dueJobs(): JobRow[] {
    return this.jobs.filter((j) => !j.outcome && this.now() - j.createdAtMs >= timing.jobDoneMs);
  }

  // Deals

  deal(accountId: string, id: string): Deal | undefined {
    return this.deals.ownedBy(accountId, id)?.deal;
  }

  accountDeals(accountId: string): Deal[] {
    return this.deals.newest(accountId).map((r) => r.deal);
  }

  saveDeal(accountId: string, deal: Deal): Deal {
    this.deals.set(deal.id, { accountId, deal });
    return deal;
  }

  /** A status change; `closed_at` is recorded on closing and cleared when the deal leaves `closed`. */
  changeDeal(accountId: string, id: string, change: { status?: Stage; value?: number; notes?: string }): Deal {
    const before = this.deal(accountId, id)!;
    const now = this.nowIso();
    const status = change.status ?? before.status;
    const closedAt = status !== 'closed' ? null : before.status === 'closed' ? before.closed_at : now;
    return this.saveDeal(accountId, { ...before, ...change, status, closed_at: closedAt, updated_at: now });
  }

  revenue(deals: Deal[]): RevenueSummary {
    const sum = (list: Deal[]) => list.reduce((total, d) => total + d.value, 0);
    const closed = sum(deals.filter((d) => d.status === 'closed'));
    const pipeline = sum(deals.filter((d) => d.status !== 'closed' && d.status !== 'lost'));
    return { total: closed + pipeline, closed, pipeline };
  }

  // Lists

  list(accountId: string, id: string): LeadList | undefined {
    return this.lists.ownedBy(accountId, id)?.list;
  }

  saveList(accountId: string, list: LeadList): LeadList {
    this.lists.set(list.id, { accountId, list });
    return list;
  }

  accountLists(accountId: string): LeadList[] {
    return this.lists.newest(accountId).map((r) => r.list);
  }

  // Autopilot runs

  saveRun(row: RunRow): void {
    this.runs.set(row.id, row);
  }

  run(accountId: string, id: string): AutopilotRun | undefined {
    const row = this.runs.ownedBy(accountId, id);
    return row && this.runView(row);
  }

  accountRuns(accountId: string): AutopilotRun[] {
    return this.runs.newest(accountId).map((r) => this.runView(r));
  }

  /** One step goes out when the run starts, then one a minute. */
  private runView(row: RunRow): AutopilotRun {
    const startMs = row.createdAtMs + timing.runQueuedMs;
    const now = this.now();
    const stepsDone = now < startMs ? 0 : Math.min(row.steps, 1 + Math.floor((now - startMs) / timing.runStepMs));
    const status = stepsDone === 0 ? 'queued' : stepsDone === row.steps ? 'completed' : 'running';
    return {
      id: row.id,
      name: row.name,
      status,
      lead_ids: row.leadIds,
      steps: row.steps,
      steps_completed: stepsDone,
      messages_sent: stepsDone * row.leadIds.length,
      created_at: iso(row.createdAtMs),
      started_at: stepsDone > 0 ? iso(startMs) : null,
      completed_at: status === 'completed' ? iso(startMs + (row.steps - 1) * timing.runStepMs) : null,
    };
  }
}
