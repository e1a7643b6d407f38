import type { ValidationIssue, ValidationResult } from '../../generated/schemas/chain-rpc/index.gen.js';
import { ChainRpcError } from './errors.js';

export type JsonRpcId = string | number;

export type Envelope = { kind: 'result'; id: unknown; result: unknown } | { kind: 'error'; id: unknown; code: number; message: string; data: unknown };

/**
 * Checks a JSON-RPC 2.0 response object; returns its parts or throws `invalid_response` with
 * readable issues.
 */
export function readEnvelope(value: unknown, method: string): Envelope {
  const issues: ValidationIssue[] = [];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ChainRpcError('invalid_response', `${method}: the node's answer is not a JSON-RPC response object`, { method, data: value, issues: [{ path: '', message: 'must be object' }] });
  }
  const v = value as Record<string, unknown>;
  if (v.jsonrpc !== '2.0') issues.push({ path: '/jsonrpc', message: "must be '2.0'" });
  if (!Object.hasOwn(v, 'id')) issues.push({ path: '', message: "must have required property 'id'" });
  const hasResult = Object.hasOwn(v, 'result');
  const hasError = Object.hasOwn(v, 'error');
  if (hasResult === hasError) issues.push({ path: '', message: 'must have exactly one of result and error' });
  let code = 0;
  let message = '';
  if (hasError && !hasResult) {
    const e = v.error as Record<string, unknown> | null;
    if (e === null || typeof e !== 'object') issues.push({ path: '/error', message: 'must be object' });
    else {
      if (typeof e.code !== 'number' || !Number.isInteger(e.code)) issues.push({ path: '/error/code', message: 'must be integer' });
      else code = e.code;
      if (typeof e.message !== 'string') issues.push({ path: '/error/message', message: 'must be string' });
      else message = e.message;
    }
  }
  if (issues.length) {
    throw new ChainRpcError('invalid_response', `${method}: malformed JSON-RPC response: ${formatIssues(issues)}`, { method, data: value, issues });
  }
  if (hasResult) return { kind: 'result', id: v.id, result: v.result };
  return { kind: 'error', id: v.id, code, message, data: (v.error as Record<string, unknown>).data };
}

export function rpcError(method: string, env: Extract<Envelope, { kind: 'error' }>, status?: number): ChainRpcError {
  return new ChainRpcError('rpc', `${method}: ${env.message} (${env.code})`, { method, code: env.code, data: env.data, ...(status === undefined ? {} : { status }) });
}

/** Validates a result with a generated validator; `invalid_response` with the readable errors otherwise. */
export function checkResult<T>(method: string, result: unknown, check: (x: unknown) => ValidationResult<T>): T {
  const r = check(result);
  if (r.ok) return r.value;
  throw new ChainRpcError('invalid_response', `${method}: ${r.message}`, { method, data: result, issues: r.errors });
}

/** Validates call params before sending; `invalid_request` with the readable errors otherwise. */
export function checkParams<T>(method: string, params: unknown, check: (x: unknown) => ValidationResult<T>): T {
  const r = check(params);
  if (r.ok) return r.value;
  throw new ChainRpcError('invalid_request', `${method}: ${r.message}`, { method, issues: r.errors });
}

export function formatIssues(issues: ValidationIssue[]): string {
  return issues.map((i) => `${i.path || '(root)'} ${i.message}`).join('; ');
}
