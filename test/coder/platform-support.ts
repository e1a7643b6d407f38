/**
 * Helpers of the coder platform tests (not a test file): a coder stub on a manual clock with a
 * recording model router, and raw requests for what no SDK sends.
 */
import { createManualClock } from '../../server-stubs/lib/clock.js';
import { createCoderApp, type CoderAppOptions } from '../../server-stubs/coder/app.js';
import type { ChatRouter, RouterRequest } from '../../server-stubs/coder/router.js';
import { contractChecker } from '../../scripts/lib/contract-checker.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';
import type { AnswerBody } from '../helpers/answer-body.js';

export const KEY = 'coder_test_key';
export const KEY_2 = 'coder_test_key_2';
export const contract = contractChecker('coder');

/**
 * A router that answers `<model> heard <n> messages: <last user text>` and remembers every request,
 * so a test sees exactly what the gateway sent it. `max_tokens` cuts the answer to that many words.
 */
export function recordingRouter(): ChatRouter & { requests: RouterRequest[] } {
  const requests: RouterRequest[] = [];
  return {
    requests,
    models: () => [
      { id: 'test-fast', owned_by: 'gateway', created: 1767225600, context_window: 32768, max_output_tokens: 4096, description: 'Quick test model' },
      { id: 'test-large', owned_by: 'gateway', created: 1767225600, context_window: 131072, max_output_tokens: 8192, description: 'Large test model' },
    ],
    complete: async (request) => {
      requests.push(structuredClone(request));
      const last = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
      const words = `${request.model} heard ${request.messages.length} messages: ${last}`.split(' ');
      const cut = request.max_tokens !== undefined && words.length > request.max_tokens;
      const content = (cut ? words.slice(0, request.max_tokens) : words).join(' ');
      return { content, finish_reason: cut ? 'length' : 'stop', usage: { prompt_tokens: 10, completion_tokens: content.split(' ').length } };
    },
  };
}

export interface CoderStub {
  app: ReturnType<typeof createCoderApp>;
  stub: RunningStub;
  baseUrl: string;
  router: ReturnType<typeof recordingRouter>;
  close(): Promise<void>;
}

export async function startCoder(options: CoderAppOptions = {}): Promise<CoderStub> {
  const router = recordingRouter();
  // A tool server's handshake is a Node process starting: the documented 5 s limit holds on a quiet
  // machine, not on a loaded CI runner, and no test here is about that limit.
  const platform = { mcpConnectTimeoutMs: 120_000, ...options.platform };
  const app = createCoderApp({ clock: createManualClock(), chatRouter: router, ...options, platform });
  const stub = await serveStub(app, app.basePath);
  return { app, stub, baseUrl: stub.baseUrl, router, close: () => stub.close() };
}

export interface RawResponse {
  status: number;
  headers: Headers;
  body: AnswerBody;
  text: string;
}

/** A JSON request with a key (null: none); `body` as a string is sent verbatim. */
export async function call(baseUrl: string, method: string, path: string, options: { body?: unknown; key?: string | null } = {}): Promise<RawResponse> {
  const headers: Record<string, string> = {};
  if (options.key !== null) headers.authorization = `Bearer ${options.key ?? KEY}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(options.body !== undefined && { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body: body as AnswerBody, text };
}

/** The answer is valid for its status in the contract (errors in the route family's body included). */
export function contractErrors(path: string, method: string, res: RawResponse): string[] {
  return contract.responseErrors(path, method, res.status, res.body);
}
