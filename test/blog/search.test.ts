/** GET /v1/search through the generated client: every published rule, and the designed ones (DECISIONS blog-1). */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { operations } from '../../generated/blog/types.gen.js';
import { checked, contract, corpus, raw, startBlog, type BlogStub } from './support.js';

type Query = NonNullable<operations['searchBlog']['parameters']['query']>;

let blog: BlogStub;
beforeAll(async () => {
  // The rate limit is its own test: these send far more than 100 searches.
  blog = await startBlog({ rateLimits: false });
});
afterAll(() => blog.close());

async function search(query: Query) {
  return checked(await blog.client().GET('/v1/search', { params: { query } }), { path: '/v1/search', method: 'get' });
}

const words = (text: string): string[] => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
/** Whether an article mentions a word (as a word or a word's start) in the fields the search reads. */
const mentions = (a: (typeof corpus.articles)[number], word: string) =>
  [a.title, a.excerpt, a.tags.join(' '), a.author.display_name, a.author.username].some((field) => words(field).some((w) => w.startsWith(word)));

// Picked from the corpus, so the tests follow it if the generator changes.
const busiestTag = [...corpus.tags].sort((a, b) => b.count - a.count)[0]!.name;
const prolific = [...corpus.profiles].sort((a, b) => b.article_count - a.article_count)[0]!;

describe('nothing to search for', () => {
  test('without q and without tag, author, from or to, all three arrays are empty', async () => {
    const { status, body } = await search({});
    expect({ status, body }).toEqual({ status: 200, body: { articles: [], profiles: [], tags: [] } });
  });

  test('type, sort and limit alone are not something to search for', async () => {
    const { body } = await search({ type: 'articles', sort: 'newest', limit: 50 });
    expect(body).toEqual({ articles: [], profiles: [], tags: [] });
  });
});

describe('q', () => {
  test('a query of 1 character is a 400 (invalid_request); 2 characters are enough', async () => {
    const short = await search({ q: 'a' });
    expect({ status: short.status, code: short.body.code }).toEqual({ status: 400, code: 'invalid_request' });
    expect((await search({ q: 'go' })).status).toBe(200);
  });

  test('an empty q is a query shorter than 2 characters: 400', async () => {
    expect((await raw(blog.baseUrl, 'GET', '/v1/search?q=')).status).toBe(400);
  });

  test('every article found mentions the query; relevance puts the strongest match first', async () => {
    const { body } = await search({ q: 'rust', type: 'articles', limit: 50 });
    expect(body.articles.length).toBeGreaterThan(0);
    for (const article of body.articles) expect(mentions(article, 'rust'), article.slug).toBe(true);
    // Relevance orders the same matches differently from the date sorts: it ranks, it does not filter.
    const newest = (await search({ q: 'rust', type: 'articles', sort: 'newest', limit: 50 })).body.articles;
    const slugs = (list: Array<{ slug: string }>) => list.map((a) => a.slug);
    expect(body.articles.length).toBeLessThan(50);
    expect(slugs(body.articles).sort()).toEqual(slugs(newest).sort());
    expect(slugs(body.articles)).not.toEqual(slugs(newest));
  });

  test('a multi-word query needs every word', async () => {
    const { body } = await search({ q: 'field report', type: 'articles', limit: 50 });
    expect(body.articles.length).toBeGreaterThan(0);
    for (const article of body.articles) expect(mentions(article, 'field') && mentions(article, 'report'), article.slug).toBe(true);
  });

  test('a query that matches nothing answers three empty arrays', async () => {
    expect((await search({ q: 'zzqxjv' })).body).toEqual({ articles: [], profiles: [], tags: [] });
  });
});

describe('profiles and tags', () => {
  test('with q and no author: profiles (matched on name, username or bio) and tags (matched on the name)', async () => {
    const { body } = await search({ q: prolific.display_name.split(' ')[0]! });
    expect(body.profiles.map((p: { username: string }) => p.username)).toContain(prolific.username);
    const tagged = await search({ q: 'typescript' });
    expect(tagged.body.tags).toContainEqual(corpus.tags.find((t) => t.name === 'typescript'));
  });

  test('profiles come only with q: a tag alone gives articles, no profiles, no tags', async () => {
    const { body } = await search({ tag: busiestTag });
    expect(body.articles.length).toBeGreaterThan(0);
    expect({ profiles: body.profiles, tags: body.tags }).toEqual({ profiles: [], tags: [] });
  });

  test('with author, no profiles even with q; tags still come with q', async () => {
    const first = prolific.display_name.split(' ')[0]!;
    const without = await search({ q: first });
    expect(without.body.profiles.length).toBeGreaterThan(0);
    const { body } = await search({ q: 'typescript', author: prolific.username });
    expect(body.profiles).toEqual([]);
    expect(body.tags.map((t: { name: string }) => t.name)).toContain('typescript');
  });

  test('popular orders profiles by followers and tags by article count', async () => {
    const { body } = await search({ q: 'engineer', sort: 'popular', limit: 50 });
    const followers = body.profiles.map((p: { follower_count: number }) => p.follower_count);
    expect(followers.length).toBeGreaterThan(1);
    expect(followers).toEqual([...followers].sort((a, b) => b - a));
    const tags = await search({ q: 'de', type: 'tags', sort: 'popular' });
    const counts = tags.body.tags.map((t: { count: number }) => t.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });
});

describe('type', () => {
  test.each(['articles', 'profiles', 'tags'] as const)('type=%s fills that array only; the other two are present and empty', async (type) => {
    const { body } = await search({ q: 'design', type });
    expect(Object.keys(body).sort()).toEqual(['articles', 'profiles', 'tags']);
    expect(body[type].length).toBeGreaterThan(0);
    for (const other of (['articles', 'profiles', 'tags'] as const).filter((k) => k !== type)) expect(body[other]).toEqual([]);
  });

  test('all (the default) fills the three', async () => {
    const { body } = await search({ q: 'design' });
    expect([body.articles.length, body.profiles.length, body.tags.length].every((n) => n > 0)).toBe(true);
  });

  test('a type outside all/articles/profiles/tags is a 400', async () => {
    expect((await raw(blog.baseUrl, 'GET', '/v1/search?q=design&type=videos')).status).toBe(400);
  });
});

describe('filters', () => {
  test('tag: only articles carrying the tag, all of them up to the limit', async () => {
    const { body } = await search({ tag: busiestTag, limit: 50 });
    const expected = corpus.articles.filter((a) => a.tags.includes(busiestTag)).length;
    expect(body.articles).toHaveLength(Math.min(50, expected));
    for (const a of body.articles) expect(a.tags).toContain(busiestTag);
  });

  test('tag combines with q: both must hold', async () => {
    const { body } = await search({ q: 'guide', tag: busiestTag, type: 'articles', limit: 50 });
    expect(body.articles.length).toBeGreaterThan(0);
    for (const a of body.articles) {
      expect(a.tags).toContain(busiestTag);
      expect(mentions(a, 'guide')).toBe(true);
    }
  });

  test('author: only that creator\'s articles, compared case-insensitively', async () => {
    const { body } = await search({ author: prolific.username.toUpperCase(), limit: 50 });
    expect(body.articles).toHaveLength(Math.min(50, prolific.article_count));
    for (const a of body.articles) expect(a.author.username).toBe(prolific.username);
  });

  test('from and to are inclusive, as dates (whole UTC days) and as date-times', async () => {
    const article = corpus.articles[150]!;
    const day = article.published_at.slice(0, 10);
    const onTheDay = corpus.articles.filter((a) => a.published_at.startsWith(day)).map((a) => a.slug).sort();
    const byDate = await search({ from: day, to: day, limit: 50 });
    expect(byDate.body.articles.map((a: { slug: string }) => a.slug).sort()).toEqual(onTheDay);
    // The exact instant, from and to at once: the article published then is in.
    const exact = await search({ from: article.published_at, to: article.published_at, limit: 50 });
    expect(exact.body.articles.map((a: { slug: string }) => a.slug)).toContain(article.slug);
    // One millisecond later as the lower bound leaves it out.
    const after = new Date(Date.parse(article.published_at) + 1).toISOString();
    const later = await search({ from: after, to: `${day}T23:59:59.999Z`, limit: 50 });
    expect(later.body.articles.map((a: { slug: string }) => a.slug)).not.toContain(article.slug);
  });

  test('from alone and to alone bound one side', async () => {
    const { body: recent } = await search({ from: '2025-12-01', sort: 'oldest', limit: 50 });
    expect(recent.articles.length).toBeGreaterThan(0);
    for (const a of recent.articles) expect(a.published_at >= '2025-12-01').toBe(true);
    const { body: early } = await search({ to: '2024-01-31', sort: 'newest', limit: 50 });
    expect(early.articles.length).toBeGreaterThan(0);
    for (const a of early.articles) expect(a.published_at < '2024-02-01').toBe(true);
  });

  test('a date that is neither a date nor a date-time is a 400', async () => {
    expect((await raw(blog.baseUrl, 'GET', '/v1/search?from=last-week')).status).toBe(400);
    expect((await raw(blog.baseUrl, 'GET', '/v1/search?to=2025-13-45')).status).toBe(400);
  });
});

describe('sort', () => {
  const dates = (list: Array<{ published_at: string }>) => list.map((a) => a.published_at);

  test('newest and oldest order by published_at', async () => {
    const newest = dates((await search({ tag: busiestTag, sort: 'newest', limit: 50 })).body.articles);
    expect(newest).toEqual([...newest].sort().reverse());
    const oldest = dates((await search({ tag: busiestTag, sort: 'oldest', limit: 50 })).body.articles);
    expect(oldest).toEqual([...oldest].sort());
    expect(oldest[0]).toBe(corpus.articles.filter((a) => a.tags.includes(busiestTag)).map((a) => a.published_at).sort()[0]);
  });

  test('popular orders by view_count', async () => {
    const views = (await search({ tag: busiestTag, sort: 'popular', limit: 50 })).body.articles.map((a: { view_count: number }) => a.view_count);
    expect(views).toEqual([...views].sort((a: number, b: number) => b - a));
    expect(views[0]).toBe(Math.max(...corpus.articles.filter((a) => a.tags.includes(busiestTag)).map((a) => a.view_count)));
  });

  test('relevance (the default) without q falls back to newest first', async () => {
    const byDefault = (await search({ tag: busiestTag, limit: 50 })).body.articles;
    const newest = (await search({ tag: busiestTag, sort: 'newest', limit: 50 })).body.articles;
    expect(byDefault).toEqual(newest);
  });

  test('a sort outside relevance/newest/oldest/popular is a 400', async () => {
    expect((await raw(blog.baseUrl, 'GET', '/v1/search?tag=go&sort=random')).status).toBe(400);
  });
});

describe('limit', () => {
  test('defaults to 20 per array', async () => {
    const { body } = await search({ tag: busiestTag });
    expect(body.articles).toHaveLength(20);
  });

  test('applies to each array separately', async () => {
    const wide = await search({ q: 'design', limit: 3 });
    expect(wide.body.articles).toHaveLength(3);
    expect(wide.body.profiles.length).toBeLessThanOrEqual(3);
    expect(wide.body.tags.length).toBeLessThanOrEqual(3);
  });

  test.each([1, 50])('%i is accepted', async (limit) => {
    const { status, body } = await search({ tag: busiestTag, limit });
    expect(status).toBe(200);
    expect(body.articles).toHaveLength(limit);
  });

  test.each(['0', '51', '-1', '2.5', 'ten'])('limit=%s is a 400 (DECISIONS blog-1: not clamped)', async (limit) => {
    const res = await raw(blog.baseUrl, 'GET', `/v1/search?tag=go&limit=${limit}`);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'invalid_request' });
    expect(contract.responseErrors('/v1/search', 'get', 400, res.body)).toEqual([]);
  });
});

describe('tolerant reader (DECISIONS G-1)', () => {
  test('unknown query parameters are ignored, not refused', async () => {
    const plain = await raw(blog.baseUrl, 'GET', `/v1/search?tag=${busiestTag}&limit=5`);
    const busted = await raw(blog.baseUrl, 'GET', `/v1/search?tag=${busiestTag}&limit=5&_=1712345678&utm_source=newsletter`);
    expect(busted.status).toBe(200);
    expect(busted.body).toEqual(plain.body);
  });

  test('a date-time with unencoded colons is read as sent', async () => {
    const res = await raw(blog.baseUrl, 'GET', '/v1/search?from=2025-06-01T00:00:00Z&to=2025-06-30T23:59:59Z&limit=50');
    expect(res.status).toBe(200);
    for (const a of res.body.articles) expect(a.published_at.startsWith('2025-06')).toBe(true);
  });
});
