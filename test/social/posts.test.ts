/**
 * Posts over time (manual clock): pending -> queued -> published; editing while draft, pending or
 * queued and the 409 once published or rejected; the safety checks on edits; 404 for unknown and
 * other workspaces' posts; the list and its filters; bulk approve and reject of drafts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { after, contract, edit, expectError, expectRoundedTo4Decimals, FREE_KEY, HOUR, iso, listPosts, MINUTE, newPost, outcome, raw, startSocial, UNKNOWN_ID, type SocialStub } from './support.js';

const patchAt = { path: '/api/posts/{id}', method: 'patch' };
const draftsAt = { path: '/api/drafts', method: 'post' };

let social: SocialStub;
beforeAll(async () => {
  social = await startSocial();
});
afterAll(() => social.close());

let n = 0;
/** Texts unique in this file, so the 24-hour content check never interferes where it is not the subject. */
const text = (what: string) => `${what} #${(n += 1)}`;

describe('statuses follow the clock', () => {
  test('pending until 10 minutes before scheduledAt, then queued, then published with engagement', async () => {
    const scheduledAt = social.clock.now() + HOUR;
    const post = await newPost(social.client(), { contentText: text('Timeline'), platform: 'x', scheduledAt: iso(scheduledAt) });
    expect(post.status).toBe('pending');
    social.clock.advance(50 * MINUTE - 1);
    expect((await listPosts(social.client())).find((p) => p.id === post.id)!.status).toBe('pending');
    social.clock.advance(1);
    expect((await listPosts(social.client())).find((p) => p.id === post.id)!.status).toBe('queued');
    social.clock.set(scheduledAt);
    const published = (await listPosts(social.client(), { status: 'published' })).find((p) => p.id === post.id)!;
    expect(published).toMatchObject({ status: 'published', publishedAt: iso(scheduledAt) });
    const e = published.engagement!;
    expectRoundedTo4Decimals(e.engagementRate, (e.likes + e.comments + e.shares) / e.impressions);
    // the figures are the post's own: the same on every read
    expect((await listPosts(social.client(), { status: 'published' })).find((p) => p.id === post.id)!.engagement).toEqual(e);
  });
});

describe('PATCH /api/posts/{id}', () => {
  test('a pending post: text, time and first comment change; omitted fields stay', async () => {
    const post = await newPost(social.client(), { contentText: text('Before'), platform: 'linkedin', scheduledAt: after(social, 5 * HOUR), firstComment: 'Keep me' });
    const newText = text('After');
    const res = await edit(social.client(), post.id, { contentText: newText });
    expect(res.status).toBe(200);
    expect(res.data!.post).toMatchObject({ id: post.id, contentText: newText, firstComment: 'Keep me', scheduledAt: post.scheduledAt, status: 'pending' });
    const moved = after(social, 6 * HOUR);
    const res2 = await edit(social.client(), post.id, { scheduledAt: moved, firstComment: null });
    expect(res2.data!.post).toMatchObject({ scheduledAt: moved, firstComment: null, contentText: newText });
    expect(res2.data!.post.updatedAt).toBe(iso(social.clock.now()));
  });

  test('a queued post is editable, and moving it later makes it pending again', async () => {
    const post = await newPost(social.client(), { contentText: text('Queued'), platform: 'x', scheduledAt: after(social, 5 * MINUTE) });
    expect(post.status).toBe('queued');
    const res = await edit(social.client(), post.id, { scheduledAt: after(social, 2 * HOUR) });
    expect(res.status).toBe(200);
    expect(res.data!.post.status).toBe('pending');
  });

  test('a draft is editable and stays a draft', async () => {
    const draft = await newPost(social.client(), { contentText: text('Draft'), platform: 'x', scheduledAt: after(social, 3 * HOUR), draft: true });
    const res = await edit(social.client(), draft.id, { firstComment: 'Added' });
    expect(res.data!.post).toMatchObject({ status: 'draft', firstComment: 'Added' });
  });

  test('a published post is not editable: 409, and nothing changes', async () => {
    const post = await newPost(social.client(), { contentText: text('Going out'), platform: 'threads', scheduledAt: after(social, MINUTE) });
    social.clock.advance(MINUTE);
    const res = await edit(social.client(), post.id, { firstComment: 'Too late' });
    expectError(res, 409, /Post is published; only draft, pending and queued posts can be edited/, patchAt);
    expect((await listPosts(social.client(), { status: 'published' })).find((p) => p.id === post.id)!.firstComment).toBeNull();
  });

  test('a rejected draft is not editable: 409', async () => {
    const draft = await newPost(social.client(), { contentText: text('Rejected'), platform: 'x', scheduledAt: after(social, 3 * HOUR), draft: true });
    await social.client().POST('/api/drafts', { body: { ids: [draft.id], action: 'reject' } });
    expectError(await edit(social.client(), draft.id, { contentText: 'Revived?' }), 409, /Post is rejected/, patchAt);
  });

  test('404 for an unknown post and for another workspace\'s post', async () => {
    expectError(await edit(social.client(), UNKNOWN_ID, { firstComment: 'x' }), 404, /Post not found/, patchAt);
    const theirs = await newPost(social.client(FREE_KEY), { contentText: text('Free workspace'), platform: 'x', scheduledAt: after(social, 3 * HOUR) });
    expectError(await edit(social.client(), theirs.id, { firstComment: 'x' }), 404, /Post not found/, patchAt);
    // and the owner still sees it untouched
    expect((await listPosts(social.client(FREE_KEY))).find((p) => p.id === theirs.id)!.firstComment).toBeNull();
  });

  test('the safety checks apply to the new values: 409 for a taken slot or content sent within 24 hours', async () => {
    const at = social.clock.now() + 8 * HOUR;
    const taken = await newPost(social.client(), { contentText: text('Holds the slot'), platform: 'bluesky', scheduledAt: iso(at) });
    const mover = await newPost(social.client(), { contentText: text('Wants the slot'), platform: 'bluesky', scheduledAt: iso(at + HOUR) });
    expectError(await edit(social.client(), mover.id, { scheduledAt: iso(at) }), 409, /already scheduled at/, patchAt);
    expectError(await edit(social.client(), mover.id, { contentText: taken.contentText.toUpperCase() }), 409, /same content/, patchAt);
    // its own slot and its own text are not a conflict with itself
    expect((await edit(social.client(), mover.id, { scheduledAt: iso(at + HOUR), contentText: mover.contentText })).status).toBe(200);
  });

  test('400: a past time, text over the platform limit, no field, a malformed id', async () => {
    const post = await newPost(social.client(), { contentText: text('Rules'), platform: 'x', scheduledAt: after(social, 3 * HOUR) });
    expectError(await edit(social.client(), post.id, { scheduledAt: after(social, -HOUR) }), 400, /not in the future/, patchAt);
    expectError(await edit(social.client(), post.id, { contentText: 'y'.repeat(300) }), 400, /x allows at most 280/, patchAt);
    expectError(await edit(social.client(), post.id, {}), 400, /fewer than 1 properties/, patchAt);
    expectError(await raw(social.baseUrl, 'PATCH', '/api/posts/not-a-uuid', { body: { firstComment: 'x' } }), 400, /uuid/, patchAt);
  });
});

describe('GET /api/posts', () => {
  test('only the workspace\'s posts, ordered by scheduledAt, filtered by status and platform', async () => {
    const local = await startSocial();
    try {
      const late = await newPost(local.client(), { contentText: 'Late', platform: 'x', scheduledAt: after(local, 5 * HOUR) });
      const early = await newPost(local.client(), { contentText: 'Early', platform: 'linkedin', scheduledAt: after(local, 2 * HOUR) });
      const draft = await newPost(local.client(), { contentText: 'Draft', platform: 'x', scheduledAt: after(local, 3 * HOUR), draft: true });
      await newPost(local.client(FREE_KEY), { contentText: 'Not listed', platform: 'x', scheduledAt: after(local, HOUR) });
      expect((await listPosts(local.client())).map((p) => p.id)).toEqual([early.id, draft.id, late.id]);
      expect((await listPosts(local.client(), { status: 'draft' })).map((p) => p.id)).toEqual([draft.id]);
      expect((await listPosts(local.client(), { platform: 'x' })).map((p) => p.id)).toEqual([draft.id, late.id]);
      expect((await listPosts(local.client(), { status: 'pending', platform: 'x' })).map((p) => p.id)).toEqual([late.id]);
      expect(await listPosts(local.client(), { status: 'rejected' })).toEqual([]);
      const bad = await raw(local.baseUrl, 'GET', '/api/posts?status=archived');
      expectError(bad, 400, /status/, { path: '/api/posts', method: 'get' });
    } finally {
      await local.close();
    }
  });
});

describe('POST /api/drafts', () => {
  test('bulk approve: drafts are scheduled (pending, or queued near their time); non-drafts are skipped with a reason', async () => {
    const a = await newPost(social.client(), { contentText: text('Draft A'), platform: 'x', scheduledAt: after(social, 4 * HOUR), draft: true });
    const b = await newPost(social.client(), { contentText: text('Draft B'), platform: 'x', scheduledAt: after(social, 5 * MINUTE), draft: true });
    const scheduled = await newPost(social.client(), { contentText: text('Not a draft'), platform: 'x', scheduledAt: after(social, 6 * HOUR) });
    const result = await social.client().POST('/api/drafts', { body: { ids: [a.id, b.id, scheduled.id], action: 'approve' } });
    expect(result.response.status).toBe(200);
    expect(contract.responseErrors('/api/drafts', 'post', 200, result.data)).toEqual([]);
    expect(result.data).toEqual({
      action: 'approve',
      results: [
        { id: a.id, outcome: 'approved', status: 'pending' },
        { id: b.id, outcome: 'approved', status: 'queued' },
        { id: scheduled.id, outcome: 'skipped', status: 'pending', reason: 'Post is pending, not a draft' },
      ],
    });
    // approving again skips them: they are no longer drafts
    const again = await social.client().POST('/api/drafts', { body: { ids: [a.id], action: 'approve' } });
    expect(again.data!.results).toEqual([{ id: a.id, outcome: 'skipped', status: 'pending', reason: 'Post is pending, not a draft' }]);
    // and an approved draft goes out at its time
    social.clock.advance(5 * MINUTE);
    expect((await listPosts(social.client(), { status: 'published' })).map((p) => p.id)).toContain(b.id);
  });

  test('bulk reject: drafts become rejected and leave the drafts list', async () => {
    const a = await newPost(social.client(), { contentText: text('Reject A'), platform: 'linkedin', scheduledAt: after(social, 4 * HOUR), draft: true });
    const b = await newPost(social.client(), { contentText: text('Reject B'), platform: 'linkedin', scheduledAt: after(social, 5 * HOUR), draft: true });
    const result = await social.client().POST('/api/drafts', { body: { ids: [a.id, b.id], action: 'reject' } });
    expect(result.data).toEqual({
      action: 'reject',
      results: [
        { id: a.id, outcome: 'rejected', status: 'rejected' },
        { id: b.id, outcome: 'rejected', status: 'rejected' },
      ],
    });
    const drafts = (await listPosts(social.client(), { status: 'draft' })).map((p) => p.id);
    expect(drafts).not.toContain(a.id);
    expect((await listPosts(social.client(), { status: 'rejected' })).map((p) => p.id)).toEqual(expect.arrayContaining([a.id, b.id]));
  });

  test('a draft approved after its time is published at once', async () => {
    const draft = await newPost(social.client(), { contentText: text('Late approval'), platform: 'facebook', scheduledAt: after(social, HOUR), draft: true });
    social.clock.advance(2 * HOUR);
    const result = await social.client().POST('/api/drafts', { body: { ids: [draft.id], action: 'approve' } });
    expect(result.data!.results).toEqual([{ id: draft.id, outcome: 'approved', status: 'published' }]);
    const published = (await listPosts(social.client(), { status: 'published' })).find((p) => p.id === draft.id)!;
    expect(published.publishedAt).toBe(iso(social.clock.now()));
  });

  test('404 for an unknown id or another workspace\'s post, and nothing changes', async () => {
    const mine = await newPost(social.client(), { contentText: text('Mine'), platform: 'x', scheduledAt: after(social, 3 * HOUR), draft: true });
    const theirs = await newPost(social.client(FREE_KEY), { contentText: text('Theirs'), platform: 'x', scheduledAt: after(social, 3 * HOUR), draft: true });
    for (const other of [UNKNOWN_ID, theirs.id]) {
      const res = outcome(await social.client().POST('/api/drafts', { body: { ids: [mine.id, other], action: 'approve' } }));
      expectError(res, 404, new RegExp(`Post not found: ${other}`), draftsAt);
    }
    expect((await listPosts(social.client(), { status: 'draft' })).map((p) => p.id)).toContain(mine.id);
    expect((await listPosts(social.client(FREE_KEY), { status: 'draft' })).map((p) => p.id)).toContain(theirs.id);
  });

  test.each([
    ['no ids', { ids: [], action: 'approve' }],
    ['the same id twice', { ids: [UNKNOWN_ID, UNKNOWN_ID], action: 'approve' }],
    ['an unknown action', { ids: [UNKNOWN_ID], action: 'publish' }],
    ['an id that is not a UUID', { ids: ['abc'], action: 'reject' }],
    ['more than 100 ids', { ids: Array.from({ length: 101 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`), action: 'reject' }],
  ])('400 for %s', async (_name, body) => {
    const res = await raw(social.baseUrl, 'POST', '/api/drafts', { body });
    expect(res.status).toBe(400);
    expect(contract.responseErrors(draftsAt.path, draftsAt.method, 400, res.body)).toEqual([]);
  });
});
