/**
 * Shared helpers of the blog behaviour tests (not a test file itself): start a stub, typed clients
 * per key, raw requests for what the typed client cannot send, and the committed corpus the search
 * answers from.
 */
import { readFileSync } from 'node:fs';
import { createBlogClient, type BlogClient, type components } from '../../generated/blog/client.gen.js';
import { contractChecker } from '../../scripts/lib/contract-checker.js';
import { createBlogApp, type BlogAppOptions } from '../../server-stubs/blog/app.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';
import { bearerRaw } from '../helpers/raw.js';
import { contractChecked } from '../helpers/checked.js';

export const FREE = 'mbk_test_free';
export const PRO = 'mbk_test_pro';
export const BUSINESS = 'mbk_test_business';

export const contract = contractChecker('blog');

export type Article = components['schemas']['Article'];
export type Profile = components['schemas']['Profile'];
export type Tag = components['schemas']['Tag'];

export const corpus = JSON.parse(readFileSync(new URL('../../server-stubs/blog/corpus/corpus.json', import.meta.url), 'utf8')) as {
  articles: Article[];
  profiles: Profile[];
  tags: Tag[];
};

export interface BlogStub {
  app: ReturnType<typeof createBlogApp>;
  stub: RunningStub;
  baseUrl: string;
  client(key?: string): BlogClient;
  close(): Promise<void>;
}

export async function startBlog(options: BlogAppOptions = {}): Promise<BlogStub> {
  const app = createBlogApp(options);
  const stub = await serveStub(app, app.basePath);
  return {
    app,
    stub,
    baseUrl: stub.baseUrl,
    client: (key = FREE) => createBlogClient({ baseUrl: stub.baseUrl, headers: { Authorization: `Bearer ${key}` } }),
    close: () => stub.close(),
  };
}

export const raw = bearerRaw(FREE);
export type { RawResponse } from '../helpers/raw.js';

export const checked = contractChecked(contract);

/** The six usage headers of a metered success, every one present on each (DECISIONS blog-4). */
export function usageHeaders(headers: Headers) {
  return {
    feature: headers.get('x-service-usage-feature'),
    used: headers.get('x-service-usage-used'),
    limit: headers.get('x-service-usage-limit'),
    remaining: headers.get('x-service-usage-remaining'),
    resets: headers.get('x-service-usage-resets'),
    plan: headers.get('x-service-plan'),
  };
}

export const draftBody = { title: 'Testing the meter', body_markdown: '# Meter\n\nEvery write counts once.', tags: ['testing'] };
