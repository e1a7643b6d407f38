/**
 * Shared helpers of the dev behaviour tests (not a test file itself): start a stub, a typed client
 * per key, raw requests for malformed input, and the error-body assertion.
 */
import { expect } from 'vitest';
import { createDevClient, type DevClient } from '../../generated/dev/client.gen.js';
import { contractChecker } from '../../scripts/lib/contract-checker.js';
import { createDevApp, type DevAppOptions } from '../../server-stubs/dev/app.js';
import type { RetrievedSource, Retriever } from '../../server-stubs/lib/retrieval.js';
import { serveStub } from '../helpers/stub.js';
import type { AnswerBody } from '../helpers/answer-body.js';

export const KEY = 'dev_test_key';
export const SEARCH = '/v1/search';

export const contract = contractChecker('dev');

export interface DevStub {
  baseUrl: string;
  client(key?: string): DevClient;
  close(): Promise<void>;
}

export async function startDev(options: DevAppOptions = {}): Promise<DevStub> {
  const app = createDevApp(options);
  const stub = await serveStub(app, app.basePath);
  return {
    baseUrl: stub.baseUrl,
    client: (key = KEY) => createDevClient({ baseUrl: stub.baseUrl, headers: { Authorization: `Bearer ${key}` } }),
    close: () => stub.close(),
  };
}

export interface RawResponse {
  status: number;
  headers: Headers;
  body: AnswerBody;
}

/** A POST as a client without the typed client sends it; a string body goes verbatim. */
export async function postSearch(
  baseUrl: string,
  body: unknown,
  options: { key?: string | null; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (options.key !== null) headers.Authorization = `Bearer ${options.key ?? KEY}`;
  Object.assign(headers, options.headers ?? {});
  const response = await fetch(`${baseUrl}${SEARCH}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** An error answer: its status, `{error: {message, type, code}}`, and valid for that status in the contract. */
export function expectError(res: { status: number; body: AnswerBody }, status: number, type: string, code: string): void {
  expect({ status: res.status, type: res.body?.error?.type, code: res.body?.error?.code }).toEqual({ status, type, code });
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.message.length).toBeGreaterThan(0);
  expect(contract.responseErrors(SEARCH, 'post', status, res.body)).toEqual([]);
}

/** A 200 answer valid against the contract; its body. */
export function expectCompletion(res: { status: number; body: AnswerBody }) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(contract.responseErrors(SEARCH, 'post', 200, res.body)).toEqual([]);
  return res.body as {
    id: string;
    object: string;
    model: string;
    grounded: boolean;
    answer: string;
    annotations: Array<{ type: string; url_citation: { start_index: number; end_index: number; url: string; title: string } }>;
    sources: Array<{ url: string; title: string; snippet: string }>;
    usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  };
}

/** A retriever that answers fixed sources and records what it was asked. */
export function recordingRetriever(sources: RetrievedSource[]): Retriever & { calls: Array<{ query: string; limit: number | undefined }> } {
  const calls: Array<{ query: string; limit: number | undefined }> = [];
  return {
    calls,
    async search(query, options) {
      calls.push({ query, limit: options?.limit });
      return sources.slice(0, options?.limit ?? sources.length);
    },
  };
}

export const fixedSources: RetrievedSource[] = Array.from({ length: 12 }, (_, i) => ({
  url: `https://docs.example.com/fixture/page-${i}`,
  title: `Fixture page ${i}`,
  snippet: `Fixture fact number ${i} — with a non-ASCII “quote” and an emoji 🚀.`,
  score: 100 - i,
}));
