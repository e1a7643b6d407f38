/**
 * Shared helpers of the social behaviour tests (not a test file itself): a stub on a manual clock,
 * typed clients per key, raw requests for what the typed client cannot send, and small fixtures
 * that go through HTTP.
 */
import { expect } from 'vitest';
import { createSocialClient, type components, type SocialClient } from '../../generated/social/client.gen.js';
import { contractChecker } from '../../scripts/lib/contract-checker.js';
import { createManualClock, type StubClock } from '../../server-stubs/lib/clock.js';
import { createSocialApp, type SocialAppOptions } from '../../server-stubs/social/app.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';
import { bearerRaw } from '../helpers/raw.js';

export const KEY = 'social_test_key';
export const FREE_KEY = 'social_test_free';

export const contract = contractChecker('social');

/** The manual clock's start: 2026-01-15T09:30:00Z (createManualClock's default). */
export const START = Date.parse('2026-01-15T09:30:00Z');
export const HOUR = 3_600_000;
export const MINUTE = 60_000;
export const iso = (ms: number) => new Date(ms).toISOString();

export interface SocialStub {
  app: ReturnType<typeof createSocialApp>;
  stub: RunningStub;
  clock: StubClock;
  baseUrl: string;
  /** typed client for a key (default: the Pro workspace) */
  client(key?: string): SocialClient;
  close(): Promise<void>;
}

export async function startSocial(options: SocialAppOptions = {}): Promise<SocialStub> {
  const clock = createManualClock(START);
  const app = createSocialApp({ clock, ...options });
  const stub = await serveStub(app, app.basePath);
  return {
    app,
    stub,
    clock,
    baseUrl: stub.baseUrl,
    client: (key = KEY) => createSocialClient({ baseUrl: stub.baseUrl, headers: { Authorization: `Bearer ${key}` } }),
    close: () => stub.close(),
  };
}

/** The clock's "now" plus `ms`, as the ISO string the API takes. */
export const after = (s: SocialStub, ms: number) => iso(s.clock.now() + ms);

export const raw = bearerRaw(KEY);
export type { RawResponse } from '../helpers/raw.js';

/** The `{status, body}` of an openapi-fetch result, whichever of data/error holds the body. */
export function outcome(result: { data?: unknown; error?: unknown; response: Response }): { status: number; body: unknown } {
  return { status: result.response.status, body: result.response.ok ? result.data : result.error };
}

/** Asserts an error answer: its status, an `{error}` message matching `message`, and the body valid for that status in the contract. */
export function expectError(res: { status: number; body: unknown }, status: number, message: RegExp, where: { path: string; method: string }): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect((res.body as { error?: unknown }).error).toMatch(message);
  expect(contract.responseErrors(where.path, where.method, status, res.body)).toEqual([]);
}

export type ScheduleBody = components['schemas']['ScheduleRequest'];
export type UpdateBody = components['schemas']['UpdatePostRequest'];

/** Schedules a post and returns the whole result, its body checked against the contract whatever the status. */
export async function schedule(client: SocialClient, body: ScheduleBody) {
  const result = await client.POST('/api/schedule', { body });
  const o = outcome(result);
  expect(contract.responseErrors('/api/schedule', 'post', o.status, o.body)).toEqual([]);
  return { ...o, data: result.data, error: result.error, response: result.response };
}

/** Schedules a post that must be created; returns it. */
export async function newPost(client: SocialClient, body: ScheduleBody) {
  const result = await schedule(client, body);
  expect(result.status, JSON.stringify(result.body)).toBe(201);
  return result.data!.post;
}

export async function edit(client: SocialClient, id: string, body: UpdateBody) {
  const result = await client.PATCH('/api/posts/{id}', { params: { path: { id } }, body });
  const o = outcome(result);
  expect(contract.responseErrors('/api/posts/{id}', 'patch', o.status, o.body)).toEqual([]);
  return { ...o, data: result.data };
}

export async function listPosts(client: SocialClient, query: { status?: components['schemas']['PostStatus']; platform?: components['schemas']['Platform'] } = {}) {
  const result = await client.GET('/api/posts', { params: { query } });
  expect(result.response.status).toBe(200);
  expect(contract.responseErrors('/api/posts', 'get', 200, result.data)).toEqual([]);
  return result.data!.posts;
}

export async function stats(client: SocialClient) {
  const result = await client.GET('/api/stats');
  expect(result.response.status).toBe(200);
  expect(contract.responseErrors('/api/stats', 'get', 200, result.data)).toEqual([]);
  return result.data!;
}

export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** `value` is `exact` rounded to 4 decimals: a whole number of ten-thousandths, at most half of one away. */
export function expectRoundedTo4Decimals(value: number, exact: number) {
  const tenThousandths = value * 10_000;
  expect(Math.abs(tenThousandths - Math.round(tenThousandths)), `${value} has more than 4 decimals`).toBeLessThan(1e-6);
  expect(Math.abs(tenThousandths - exact * 10_000), `${value} is not ${exact} rounded to 4 decimals`).toBeLessThanOrEqual(0.5 + 1e-6);
}
