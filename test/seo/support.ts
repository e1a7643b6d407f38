/**
 * Shared helpers of the seo behaviour tests (not a test file itself): start a stub, typed clients
 * per key, raw requests for malformed input, and small fixtures that go through HTTP.
 */
import { expect } from 'vitest';
import { createSeoClient, type SeoClient } from '../../generated/seo/client.gen.js';
import { createSeoApp, type SeoAppOptions } from '../../server-stubs/seo/app.js';
import { contractChecker } from '../../scripts/lib/contract-checker.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';
import { bearerRaw } from '../helpers/raw.js';

export const KEY = 'seo_test_key';
export const KEY_2 = 'seo_test_key_2';

export const contract = contractChecker('seo');

export interface SeoStub {
  app: ReturnType<typeof createSeoApp>;
  stub: RunningStub;
  baseUrl: string;
  /** typed client for a key (default: organization 1) */
  client(key?: string): SeoClient;
  close(): Promise<void>;
}

export async function startSeo(options: SeoAppOptions = {}): Promise<SeoStub> {
  const app = createSeoApp(options);
  const stub = await serveStub(app, app.basePath);
  return {
    app,
    stub,
    baseUrl: stub.baseUrl,
    client: (key = KEY) => createSeoClient({ baseUrl: stub.baseUrl, headers: { Authorization: `Bearer ${key}` } }),
    close: () => stub.close(),
  };
}

export const raw = bearerRaw(KEY);
export type { RawResponse } from '../helpers/raw.js';

/** Asserts an error response: status, seo error code, and the body valid for that status in the contract. */
export function expectError(
  res: { status: number; body: unknown },
  status: number,
  code: string,
  where: { path: string; method: string },
): void {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { code } });
  expect(typeof (res.body as { error?: unknown }).error).toBe('string');
  expect(contract.responseErrors(where.path, where.method, status, res.body)).toEqual([]);
}

/** The `{status, body}` of an openapi-fetch result, whichever of data/error holds the body. */
export function outcome(result: { data?: unknown; error?: unknown; response: Response }): { status: number; body: unknown } {
  return { status: result.response.status, body: result.response.ok ? result.data : result.error };
}

export async function newProject(client: SeoClient, name = 'Test project', domain: string | null = 'example.com'): Promise<string> {
  const { data, response } = await client.POST('/projects', { body: { name, domain } });
  expect(response.status).toBe(201);
  expect(contract.responseErrors('/projects', 'post', 201, data)).toEqual([]);
  return data!.project.id;
}

export async function newConfig(
  client: SeoClient,
  projectId: string,
  extra: { domain?: string; locationCode?: number; scheduleInterval?: 'daily' | 'weekly' | 'monthly'; serpDepth?: number; devices?: 'desktop' | 'mobile' | 'both' } = {},
): Promise<string> {
  const { data, response } = await client.POST('/rank-tracking/configs', {
    body: { projectId, domain: 'example.com', serpDepth: 20, ...extra },
  });
  expect(response.status).toBe(201);
  expect(contract.responseErrors('/rank-tracking/configs', 'post', 201, data)).toEqual([]);
  return data!.configId;
}

export async function addKeywords(client: SeoClient, projectId: string, configId: string, keywords: string[]) {
  const result = await client.POST('/rank-tracking/keywords', { body: { projectId, configId, keywords } });
  const o = outcome(result);
  expect(contract.responseErrors('/rank-tracking/keywords', 'post', o.status, o.body)).toEqual([]);
  return { ...o, data: result.data, response: result.response };
}

export async function startCrawl(client: SeoClient, projectId: string, startUrl: string, extra: { maxPages?: number; strategy?: 'auto' | 'all' | 'manual' | 'none' } = {}) {
  const result = await client.POST('/crawl/start', { body: { projectId, startUrl, ...extra } });
  const o = outcome(result);
  expect(contract.responseErrors('/crawl/start', 'post', o.status, o.body)).toEqual([]);
  return { ...o, data: result.data, response: result.response };
}

export async function crawlStatus(client: SeoClient, projectId: string, jobId: string) {
  const result = await client.GET('/crawl/{jobId}/status', { params: { path: { jobId }, query: { projectId } } });
  const o = outcome(result);
  expect(contract.responseErrors('/crawl/{jobId}/status', 'get', o.status, o.body)).toEqual([]);
  return { ...o, data: result.data };
}

/** Reads a whole audit stream as a client would and validates every frame against the contract. */
export async function readStream(baseUrl: string, projectId: string, jobId: string, key = KEY) {
  const response = await fetch(`${baseUrl}/crawl/${jobId}/stream?projectId=${projectId}`, {
    headers: { Authorization: `Bearer ${key}`, Accept: 'text/event-stream' },
  });
  const text = await response.text();
  if (response.status !== 200) {
    return { response, text, frames: [] as Array<{ event?: string; data: unknown }>, comments: [] as string[], errors: [] as string[], body: JSON.parse(text) as unknown };
  }
  const parsed = contract.streamErrors('/crawl/{jobId}/stream', 'get', text);
  return { response, text, frames: parsed.frames as Array<{ event?: string; data: unknown }>, comments: parsed.comments, errors: parsed.errors, body: undefined as unknown };
}

export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
