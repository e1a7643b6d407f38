import type { Fail } from '../../lib/handlers.js';
import { socialHandlers, type SocialDeps, type SocialPrincipal } from '../context.js';
import { characterLimits, editableStatuses, latestInstant, limits, type Platform, type PostRow, type SocialStore } from '../store.js';

/** A future instant from a date-time the contract has already checked the format of; 400 otherwise. */
function futureInstant(store: SocialStore, fail: Fail<400>, value: string): number {
  const ms = Date.parse(value);
  // An offset can carry 9999-12-31 past the last date-time with a four-digit year: no answer could name it.
  if (!Number.isFinite(ms) || ms > latestInstant) fail(400, undefined, `scheduledAt ${value} is out of range`);
  if (ms <= store.now()) fail(400, undefined, `scheduledAt ${value} is not in the future`);
  return ms;
}

function withinLimit(fail: Fail<400>, platform: Platform, contentText: string): void {
  const length = [...contentText].length;
  if (length > characterLimits[platform]) fail(400, undefined, `contentText has ${length} characters; ${platform} allows at most ${characterLimits[platform]}`);
}

/** The two published safety checks, for a new post or an edit (`exceptId`: the post being edited). */
function safetyChecks(store: SocialStore, fail: Fail<409>, post: { accountId: string; platform: Platform; scheduledAtMs: number; contentText: string }, check: { slot: boolean; content: boolean }, exceptId?: string) {
  if (check.slot && store.slotTaken(post.accountId, post.scheduledAtMs, exceptId)) {
    fail(409, undefined, `A post for account ${post.accountId} (${post.platform}) is already scheduled at ${new Date(post.scheduledAtMs).toISOString()}`);
  }
  if (check.content && store.recentSameContent(post.accountId, post.contentText, exceptId)) {
    fail(409, undefined, `The same content was scheduled for account ${post.accountId} less than 24 hours ago`);
  }
}

function freeTier(store: SocialStore, fail: Fail<403>, principal: SocialPrincipal): void {
  if (principal.plan !== 'free') return;
  const count = store.postsThisMonth(principal.workspaceId);
  if (count >= limits.freePostsPerMonth) {
    fail(403, undefined, `The free tier allows ${limits.freePostsPerMonth} posts per month; upgrade to schedule more`, { count, limit: limits.freePostsPerMonth });
  }
}

function requirePost(store: SocialStore, fail: Fail<404>, workspaceId: string, id: string): PostRow {
  return store.post(workspaceId, id) ?? fail(404, undefined, 'Post not found');
}

const byTime = (a: PostRow, b: PostRow) => a.scheduledAtMs - b.scheduledAtMs || a.createdAtMs - b.createdAtMs || a.id.localeCompare(b.id);

export function postHandlers({ store }: SocialDeps) {
  return socialHandlers({
    schedulePost: ({ principal, body, fail }) => {
      if ((body.variantId === undefined) === (body.contentText === undefined)) fail(400, undefined, 'Give exactly one of variantId or contentText');
      let contentText: string;
      let platform: Platform;
      if (body.variantId !== undefined) {
        const variant = store.variant(principal.workspaceId, body.variantId) ?? fail(404, undefined, 'Variant not found');
        if (body.platform !== undefined && body.platform !== variant.platform) fail(400, undefined, `The variant is for ${variant.platform}, not ${body.platform}`);
        ({ contentText, platform } = variant);
      } else {
        platform = body.platform ?? fail(400, undefined, 'platform is required with contentText');
        contentText = body.contentText!;
      }
      const scheduledAtMs = futureInstant(store, fail, body.scheduledAt);
      withinLimit(fail, platform, contentText);
      let accountId = store.accounts(principal).find((a) => a.platform === platform)!.accountId;
      if (body.accountId !== undefined) {
        const account = store.account(principal, body.accountId) ?? fail(404, undefined, 'Account not found');
        if (account.platform !== platform) fail(400, undefined, `Account ${account.accountId} is connected to ${account.platform}, not ${platform}`);
        accountId = account.accountId;
      }
      freeTier(store, fail, principal);
      safetyChecks(store, fail, { accountId, platform, scheduledAtMs, contentText }, { slot: true, content: true });
      const row = store.createPost({
        workspaceId: principal.workspaceId,
        accountId,
        platform,
        contentText,
        firstComment: body.firstComment ?? null,
        variantId: body.variantId ?? null,
        scheduledAtMs,
        draft: body.draft,
      });
      return { status: 201, body: { post: store.view(row) } };
    },

    listPosts: ({ principal, query }) => {
      const now = store.now();
      const posts = store
        .postsOf(principal.workspaceId)
        .filter((p) => query.platform === undefined || p.platform === query.platform)
        .filter((p) => query.status === undefined || store.statusOf(p, now) === query.status)
        .sort(byTime)
        .map((p) => store.view(p, now));
      return { status: 200, body: { posts } };
    },

    updatePost: ({ principal, params, body, fail }) => {
      const row = requirePost(store, fail, principal.workspaceId, params.id);
      const status = store.statusOf(row);
      if (!editableStatuses.includes(status)) fail(409, undefined, `Post is ${status}; only draft, pending and queued posts can be edited`);
      const scheduledAtMs = body.scheduledAt !== undefined ? futureInstant(store, fail, body.scheduledAt) : row.scheduledAtMs;
      const contentText = body.contentText ?? row.contentText;
      withinLimit(fail, row.platform, contentText);
      const check = { slot: scheduledAtMs !== row.scheduledAtMs, content: contentText !== row.contentText };
      safetyChecks(store, fail, { accountId: row.accountId, platform: row.platform, scheduledAtMs, contentText }, check, row.id);
      const now = store.now();
      if (check.content) row.contentSetAtMs = now;
      row.contentText = contentText;
      row.scheduledAtMs = scheduledAtMs;
      if (row.state === 'scheduled') row.publishAtMs = scheduledAtMs;
      if (body.firstComment !== undefined) row.firstComment = body.firstComment;
      row.updatedAtMs = now;
      return { status: 200, body: { post: store.view(row) } };
    },

    reviewDrafts: ({ principal, body, fail }) => {
      const unknown = body.ids.filter((id) => !store.post(principal.workspaceId, id));
      if (unknown.length > 0) fail(404, undefined, `Post not found: ${unknown.join(', ')}`);
      const now = store.now();
      const results = body.ids.map((id) => {
        const row = store.post(principal.workspaceId, id)!;
        const before = store.statusOf(row, now);
        if (before !== 'draft') return { id, outcome: 'skipped' as const, status: before, reason: `Post is ${before}, not a draft` };
        if (body.action === 'reject') {
          row.state = 'rejected';
        } else {
          row.state = 'scheduled';
          // A draft approved after its time goes out at once rather than never.
          row.publishAtMs = Math.max(row.scheduledAtMs, now);
        }
        row.updatedAtMs = now;
        return { id, outcome: body.action === 'approve' ? ('approved' as const) : ('rejected' as const), status: store.statusOf(row, now) };
      });
      return { status: 200, body: { action: body.action, results } };
    },
  });
}
