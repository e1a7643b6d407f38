/** The referral leaderboard (designed ranking and masking; the document gives the row fields and "up to 50"). */
import type { ReferralsStore } from './referrals-store.js';

export const leaderboardSize = 50;

export interface LeaderboardRow {
  rank: number;
  userId: string;
  total: number;
  active: number;
}

/**
 * Every user with at least one referral, ranked by active referrals (past `pending`), then by all
 * referrals, then by who referred first; ranks are positions (1, 2, 3, ...), ties included.
 */
export function rankedReferrers(referrals: ReferralsStore): LeaderboardRow[] {
  return referrals
    .referrers()
    .sort((a, b) => b.active - a.active || b.total - a.total || a.firstAt - b.firstAt || a.userId.localeCompare(b.userId))
    .map((row, i) => ({ rank: i + 1, userId: row.userId, total: row.total, active: row.active }));
}

/** `Max User` -> `M***x U.`: enough for the user to recognise a friend, not enough to identify a stranger. */
export function maskedName(name: string): string {
  const [first = '', ...rest] = name.trim().split(/\s+/);
  const head = first.length > 1 ? `${first[0]}***${first[first.length - 1]}` : `${first || '?'}***`;
  const last = rest.at(-1);
  return last ? `${head} ${last[0]}.` : head;
}
