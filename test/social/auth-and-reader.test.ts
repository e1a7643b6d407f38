/**
 * Authentication (DECISIONS social-1: bearer keys of this product only; other products' keys 401),
 * the tolerant reader (G-1: unknown query parameters, headers and body properties ignored) and the
 * browser rules that reach this service (G-3: 405 with Allow, HEAD where GET is).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { after, contract, expectError, HOUR, KEY, listPosts, raw, startSocial, type SocialStub } from './support.js';

let social: SocialStub;
beforeAll(async () => {
  social = await startSocial();
});
afterAll(() => social.close());

describe('401', () => {
  const refused: Array<[string, Record<string, string>]> = [
    ['no Authorization header', {}],
    ['Basic instead of Bearer', { Authorization: `Basic ${Buffer.from(`${KEY}:`).toString('base64')}` }],
    ['Bearer without a token', { Authorization: 'Bearer ' }],
    ['an unknown key', { Authorization: 'Bearer social_live_nope' }],
    ['the key with a suffix', { Authorization: `Bearer ${KEY}x` }],
    ['a seo key', { Authorization: 'Bearer seo_test_key' }],
    ['a blog key', { Authorization: 'Bearer mbk_test_free' }],
    ['a mail key', { Authorization: 'Bearer msk_test_max' }],
    ['a coding-gateway key', { Authorization: 'Bearer coder_test_key' }],
    ['a grounded-search key', { Authorization: 'Bearer dev_test_key' }],
    ['a lead-outreach key', { Authorization: 'Bearer msr_test_key' }],
  ];
  const routes: Array<[string, string, unknown]> = [
    ['GET', '/api/stats', undefined],
    ['GET', '/api/posts', undefined],
    ['GET', '/api/accounts', undefined],
    ['POST', '/api/generate', { topic: 'x' }],
    ['POST', '/api/schedule', { contentText: 'x', platform: 'x', scheduledAt: '2027-01-01T00:00:00Z' }],
    ['PATCH', '/api/posts/00000000-0000-4000-8000-000000000000', { firstComment: 'x' }],
    ['POST', '/api/drafts', { ids: ['00000000-0000-4000-8000-000000000000'], action: 'approve' }],
  ];

  test.each(refused)('%s gets 401 on every route, and nothing is created', async (_name, headers) => {
    for (const [method, path, body] of routes) {
      const res = await raw(social.baseUrl, method, path, { key: null, headers, body });
      const template = path.startsWith('/api/posts/') ? '/api/posts/{id}' : path;
      expectError(res, 401, /Authorization|API key/, { path: template, method: method.toLowerCase() });
    }
    expect(social.app.store.posts.size).toBe(0);
  });

  test('the scheme name is case-insensitive', async () => {
    const res = await raw(social.baseUrl, 'GET', '/api/stats', { key: null, headers: { Authorization: `bearer ${KEY}` } });
    expect(res.status).toBe(200);
  });
});

describe('tolerant reader (G-1)', () => {
  test('unknown query parameters and headers are ignored', async () => {
    const res = await raw(social.baseUrl, 'GET', '/api/posts?_=123&utm_source=mail&status=draft', { headers: { 'X-Client-Trace': 'abc' } });
    expect(res.status).toBe(200);
    expect(contract.responseErrors('/api/posts', 'get', 200, res.body)).toEqual([]);
  });

  test('unknown body properties are ignored, on create and on edit', async () => {
    const created = await raw(social.baseUrl, 'POST', '/api/schedule', {
      body: { contentText: 'Tolerant', platform: 'x', scheduledAt: after(social, 2 * HOUR), mediaUrls: ['https://example.com/a.png'], client: { v: 2 } },
    });
    expect(created.status).toBe(201);
    const post = (created.body as { post: { id: string; contentText: string } }).post;
    expect(post).not.toHaveProperty('mediaUrls');
    const edited = await raw(social.baseUrl, 'PATCH', `/api/posts/${post.id}`, { body: { firstComment: 'Hi', pinned: true } });
    expect(edited.status).toBe(200);
    expect(contract.responseErrors('/api/posts/{id}', 'patch', 200, edited.body)).toEqual([]);
    // a body of unknown properties only has no field to change: 400, as an empty one
    const empty = await raw(social.baseUrl, 'PATCH', `/api/posts/${post.id}`, { body: { pinned: true } });
    expectError(empty, 400, /fewer than 1 properties/, { path: '/api/posts/{id}', method: 'patch' });
    expect((await listPosts(social.client())).find((p) => p.id === post.id)!.firstComment).toBe('Hi');
  });

  test('unknown properties in generate are ignored; the answer is the one without them', async () => {
    const plain = await raw(social.baseUrl, 'POST', '/api/generate', { body: { topic: 'Tolerance', count: 1 } });
    const extra = await raw(social.baseUrl, 'POST', '/api/generate', { body: { topic: 'Tolerance', count: 1, model: 'gpt-x', temperature: 2 } });
    expect(extra.status).toBe(200);
    expect(extra.body).toEqual(plain.body);
  });
});

describe('browsers (G-3)', () => {
  test('a known path with another method: 405 with Allow, in the service\'s body', async () => {
    const res = await raw(social.baseUrl, 'DELETE', '/api/stats');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toMatch(/GET/);
    expect(res.body).toEqual({ error: expect.stringMatching(/not allowed/) });
  });

  test('HEAD works where GET does', async () => {
    const response = await fetch(`${social.baseUrl}/api/accounts`, { method: 'HEAD', headers: { Authorization: `Bearer ${KEY}` } });
    expect(response.status).toBe(200);
  });
});
