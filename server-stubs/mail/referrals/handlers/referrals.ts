import type { components } from '../../../../generated/mail/types.gen.js';
import { mailHandlers, type MailDeps } from '../../context.js';
import { iso } from '../../wire-format.js';
import { leaderboardSize, maskedName, rankedReferrers } from '../leaderboard.js';
import { milestones, type MilestoneDefinition, type ReferralRecord } from '../referrals-store.js';

type Referral = components['schemas']['Referral'];
type Milestone = components['schemas']['Milestone'];

function shownReferral(r: ReferralRecord): Referral {
  return { id: r.id, refereeEmail: r.refereeEmail, status: r.status, source: r.source, createdAt: iso(r.createdAt)!, convertedAt: iso(r.convertedAt), rewardedAt: iso(r.rewardedAt) };
}

function shownMilestone(m: MilestoneDefinition): Milestone {
  return { id: m.id, name: m.name, description: m.description, referrals_required: m.referralsRequired, badge_icon: m.badgeIcon, badge_color: m.badgeColor };
}

const byThreshold = () => [...milestones].sort((a, b) => a.referralsRequired - b.referralsRequired);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Referrals (session routes without `/api`); the share links point at `DASHBOARD_URL` (see the store). */
export function referralHandlers({ referrals, identity, events }: MailDeps) {
  // A referee who moves off the Free plan converts their referral.
  events.on('billing.plan_changed', ({ userId, previousPlan, plan }) => {
    if (previousPlan === 'free' && plan !== 'free') referrals.recordConversion(userId);
  });

  const count = (userId: string, status: ReferralRecord['status']) => referrals.referralsOf(userId).filter((r) => r.status === status).length;

  return mailHandlers({
    getReferralSummary: ({ principal }) => {
      const userId = principal.userId;
      const code = referrals.codeOf(userId);
      const mine = referrals.referralsOf(userId);
      return {
        status: 200,
        body: {
          success: true,
          data: {
            code,
            shareUrl: code === null ? null : referrals.shareUrl(code),
            totalReferrals: mine.length,
            pendingReferrals: count(userId, 'pending'),
            convertedReferrals: count(userId, 'converted'),
            rewardedReferrals: count(userId, 'rewarded'),
            referrals: mine.map(shownReferral),
          },
        },
      };
    },

    generateReferralCode: ({ principal, body }) => {
      const code = referrals.ensureCode(principal.userId);
      // Generating is the first step of sharing: the source is logged like a share, and counts nothing.
      referrals.logShare(principal.userId, body?.source ?? 'direct');
      return { status: 200, body: { success: true, code, shareUrl: referrals.shareUrl(code) } };
    },

    getReferralLeaderboard: ({ principal }) => {
      const rows = rankedReferrers(referrals);
      const leaderboard = rows.slice(0, leaderboardSize).map((row) => {
        const isSelf = row.userId === principal.userId;
        const name = identity.user(row.userId)?.name ?? 'Anonymous';
        return { rank: row.rank, userId: isSelf ? row.userId : null, displayName: isSelf ? name : maskedName(name), isSelf, totalReferrals: row.total, activeReferrals: row.active };
      });
      const myRank = rows.find((row) => row.userId === principal.userId)?.rank ?? null;
      return { status: 200, body: { success: true, data: { leaderboard, myRank } } };
    },

    listReferralMilestones: () => ({ status: 200, body: { success: true, data: byThreshold().map(shownMilestone) } }),

    claimReferralMilestone: ({ principal, body, fail }) => {
      const userId = principal.userId;
      // The body is optional: an absent one is answered as one without the id (errors.ts words both).
      const id = body?.milestone_id || fail(400, undefined, 'milestone_id is required');
      const milestone = referrals.milestone(id) ?? fail(404, undefined, 'Milestone not found');
      if (referrals.isClaimed(userId, milestone.id)) fail(409, undefined, 'Milestone already claimed');
      if (referrals.qualifyingCount(userId) < milestone.referralsRequired) fail(422, undefined, 'Milestone threshold not met');
      referrals.claim(userId, milestone.id);
      return { status: 200, body: { success: true, data: { milestoneName: milestone.name } } };
    },

    listMilestoneClaims: ({ principal }) => ({
      status: 200,
      body: { success: true, data: referrals.claimsOf(principal.userId).map((c) => ({ milestone_id: c.milestoneId, claimed_at: iso(c.claimedAt)!, reward_applied: c.rewardApplied })) },
    }),

    getReferralNudge: ({ principal }) => {
      const userId = principal.userId;
      const code = referrals.ensureCode(userId);
      const total = referrals.referralsOf(userId).length;
      const next = byThreshold().find((m) => !referrals.isClaimed(userId, m.id));
      const nudgeMessage = next
        ? `You have ${plural(total, 'referral')}. Share your link to reach your next milestone, ${next.name} (${plural(next.referralsRequired, 'converted referral')})!`
        : `You have ${plural(total, 'referral')} and every milestone. Keep sharing your link!`;
      // A suggestion for the dashboard to show: nothing is sent.
      return { status: 200, body: { success: true, data: { code, url: referrals.shareUrl(code), referralCount: total, nudgeMessage } } };
    },

    logReferralShare: ({ principal, body }) => {
      referrals.logShare(principal.userId, body?.source ?? 'direct');
      return { status: 200, body: { success: true } };
    },
  });
}
