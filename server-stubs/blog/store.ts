import { randomUUID } from 'node:crypto';
import type { components } from '../../generated/blog/types.gen.js';
import type { Clock } from '../lib/clock.js';
import { type MeteredFeature, type PlanSlug } from './plans.js';

export type Article = components['schemas']['Article'];
export type Draft = components['schemas']['Draft'];
export type Series = components['schemas']['Series'];
export type Subscriber = components['schemas']['Subscriber'];
export type TeamMember = components['schemas']['TeamMember'];

export interface Account {
  id: string;
  /** the plan paid for; the trial puts Pro on top of it for 7 days */
  plan: PlanSlug;
  username: string;
  displayName: string;
  trial?: { startedAtMs: number; endsAtMs: number };
  /** monthly counters by `<feature>@<YYYY-MM>` (UTC) */
  monthly: Map<string, number>;
  drafts: Map<string, Draft>;
  articles: Map<string, Article>;
  series: Map<string, Series>;
  /** by lower-cased e-mail address */
  subscribers: Map<string, Subscriber>;
  team: Map<string, TeamMember>;
}

/** The seeded accounts (CONVENTIONS §6): one per plan. */
export const seededAccounts: ReadonlyArray<{ key: string; id: string; plan: PlanSlug; username: string; displayName: string }> = [
  { key: 'mbk_test_business', id: 'acct_business', plan: 'business', username: 'test-business', displayName: 'Test Business' },
  { key: 'mbk_test_pro', id: 'acct_pro', plan: 'pro', username: 'test-pro', displayName: 'Test Pro' },
  { key: 'mbk_test_free', id: 'acct_free', plan: 'free', username: 'test-free', displayName: 'Test Free' },
];

/** The UTC calendar month of an instant, `YYYY-MM`: the period of monthly allowances. */
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** The first instant of the next UTC month: when monthly allowances reset. */
export function nextMonthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

export const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** In-memory state of the blog stub: accounts (by seeded key) and what each has written. */
export class BlogStore {
  readonly accounts = new Map<string, Account>();

  constructor(readonly clock: Clock) {
    this.clear();
  }

  /** Back to the seeds: no trials, no usage, nothing written. */
  clear(): void {
    this.accounts.clear();
    for (const seed of seededAccounts) {
      this.accounts.set(seed.id, {
        id: seed.id,
        plan: seed.plan,
        username: seed.username,
        displayName: seed.displayName,
        monthly: new Map(),
        drafts: new Map(),
        articles: new Map(),
        series: new Map(),
        subscribers: new Map(),
        team: new Map(),
      });
    }
  }

  account(id: string): Account {
    const account = this.accounts.get(id);
    if (!account) throw new Error(`no account ${id}`);
    return account;
  }

  now(): number {
    return this.clock.now();
  }

  trialActive(account: Account): boolean {
    return account.trial !== undefined && this.now() < account.trial.endsAtMs;
  }

  /** The plan in effect: Pro while the trial runs, else the plan paid for. */
  effectivePlan(account: Account): PlanSlug {
    return this.trialActive(account) ? 'pro' : account.plan;
  }

  /** Usage of a metered item in the current period: this month's count, or the running total of subscribers. */
  used(account: Account, feature: MeteredFeature): number {
    if (feature === 'newsletter_subscribers') return account.subscribers.size;
    return account.monthly.get(`${feature}@${monthOf(this.now())}`) ?? 0;
  }

  count(account: Account, feature: Exclude<MeteredFeature, 'newsletter_subscribers'>): void {
    const key = `${feature}@${monthOf(this.now())}`;
    account.monthly.set(key, (account.monthly.get(key) ?? 0) + 1);
  }

  newId(): string {
    return randomUUID();
  }
}
