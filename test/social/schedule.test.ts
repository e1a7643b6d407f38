/**
 * POST /api/schedule: creating posts (pending, queued, draft), the input rules (400), unknown and
 * other workspaces' variants and accounts (404), the published safety checks (409 duplicate slot,
 * 409 duplicate content within 24 hours, on the manual clock) and the free tier's 403 with count
 * and limit.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { after, expectError, FREE_KEY, HOUR, iso, MINUTE, newPost, raw, schedule, startSocial, type SocialStub } from './support.js';

const where = { path: '/api/schedule', method: 'post' };

let social: SocialStub;
beforeAll(async () => {
  social = await startSocial();
});
afterAll(() => social.close());

async function accountOf(platform: string, key?: string): Promise<string> {
  const { data } = await social.client(key).GET('/api/accounts');
  return data!.accounts.find((a) => a.platform === platform)!.accountId;
}

describe('creating a post', () => {
  test('text on a platform: pending, from the workspace account on that platform, with every field', async () => {
    const scheduledAt = after(social, 3 * HOUR);
    const post = await newPost(social.client(), { contentText: 'Hello from the tests', platform: 'linkedin', scheduledAt, firstComment: 'A comment' });
    expect(post).toMatchObject({
      accountId: await accountOf('linkedin'),
      platform: 'linkedin',
      contentText: 'Hello from the tests',
      firstComment: 'A comment',
      scheduledAt,
      status: 'pending',
      variantId: null,
      createdAt: iso(social.clock.now()),
      publishedAt: null,
      engagement: null,
    });
  });

  test('less than 10 minutes ahead: queued', async () => {
    const post = await newPost(social.client(), { contentText: 'Almost time', platform: 'x', scheduledAt: after(social, 5 * MINUTE) });
    expect(post.status).toBe('queued');
  });

  test('draft: true makes a draft', async () => {
    const post = await newPost(social.client(), { contentText: 'For approval', platform: 'x', scheduledAt: after(social, 2 * HOUR), draft: true });
    expect(post.status).toBe('draft');
  });

  test('an explicit account on the platform is used; the stored post is listed', async () => {
    const accountId = await accountOf('facebook');
    const post = await newPost(social.client(), { contentText: 'With an account', platform: 'facebook', accountId, scheduledAt: after(social, 4 * HOUR) });
    expect(post.accountId).toBe(accountId);
    const { data } = await social.client().GET('/api/posts', { params: { query: { platform: 'facebook' } } });
    expect(data!.posts.map((p) => p.id)).toContain(post.id);
  });
});

describe('400: input the rules refuse', () => {
  test.each([
    ['neither variantId nor contentText', () => ({ platform: 'x', scheduledAt: after(social, HOUR) }), /exactly one of variantId or contentText/],
    ['both variantId and contentText', () => ({ variantId: 'var_x', contentText: 'a', platform: 'x', scheduledAt: after(social, HOUR) }), /exactly one of variantId or contentText/],
    ['contentText without platform', () => ({ contentText: 'a', scheduledAt: after(social, HOUR) }), /platform is required/],
    ['a time in the past', () => ({ contentText: 'a', platform: 'x', scheduledAt: after(social, -MINUTE) }), /not in the future/],
    ['the current instant', () => ({ contentText: 'a', platform: 'x', scheduledAt: after(social, 0) }), /not in the future/],
    ['a time that is not a date-time', () => ({ contentText: 'a', platform: 'x', scheduledAt: 'tomorrow' }), /scheduledAt/],
    ['no scheduledAt', () => ({ contentText: 'a', platform: 'x' }), /scheduledAt/],
    ['an unknown platform', () => ({ contentText: 'a', platform: 'myspace', scheduledAt: after(social, HOUR) }), /platform/],
    ['blank text', () => ({ contentText: '  ', platform: 'x', scheduledAt: after(social, HOUR) }), /contentText/],
    ['text over the platform limit (x: 280)', () => ({ contentText: 'y'.repeat(281), platform: 'x', scheduledAt: after(social, HOUR) }), /281 characters; x allows at most 280/],
    ['a date-time past the year 9999 once in UTC', () => ({ contentText: 'a', platform: 'x', scheduledAt: '9999-12-31T23:00:00-05:00' }), /out of range/],
  ])('%s', async (_name, body, message) => {
    const res = await raw(social.baseUrl, 'POST', '/api/schedule', { body: body() });
    expectError(res, 400, message, where);
  });

  test('the limit counts characters, not bytes: 280 emoji fit on x', async () => {
    const post = await newPost(social.client(), { contentText: '🚀'.repeat(280), platform: 'x', scheduledAt: after(social, 30 * HOUR) });
    expect([...post.contentText]).toHaveLength(280);
  });

  test('text within linkedin\'s limit but over x\'s is fine on linkedin', async () => {
    await newPost(social.client(), { contentText: 'z'.repeat(281), platform: 'linkedin', scheduledAt: after(social, 31 * HOUR) });
  });

  test('an account on another platform', async () => {
    const res = await schedule(social.client(), { contentText: 'Wrong account', platform: 'x', accountId: await accountOf('linkedin'), scheduledAt: after(social, HOUR) });
    expectError(res, 400, /is connected to linkedin, not x/, where);
  });

  test('a variant for another platform than the one given', async () => {
    const { data } = await social.client().POST('/api/generate', { body: { topic: 'Mismatch', platforms: ['threads'], count: 1 } });
    const res = await schedule(social.client(), { variantId: data!.variants[0]!.variantId, platform: 'x', scheduledAt: after(social, HOUR) });
    expectError(res, 400, /variant is for threads, not x/, where);
  });

  test('400 for a body that is not JSON', async () => {
    expectError(await raw(social.baseUrl, 'POST', '/api/schedule', { body: '{' }), 400, /JSON/, where);
  });
});

describe('404: variants and accounts that are not the caller\'s', () => {
  test('an unknown variant', async () => {
    expectError(await schedule(social.client(), { variantId: 'var_0000000000000000', scheduledAt: after(social, HOUR) }), 404, /Variant not found/, where);
  });

  test('another workspace\'s variant', async () => {
    const { data } = await social.client(FREE_KEY).POST('/api/generate', { body: { topic: 'Not yours', count: 1 } });
    const res = await schedule(social.client(), { variantId: data!.variants[0]!.variantId, scheduledAt: after(social, HOUR) });
    expectError(res, 404, /Variant not found/, where);
  });

  test('another workspace\'s account, and an unknown one', async () => {
    const theirs = await accountOf('x', FREE_KEY);
    expect(theirs).not.toBe(await accountOf('x'));
    expectError(await schedule(social.client(), { contentText: 'Hijack', platform: 'x', accountId: theirs, scheduledAt: after(social, HOUR) }), 404, /Account not found/, where);
    expectError(await schedule(social.client(), { contentText: 'Nobody', platform: 'x', accountId: 'acc_unknown', scheduledAt: after(social, HOUR) }), 404, /Account not found/, where);
  });
});

describe('409: duplicate schedule for the same account, platform and time', () => {
  test('the same account and time is refused, whatever the text and however the time is written', async () => {
    const at = social.clock.now() + 5 * HOUR;
    await newPost(social.client(), { contentText: 'First in the slot', platform: 'threads', scheduledAt: iso(at) });
    const same = await schedule(social.client(), { contentText: 'Second in the slot', platform: 'threads', scheduledAt: iso(at) });
    expectError(same, 409, /already scheduled at/, where);
    // the same instant with an offset
    const offset = new Date(at + 2 * HOUR).toISOString().replace('Z', '+02:00');
    expectError(await schedule(social.client(), { contentText: 'Third in the slot', platform: 'threads', scheduledAt: offset }), 409, /already scheduled at/, where);
    // a draft holds its slot too
    const draftAt = iso(at + HOUR);
    await newPost(social.client(), { contentText: 'Draft in the slot', platform: 'threads', scheduledAt: draftAt, draft: true });
    expectError(await schedule(social.client(), { contentText: 'After the draft', platform: 'threads', scheduledAt: draftAt }), 409, /already scheduled at/, where);
  });

  test('another platform, another second, or another workspace at the same time is fine', async () => {
    const at = social.clock.now() + 6 * HOUR;
    await newPost(social.client(), { contentText: 'Slot owner', platform: 'instagram', scheduledAt: iso(at) });
    await newPost(social.client(), { contentText: 'Other platform', platform: 'facebook', scheduledAt: iso(at) });
    await newPost(social.client(), { contentText: 'One second later', platform: 'instagram', scheduledAt: iso(at + 1000) });
    await newPost(social.client(FREE_KEY), { contentText: 'Other workspace', platform: 'instagram', scheduledAt: iso(at) });
  });

  test('a rejected draft frees its slot', async () => {
    const at = iso(social.clock.now() + 7 * HOUR);
    const draft = await newPost(social.client(), { contentText: 'To be rejected', platform: 'x', scheduledAt: at, draft: true });
    await social.client().POST('/api/drafts', { body: { ids: [draft.id], action: 'reject' } });
    await newPost(social.client(), { contentText: 'Takes the slot', platform: 'x', scheduledAt: at });
  });
});

describe('409: the same content on the same account within 24 hours (manual clock)', () => {
  let local: SocialStub;
  beforeEach(async () => {
    local = await startSocial();
    return () => local.close();
  });

  test('refused until 24 hours after the first, then allowed', async () => {
    const first = { contentText: 'Big news: we shipped it.', platform: 'x' as const };
    await newPost(local.client(), { ...first, scheduledAt: after(local, 72 * HOUR) });
    local.clock.advance(23 * HOUR + 59 * MINUTE);
    expectError(await schedule(local.client(), { ...first, scheduledAt: after(local, 80 * HOUR) }), 409, /same content .* less than 24 hours ago/, where);
    local.clock.advance(MINUTE);
    await newPost(local.client(), { ...first, scheduledAt: after(local, 81 * HOUR) });
  });

  test('compared trimmed, with whitespace collapsed and case ignored', async () => {
    await newPost(local.client(), { contentText: 'Launch day is here', platform: 'linkedin', scheduledAt: after(local, 10 * HOUR) });
    const res = await schedule(local.client(), { contentText: '  LAUNCH   day\nis here ', platform: 'linkedin', scheduledAt: after(local, 11 * HOUR) });
    expectError(res, 409, /same content/, where);
  });

  test('drafts count; a rejected draft does not', async () => {
    const draft = await newPost(local.client(), { contentText: 'Draft words', platform: 'x', scheduledAt: after(local, 10 * HOUR), draft: true });
    expectError(await schedule(local.client(), { contentText: 'Draft words', platform: 'x', scheduledAt: after(local, 11 * HOUR) }), 409, /same content/, where);
    await local.client().POST('/api/drafts', { body: { ids: [draft.id], action: 'reject' } });
    await newPost(local.client(), { contentText: 'Draft words', platform: 'x', scheduledAt: after(local, 12 * HOUR) });
  });

  test('the same content on another account (platform) or in another workspace is fine', async () => {
    await newPost(local.client(), { contentText: 'Cross-posted', platform: 'x', scheduledAt: after(local, 10 * HOUR) });
    await newPost(local.client(), { contentText: 'Cross-posted', platform: 'bluesky', scheduledAt: after(local, 10 * HOUR) });
    await newPost(local.client(FREE_KEY), { contentText: 'Cross-posted', platform: 'x', scheduledAt: after(local, 10 * HOUR) });
  });

  test('a variant scheduled twice within 24 hours is the same content', async () => {
    const { data } = await local.client().POST('/api/generate', { body: { topic: 'Twice', platforms: ['linkedin'], count: 1 } });
    const variantId = data!.variants[0]!.variantId;
    await newPost(local.client(), { variantId, scheduledAt: after(local, 10 * HOUR) });
    expectError(await schedule(local.client(), { variantId, scheduledAt: after(local, 20 * HOUR) }), 409, /same content/, where);
  });
});

describe('403: the free tier (manual clock)', () => {
  test('10 posts per calendar month, drafts included; the 11th is refused with count and limit; the next month starts again', async () => {
    const local = await startSocial();
    try {
      const free = local.client(FREE_KEY);
      for (let i = 0; i < 10; i += 1) {
        await newPost(free, { contentText: `Free post ${i}`, platform: 'x', scheduledAt: after(local, (i + 1) * HOUR), draft: i % 2 === 0 });
      }
      const refused = await schedule(free, { contentText: 'One too many', platform: 'x', scheduledAt: after(local, 20 * HOUR) });
      expectError(refused, 403, /free tier allows 10 posts per month/, where);
      expect(refused.body).toEqual({ error: expect.any(String), count: 10, limit: 10 });
      // nothing was created by the refused request
      const { data } = await free.GET('/api/posts');
      expect(data!.posts.map((p) => p.contentText)).not.toContain('One too many');
      // the Pro workspace is not limited
      for (let i = 0; i < 11; i += 1) await newPost(local.client(), { contentText: `Pro post ${i}`, platform: 'x', scheduledAt: after(local, (i + 1) * HOUR) });
      // 2026-01-15 09:30 -> 2026-02-01 00:00: a new month
      local.clock.set(Date.parse('2026-02-01T00:00:00Z'));
      await newPost(free, { contentText: 'February', platform: 'x', scheduledAt: after(local, HOUR) });
    } finally {
      await local.close();
    }
  });
});
