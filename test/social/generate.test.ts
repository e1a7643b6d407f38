/**
 * POST /api/generate: deterministic variants with tone control, within each platform's character
 * limit, kept so they can be scheduled; the generator is an adapter; the rate limit.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { PostGenerator } from '../../server-stubs/social/generator.js';
import { characterLimits } from '../../server-stubs/social/store.js';
import { after, contract, expectError, FREE_KEY, HOUR, outcome, raw, schedule, startSocial, type SocialStub } from './support.js';

const where = { path: '/api/generate', method: 'post' };

describe('generate', () => {
  let social: SocialStub;
  beforeAll(async () => {
    social = await startSocial();
  });
  afterAll(() => social.close());
  // Each test starts with a fresh rate window.
  beforeEach(() => social.clock.advance(61_000));

  async function generate(body: Record<string, unknown>, key?: string) {
    const result = await social.client(key).POST('/api/generate', { body: body as never });
    const o = outcome(result);
    expect(contract.responseErrors(where.path, where.method, o.status, o.body)).toEqual([]);
    return { ...o, data: result.data };
  }

  /** The variants of a request that must succeed, as the typed client reads them. */
  async function variants(body: Record<string, unknown>, key?: string) {
    const { status, data } = await generate(body, key);
    expect(status).toBe(200);
    if (!data) throw new Error('POST /api/generate answered no variants');
    return data.variants;
  }

  test('count variants per platform, in the order asked, each in the tone asked', async () => {
    const list = await variants({ topic: 'Remote onboarding', platforms: ['linkedin', 'x'], tone: 'witty', count: 2 });
    expect(list.map((v) => [v.platform, v.tone])).toEqual([
      ['linkedin', 'witty'],
      ['linkedin', 'witty'],
      ['x', 'witty'],
      ['x', 'witty'],
    ]);
    expect(new Set(list.map((v) => v.contentText)).size).toBe(4);
    expect(new Set(list.map((v) => v.variantId)).size).toBe(4);
    for (const v of list) expect(v.contentText).toContain('Remote onboarding');
  });

  test('the same request yields the same variants, ids included', async () => {
    const request = { topic: 'Quarterly results', platforms: ['facebook'], tone: 'informative', count: 3 };
    const first = await generate(request);
    const second = await generate(request);
    expect(second.body).toEqual(first.body);
    // ... and a shorter count is a prefix of the longer one
    expect(await variants({ ...request, count: 1 })).toEqual((await variants(request)).slice(0, 1));
  });

  test('the tone changes the text, not only the label', async () => {
    const texts = async (tone: string) => (await variants({ topic: 'Dark mode', platforms: ['threads'], tone, count: 3 })).map((v) => v.contentText);
    const professional = await texts('professional');
    const witty = await texts('witty');
    const inspirational = await texts('inspirational');
    expect(witty.filter((t) => professional.includes(t))).toEqual([]);
    expect(inspirational.filter((t) => witty.includes(t))).toEqual([]);
  });

  test('defaults: three professional variants for x', async () => {
    const list = await variants({ prompt: 'Announce the new API' });
    expect(list).toHaveLength(3);
    expect(list.every((v) => v.platform === 'x' && v.tone === 'professional')).toBe(true);
  });

  test('another workspace gets other variant ids for the same request', async () => {
    const request = { topic: 'Shared topic', platforms: ['x'], count: 1 };
    const [pro] = await variants(request);
    const [free] = await variants(request, FREE_KEY);
    expect(free?.contentText).toBe(pro?.contentText);
    expect(free?.variantId).not.toBe(pro?.variantId);
  });

  test('every variant fits its platform, even for a long topic', async () => {
    const topic = 'An unusually long topic about '.concat('distributed systems and their many failure modes '.repeat(3)).trim();
    const list = await variants({ topic, platforms: ['x', 'bluesky', 'threads', 'instagram', 'linkedin', 'facebook'], tone: 'casual', count: 5 });
    expect(list).toHaveLength(30);
    for (const v of list) expect([...v.contentText].length).toBeLessThanOrEqual(characterLimits[v.platform as keyof typeof characterLimits]);
  });

  test('a generated variant can be scheduled: its text and platform become the post', async () => {
    const [variant] = await variants({ topic: 'Launch week', platforms: ['bluesky'], tone: 'inspirational', count: 1 });
    if (!variant) throw new Error('no variant to schedule');
    const scheduled = await schedule(social.client(), { variantId: variant.variantId, scheduledAt: after(social, 48 * HOUR), firstComment: 'More soon' });
    expect(scheduled.status).toBe(201);
    expect(scheduled.data!.post).toMatchObject({ variantId: variant.variantId, contentText: variant.contentText, platform: 'bluesky', firstComment: 'More soon' });
  });

  test.each([
    ['neither topic nor prompt', { platforms: ['x'] }, /exactly one of topic or prompt/],
    ['both topic and prompt', { topic: 'a', prompt: 'b' }, /exactly one of topic or prompt/],
    ['count above 5', { topic: 'a', count: 6 }, /count/],
    ['count below 1', { topic: 'a', count: 0 }, /count/],
    ['an unknown tone', { topic: 'a', tone: 'sarcastic' }, /tone/],
    ['an unknown platform', { topic: 'a', platforms: ['myspace'] }, /platforms/],
    ['a platform twice', { topic: 'a', platforms: ['x', 'x'] }, /platforms/],
    ['a blank topic', { topic: '   ' }, /topic/],
  ])('400 for %s', async (_name, body, message) => {
    expectError(await generate(body), 400, message, where);
  });

  test('400 for a body that is not JSON', async () => {
    expectError(await raw(social.baseUrl, 'POST', '/api/generate', { body: '{"topic":' }), 400, /JSON/, where);
  });
});

describe('the generator is an adapter', () => {
  test('a replacement writes the variants; what it writes beyond the limit is cut, what it leaves out falls back to the subject', async () => {
    const calls: unknown[] = [];
    const generator: PostGenerator = {
      write(request) {
        calls.push(request);
        return ['y'.repeat(400)];
      },
    };
    const social = await startSocial({ generator });
    try {
      const result = await social.client().POST('/api/generate', { body: { topic: 'Adapters', platforms: ['x'], tone: 'casual', count: 2 } });
      expect(result.response.status).toBe(200);
      expect(calls).toEqual([{ subject: 'Adapters', platform: 'x', tone: 'casual', count: 2, maxLength: 280 }]);
      expect([...result.data!.variants[0]!.contentText].length).toBe(280);
      expect(result.data!.variants[0]!.contentText.endsWith('…')).toBe(true);
      expect(result.data!.variants[1]!.contentText).toBe('Adapters');
    } finally {
      await social.close();
    }
  });
});

describe('rate limit (manual clock)', () => {
  test('20 per 60 s per key, then 429 with Retry-After; another key has its own window; the window passes', async () => {
    const social = await startSocial();
    try {
      const body = { topic: 'Rate limits', count: 1 } as const;
      for (let i = 0; i < 20; i += 1) expect((await social.client().POST('/api/generate', { body })).response.status).toBe(200);
      const limited = await social.client().POST('/api/generate', { body });
      expectError(outcome(limited), 429, /Rate limit/, where);
      const retryAfter = Number(limited.response.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect((await social.client(FREE_KEY).POST('/api/generate', { body })).response.status).toBe(200);
      social.clock.advance(retryAfter * 1000);
      expect((await social.client().POST('/api/generate', { body })).response.status).toBe(200);
    } finally {
      await social.close();
    }
  });
});
