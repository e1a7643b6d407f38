import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';

export type ReferralSource = 'direct' | 'email' | 'twitter' | 'linkedin' | 'copy_link';
export type ReferralStatus = 'pending' | 'converted' | 'rewarded';

export interface ReferralRecord {
  id: string;
  referrerId: string;
  /** the user who signed up through the link (null for the seeded referees, who are not users of the stub) */
  refereeId: string | null;
  refereeEmail: string;
  status: ReferralStatus;
  source: ReferralSource;
  createdAt: number;
  convertedAt: number | null;
  rewardedAt: number | null;
}

export interface MilestoneDefinition {
  id: string;
  name: string;
  description: string;
  referralsRequired: number;
  badgeIcon: string;
  badgeColor: string;
}

export interface MilestoneClaimRecord {
  userId: string;
  milestoneId: string;
  claimedAt: number;
  rewardApplied: boolean;
}

export interface ShareRecord {
  userId: string;
  source: ReferralSource;
  at: number;
}

/** Milestones at 1, 5 and 10 referrals (DECISIONS mail-2); names, icons and colours designed. */
export const milestones: readonly MilestoneDefinition[] = [
  { id: '8c7b6a5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d', name: 'First referral', description: 'Your first referred user activated a paid plan.', referralsRequired: 1, badgeIcon: 'star', badgeColor: '#F5B301' },
  { id: '9d8c7b6a-5f4e-4b3c-8d2e-1f0a9b8c7d6e', name: 'Connector', description: 'Five referred users activated a paid plan.', referralsRequired: 5, badgeIcon: 'link', badgeColor: '#2E86DE' },
  { id: '0e9d8c7b-6a5f-4c4d-9e3f-2a1b0c9d8e7f', name: 'Ambassador', description: 'Ten referred users activated a paid plan.', referralsRequired: 10, badgeIcon: 'trophy', badgeColor: '#8E44AD' },
];

/** Where share links point when `DASHBOARD_URL` is not set. */
export const defaultDashboardUrl = 'https://dashboard.platform.example';

export function dashboardUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return (env.DASHBOARD_URL?.trim() || defaultDashboardUrl).replace(/\/+$/, '');
}

/** The Max user's code and referrals (DECISIONS mail-2: 3 converted, 1 pending); the Free and Pro users have none. */
const seededCodes: ReadonlyArray<{ userId: string; code: string }> = [{ userId: 'usr_max', code: 'MAXUSER1' }];
const seededReferrals: ReadonlyArray<{ email: string; source: ReferralSource; converted: boolean; daysAgo: number }> = [
  { email: 'grace@example.org', source: 'twitter', converted: true, daysAgo: 30 },
  { email: 'alan@example.net', source: 'email', converted: true, daysAgo: 20 },
  { email: 'edsger@example.com', source: 'linkedin', converted: true, daysAgo: 10 },
  { email: 'barbara@example.org', source: 'direct', converted: false, daysAgo: 2 },
];

const day = 86_400_000;
/** Unambiguous capitals and digits (no 0/O, 1/I): codes are read aloud and typed by hand. */
const codeAlphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** Referral codes, referrals, milestone claims and logged shares per user. */
export class ReferralsStore {
  private readonly clock: Clock;
  /** by code: whose it is (a user has one code) */
  private readonly codes: Collection<{ userId: string; code: string }>;
  private readonly referrals: Collection<ReferralRecord>;
  /** by `[user, milestone]` */
  private readonly claims: Collection<MilestoneClaimRecord>;
  private readonly shares: Collection<ShareRecord>;

  constructor(
    state: StateStore,
    readonly dashboardUrl: string = dashboardUrlFromEnv(),
  ) {
    this.clock = state.clock;
    this.codes = state.collection('referrals.codes', { tenantOf: (c) => c.userId });
    this.referrals = state.collection('referrals.referrals', { tenantOf: (r) => r.referrerId, createdAtOf: (r) => r.createdAt });
    this.claims = state.collection('referrals.claims', { tenantOf: (c) => c.userId });
    this.shares = state.collection('referrals.shares', { tenantOf: (s) => s.userId });
    state.seed(() => this.seed());
  }

  private seed(): void {
    for (const { userId, code } of seededCodes) this.codes.set(code, { userId, code });
    const now = this.clock.now();
    for (const seed of seededReferrals) {
      const createdAt = now - seed.daysAgo * day;
      const id = randomUUID();
      this.referrals.set(id, {
        id,
        referrerId: 'usr_max',
        refereeId: null,
        refereeEmail: seed.email,
        status: seed.converted ? 'converted' : 'pending',
        source: seed.source,
        createdAt,
        convertedAt: seed.converted ? createdAt + day : null,
        rewardedAt: null,
      });
    }
  }

  codeOf(userId: string): string | null {
    return this.codes.of(userId)[0]?.code ?? null;
  }

  /** The user's code, made on first use: the same code on every later call. */
  ensureCode(userId: string): string {
    const existing = this.codeOf(userId);
    if (existing) return existing;
    let code: string;
    do code = Array.from(randomBytes(8), (b) => codeAlphabet[b % codeAlphabet.length]).join('');
    while (this.codes.has(code));
    this.codes.set(code, { userId, code });
    return code;
  }

  shareUrl(code: string): string {
    return `${this.dashboardUrl}/ref/${encodeURIComponent(code)}`;
  }

  referralsOf(userId: string): ReferralRecord[] {
    return this.referrals.newest(userId);
  }

  /** Referrals that count toward milestones and as "active" on the leaderboard: the referee is (or was, when rewarded) on a paid plan. */
  qualifyingCount(userId: string): number {
    return this.referralsOf(userId).filter((r) => r.status !== 'pending').length;
  }

  /**
   * Someone signed up through `{dashboard_url}/ref/<code>`: a `pending` referral of the code's owner.
   * Identity's sign-up paths (development login, SSO first sign-in) should call this with the code
   * the link carried. Nothing is recorded for an unknown code, a self-referral or a referee already
   * referred (a user is referred once).
   */
  recordSignup(code: string, referee: { userId: string; email: string }, source: ReferralSource = 'direct'): ReferralRecord | undefined {
    const referrerId = this.codes.get(code.trim().toUpperCase())?.userId;
    if (!referrerId || referrerId === referee.userId) return undefined;
    if (this.referrals.find((r) => r.refereeId === referee.userId)) return undefined;
    const record: ReferralRecord = {
      id: randomUUID(),
      referrerId,
      refereeId: referee.userId,
      refereeEmail: referee.email,
      status: 'pending',
      source,
      createdAt: this.clock.now(),
      convertedAt: null,
      rewardedAt: null,
    };
    return this.referrals.set(record.id, record);
  }

  /**
   * The referee activated a paid plan: their `pending` referral becomes `converted` (the handlers
   * call this on `billing.plan_changed` off Free). Later plan changes change nothing (a referral converts once).
   */
  recordConversion(refereeId: string): ReferralRecord | undefined {
    const record = this.referrals.find((r) => r.refereeId === refereeId && r.status === 'pending');
    if (!record) return undefined;
    record.status = 'converted';
    record.convertedAt = this.clock.now();
    return record;
  }

  milestone(id: string): MilestoneDefinition | undefined {
    return milestones.find((m) => m.id === id);
  }

  claimsOf(userId: string): MilestoneClaimRecord[] {
    return this.claims.of(userId);
  }

  isClaimed(userId: string, milestoneId: string): boolean {
    return this.claims.has(JSON.stringify([userId, milestoneId]));
  }

  /**
   * Claims a reached milestone (the caller checked the threshold and that it is unclaimed). The
   * reward move (designed): the claim applies the reward for the user's `converted` referrals, which
   * become `rewarded`; they keep counting toward later milestones.
   */
  claim(userId: string, milestoneId: string): MilestoneClaimRecord {
    const now = this.clock.now();
    for (const r of this.referrals.of(userId, (r) => r.status === 'converted')) {
      r.status = 'rewarded';
      r.rewardedAt = now;
    }
    const record: MilestoneClaimRecord = { userId, milestoneId, claimedAt: now, rewardApplied: true };
    return this.claims.set(JSON.stringify([userId, milestoneId]), record);
  }

  logShare(userId: string, source: ReferralSource): void {
    this.shares.set(randomUUID(), { userId, source, at: this.clock.now() });
  }

  sharesOf(userId: string): ShareRecord[] {
    return this.shares.of(userId);
  }

  /** Every user with at least one referral: their total and their referrals past `pending`. */
  referrers(): Array<{ userId: string; total: number; active: number; firstAt: number }> {
    const rows = new Map<string, { userId: string; total: number; active: number; firstAt: number }>();
    for (const r of this.referrals) {
      const row = rows.get(r.referrerId) ?? { userId: r.referrerId, total: 0, active: 0, firstAt: r.createdAt };
      row.total++;
      if (r.status !== 'pending') row.active++;
      row.firstAt = Math.min(row.firstAt, r.createdAt);
      rows.set(r.referrerId, row);
    }
    return [...rows.values()];
  }
}
