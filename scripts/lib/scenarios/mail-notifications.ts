/**
 * The notifications part of the mail scenario: in-app notifications (an import's notification listed
 * and marked read) and referrals (summary, idempotent code, leaderboard, milestones, a claim, claims,
 * nudge, log-share), with the refusals their handlers decide (claim 400/404/409/422 as published,
 * query and body values outside the contract).
 *
 * The milestone claim succeeds once per user: the seeded Max user (DECISIONS mail-2: 3 converted
 * referrals) can claim the first milestone once, so on a long-running stub the claim answers 409
 * from the second run on; reset the stub (`POST /_stub/reset`) before running the scenario again.
 */
import assert from 'node:assert/strict';
import { fresh, unknownId, type MailFixture, type MailScenarioPart } from './mail-fixture.js';
import { outcomeOf, required } from './scenario.js';

type Milestone = { id: string; name: string; referrals_required: number };

async function milestonesOf(f: MailFixture): Promise<Milestone[]> {
  return required('list the referral milestones', await f.dashboard.GET('/referrals/milestones'), 200).data;
}

/** The first milestone the user has reached and not claimed yet (what a claim can succeed on); else the first one, whose claim then fails visibly. */
async function claimable(f: MailFixture): Promise<Milestone> {
  const summary = required('read the referral summary', await f.dashboard.GET('/referrals'), 200).data;
  const claimed = new Set(required('list the milestone claims', await f.dashboard.GET('/referrals/milestone-claims'), 200).data.map((c) => c.milestone_id));
  const reached = summary.convertedReferrals + summary.rewardedReferrals;
  const milestones = await milestonesOf(f);
  return milestones.find((m) => !claimed.has(m.id) && m.referrals_required <= reached) ?? milestones[0]!;
}

export const notificationsPart: MailScenarioPart = {
  async setup(f) {
    f.made.referralCode = required('generate the referral code', await f.dashboard.POST('/referrals/generate', { body: { source: 'copy_link' } }), 200).code;
  },

  calls: {
    listNotifications: async (f) => {
      // An import is one of the actions that notify: its notification is what the list must hold.
      const imported = required('import a contact', await f.api.POST('/v1/contacts/import', { body: { contacts: [{ email: fresh('notified') }] } }), 202);
      f.made.importId = imported.data.import_id;
      return outcomeOf(await f.dashboard.GET('/api/notifications', { params: { query: { unread_only: true, limit: 100 } } }));
    },
    markNotificationsRead: async (f) => {
      const listed = required('list the notifications', await f.dashboard.GET('/api/notifications', { params: { query: { limit: 100 } } }), 200);
      f.made.notificationId = listed.notifications.find((n) => n.entity_type === 'contact_import' && n.entity_id === f.made.importId)?.id ?? unknownId;
      return outcomeOf(await f.dashboard.PATCH('/api/notifications', { body: { ids: [f.made.notificationId] } }));
    },
    generateReferralCode: async (f) => outcomeOf(await f.dashboard.POST('/referrals/generate', { body: { source: 'twitter' } })),
    getReferralSummary: async (f) => outcomeOf(await f.dashboard.GET('/referrals')),
    getReferralLeaderboard: async (f) => outcomeOf(await f.dashboard.GET('/referrals/leaderboard')),
    listReferralMilestones: async (f) => outcomeOf(await f.dashboard.GET('/referrals/milestones')),
    claimReferralMilestone: async (f) => {
      const milestone = await claimable(f);
      f.made.claimedMilestone = milestone.id;
      f.made.claimedName = milestone.name;
      return outcomeOf(await f.dashboard.POST('/referrals/claim', { body: { milestone_id: milestone.id } }));
    },
    listMilestoneClaims: async (f) => outcomeOf(await f.dashboard.GET('/referrals/milestone-claims')),
    getReferralNudge: async (f) => outcomeOf(await f.dashboard.GET('/referrals/nudge')),
    logReferralShare: async (f) => outcomeOf(await f.dashboard.POST('/referrals/log-share', { body: { source: 'linkedin' } })),
  },

  expectations: {
    listNotifications: (b, f) => {
      const notification = b.notifications.find((n) => n.entity_type === 'contact_import' && n.entity_id === f.made.importId);
      assert.ok(notification, 'the import made an unread contact_import notification naming the import');
      assert.ok(b.notifications.every((n) => !n.is_read), 'unread_only lists unread notifications only');
      assert.ok(b.unreadCount >= b.notifications.length, 'unreadCount counts every unread notification');
    },
    markNotificationsRead: (b) => assert.deepEqual(b, { success: true }),
    generateReferralCode: (b, f) => {
      assert.equal(b.code, f.made.referralCode, 'a second call returns the same code');
      assert.ok(b.shareUrl.endsWith(`/ref/${b.code}`), 'the share link ends in /ref/<code>');
    },
    getReferralSummary: (b, f) => {
      assert.equal(b.data.code, f.made.referralCode);
      assert.ok(b.data.shareUrl?.endsWith(`/ref/${f.made.referralCode}`));
      assert.equal(b.data.totalReferrals, b.data.pendingReferrals + b.data.convertedReferrals + b.data.rewardedReferrals, 'the counts add up');
      assert.equal(b.data.referrals.length, b.data.totalReferrals);
    },
    getReferralLeaderboard: (b) => {
      assert.ok(b.data.leaderboard.length <= 50);
      for (const row of b.data.leaderboard) assert.equal(row.userId === null, !row.isSelf, 'only the caller\'s own row carries a user id');
      const own = b.data.leaderboard.find((row: { isSelf: boolean }) => row.isSelf);
      if (own) assert.equal(own.rank, b.data.myRank);
    },
    listReferralMilestones: (b) => {
      const thresholds = b.data.map((m: Milestone) => m.referrals_required);
      assert.deepEqual(thresholds, [...thresholds].sort((x, y) => x - y), 'ordered by referrals_required');
    },
    claimReferralMilestone: (b, f) => assert.deepEqual(b.data, { milestoneName: f.made.claimedName }),
    listMilestoneClaims: (b, f) => assert.ok(b.data.some((c: { milestone_id: string }) => c.milestone_id === f.made.claimedMilestone), 'the claim just made is listed'),
    getReferralNudge: (b, f) => {
      assert.equal(b.data.code, f.made.referralCode);
      assert.ok(b.data.url.endsWith(`/ref/${f.made.referralCode}`));
    },
    logReferralShare: (b) => assert.deepEqual(b, { success: true }),
  },

  refusals: [
    { id: 'listNotifications', status: 400, why: 'a limit over 100', call: async (f) => outcomeOf(await f.dashboard.GET('/api/notifications', { params: { query: { limit: 101 } } })) },
    { id: 'markNotificationsRead', status: 400, why: 'more than 100 ids', call: async (f) => outcomeOf(await f.dashboard.PATCH('/api/notifications', { body: { ids: Array.from({ length: 101 }, (_, i) => `n${i}`) } })) },
    { id: 'generateReferralCode', status: 400, why: 'a source that is not a share source', call: async (f) => outcomeOf(await f.dashboard.POST('/referrals/generate', { body: { source: 'fax' as never } })) },
    { id: 'logReferralShare', status: 400, why: 'a source that is not a share source', call: async (f) => outcomeOf(await f.dashboard.POST('/referrals/log-share', { body: { source: 'fax' as never } })) },
    { id: 'claimReferralMilestone', status: 400, why: 'no milestone_id', call: async (f) => outcomeOf(await f.dashboard.POST('/referrals/claim', { body: {} as never })) },
    { id: 'claimReferralMilestone', status: 404, why: 'no milestone with that id', call: async (f) => outcomeOf(await f.dashboard.POST('/referrals/claim', { body: { milestone_id: unknownId } })) },
    { id: 'claimReferralMilestone', status: 409, why: 'the milestone claimed by the call', call: async (f) => outcomeOf(await f.dashboard.POST('/referrals/claim', { body: { milestone_id: f.made.claimedMilestone! } })) },
    {
      id: 'claimReferralMilestone',
      status: 422,
      why: 'the milestone with the highest threshold, out of reach of the seeded referrals',
      call: async (f) => {
        const highest = (await milestonesOf(f)).at(-1)!;
        return outcomeOf(await f.dashboard.POST('/referrals/claim', { body: { milestone_id: highest.id } }));
      },
    },
  ],
};
