/**
 * Shared helpers of the coder behaviour tests (not a test file itself): start the gateway with
 * its switches, the official Anthropic SDK aimed at it, raw requests, and streams read as a
 * client reads them with every frame held to the contract.
 */
import Anthropic from '@anthropic-ai/sdk';
import { createCoderApp, type CoderAppOptions } from '../../server-stubs/coder/app.js';
import { contractChecker } from '../../scripts/lib/contract-checker.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';
import { bearerRaw } from '../helpers/raw.js';
import type { AnswerBody } from '../helpers/answer-body.js';

export const KEY = 'coder_test_key';
export const KEY_2 = 'coder_test_key_2';

export const contract = contractChecker('coder');

export interface CoderStub {
  app: ReturnType<typeof createCoderApp>;
  stub: RunningStub;
  baseUrl: string;
  close(): Promise<void>;
}

export async function startCoder(options: CoderAppOptions = {}): Promise<CoderStub> {
  const app = createCoderApp(options);
  const stub = await serveStub(app, app.basePath);
  return { app, stub, baseUrl: stub.baseUrl, close: () => stub.close() };
}

/** The official SDK, unchanged: bearer (`authToken`) or `x-api-key` (`apiKey`); no retries, so a refusal is seen once. */
export function anthropic(baseUrl: string, credential: { authToken: string } | { apiKey: string } = { authToken: KEY }): Anthropic {
  return new Anthropic({ baseURL: baseUrl, maxRetries: 0, apiKey: null, authToken: null, ...credential });
}

export const raw = bearerRaw(KEY);
export type { RawResponse } from '../helpers/raw.js';

/** Asserts nothing itself: the contract problems of an answer (status declared, body valid for it). */
export function contractProblems(path: string, method: string, res: { status: number; body: unknown; text: string; headers: Headers }): string[] {
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return contract.streamErrors(path, method, res.text, res.status).errors;
  return contract.responseErrors(path, method, res.status, res.body);
}

/** An agent stream read whole, each frame checked against the contract. */
export async function agentStream(baseUrl: string, query: Record<string, string>, key = KEY) {
  const res = await raw(baseUrl, 'GET', `/api/v1/agent/stream?${new URLSearchParams(query)}`, { key });
  const parsed = res.status === 200 ? contract.streamErrors('/api/v1/agent/stream', 'get', res.text) : { frames: [], errors: [] };
  return { ...res, events: (parsed.frames as Array<{ data: AnswerBody }>).map((f) => f.data), errors: parsed.errors };
}
