import type { ValidationResult } from '../../generated/schemas/chain-rpc/index.gen.js';
import { ChainRpcError } from './errors.js';
import { checkResult, readEnvelope, rpcError } from './jsonrpc.js';

export interface HttpCallSettings {
  endpoint: string;
  /** sent with every call (the API key's `authorization` among them) */
  headers: Record<string, string>;
  timeoutMs: number;
  fetch: typeof fetch;
  /** a closed client refuses calls */
  isClosed: () => boolean;
}

/** An answer as it came off the wire: its status and its text. */
interface RawAnswer {
  response: Response;
  text: string;
}

/**
 * JSON-RPC 2.0 calls over HTTP POST: each call is sent, its answer read as JSON, its envelope
 * checked (the request's id, or an error), and its result checked against the published schema.
 */
export function createHttpCaller(settings: HttpCallSettings) {
  let nextId = 1;
  return async function call<T>(method: string, params: unknown, check: (x: unknown) => ValidationResult<T>): Promise<T> {
    if (settings.isClosed()) throw new ChainRpcError('closed', `${method}: the client is closed`, { method });
    const id = nextId++;
    const answer = await post(settings, method, { jsonrpc: '2.0', id, method, params });
    const body = parseAnswer(method, answer);
    return resultOf(method, id, body, answer.response.status, check);
  };
}

/** Sends one call, within the timeout; a transport failure or the timeout is a ChainRpcError. */
async function post(settings: HttpCallSettings, method: string, request: object): Promise<RawAnswer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), settings.timeoutMs);
  try {
    const response = await settings.fetch(settings.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...settings.headers },
      body: JSON.stringify(request),
      signal: controller.signal,
    });
    return { response, text: await response.text() };
  } catch (err) {
    if (controller.signal.aborted) throw new ChainRpcError('timeout', `${method}: no answer within ${settings.timeoutMs} ms`, { method, cause: err });
    throw new ChainRpcError('transport', `${method}: ${err instanceof Error ? err.message : String(err)}`, { method, cause: err });
  } finally {
    clearTimeout(timer);
  }
}

/** The answer's JSON; text that is not JSON is a transport failure on an HTTP error, else an invalid answer. */
function parseAnswer(method: string, { response, text }: RawAnswer): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!response.ok) {
      throw new ChainRpcError('transport', `${method}: HTTP ${response.status} without a JSON-RPC body`, { method, status: response.status, data: text, cause: err });
    }
    throw new ChainRpcError('invalid_response', `${method}: the node's answer is not JSON`, { method, status: response.status, data: text, issues: [{ path: '', message: 'must be JSON' }], cause: err });
  }
}

/** The call's result from a JSON-RPC envelope: the request's own id, no error, a result the schema holds. */
function resultOf<T>(method: string, id: number, body: unknown, status: number, check: (x: unknown) => ValidationResult<T>): T {
  let env;
  try {
    env = readEnvelope(body, method);
  } catch (err) {
    if (!(status >= 200 && status < 300) && err instanceof ChainRpcError) {
      throw new ChainRpcError('transport', `${method}: HTTP ${status} without a JSON-RPC body`, { method, status, data: body, cause: err });
    }
    throw err;
  }
  // JSON-RPC answers errors it could not tie to a request (unparsable or oversized body) with id null.
  if (env.kind === 'error' && env.id === null) throw rpcError(method, env, status);
  if (env.id !== id) {
    throw new ChainRpcError('invalid_response', `${method}: the answer's id ${JSON.stringify(env.id)} is not the request's ${id}`, {
      method,
      data: body,
      issues: [{ path: '/id', message: `must be ${id}` }],
    });
  }
  if (env.kind === 'error') throw rpcError(method, env, status);
  return checkResult(method, env.result, check);
}
