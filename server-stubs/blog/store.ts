import { randomUUID } from 'node:crypto';
import type { components } from '../../generated/blog/types.gen.js';
import type { Clock } from '../lib/clock.js';
import { StateStore, type Collection } from '../lib/store.js';
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
  monthly: Record<string, number>;
  /** by id */
  drafts: Record<string, Draft>;
  /** by slug */
  articles: Record<string, Article>;
  /** by id */
  series: Record<string, Series>;
  /** by lower-cased e-mail address */
  subscribers: Record<string, Subscriber>;
  /** by lower-cased e-mail address */
  team: Record<string, TeamMember>;
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

/** A record's own entry: a key a caller sends (`constructor`, `__proto__`) never reads an inherited member. */
export function entry<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

export const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** The blog stub's state: the seeded accounts (by id) and, inside each, what it has written. */
export class BlogStore {
  readonly state: StateStore;
  readonly accounts: Collection<Account>;

  constructor(readonly clock: Clock) {
    this.state = new StateStore(clock);
    this.accounts = this.state.collection<Account>('accounts');
    // The seeds: one account per plan, no trials, no usage, nothing written.
    this.state.seed(() => {
      for (const seed of seededAccounts) {
        this.accounts.set(seed.id, {
          id: seed.id,
          plan: seed.plan,
          username: seed.username,
          displayName: seed.displayName,
          monthly: {},
          drafts: {},
          articles: {},
          series: {},
          subscribers: {},
          team: {},
        });
      }
    });
  }

  /** Back to the seeds. */
  clear(): void {
    this.state.reset();
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
    if (feature === 'newsletter_subscribers') return Object.keys(account.subscribers).length;
    return account.monthly[`${feature}@${monthOf(this.now())}`] ?? 0;
  }

  count(account: Account, feature: Exclude<MeteredFeature, 'newsletter_subscribers'>): void {
    const key = `${feature}@${monthOf(this.now())}`;
    account.monthly[key] = (account.monthly[key] ?? 0) + 1;
  }

  newId(): string {
    return randomUUID();
  }
}
