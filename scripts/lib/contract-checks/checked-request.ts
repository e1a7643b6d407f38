/** One request of a check sent, and its answer judged into the check's result. */
import type { OperationInfo } from '../../../server-stubs/lib/contract.js';
import type { BuiltRequest } from '../example-request.js';
import { curlLine, describeObserved, type FuzzRequest, type Observed } from '../fuzz/wire.js';
import type { CheckKind, CheckResult } from './check-result.js';
import type { ContractRunContext } from './run-context.js';

/** A judge's verdict on an answer: its problems ([] when it keeps the contract), or why it proves nothing. */
export type Verdict = string[] | 'not implemented' | { skipped: string };

/** Sends one request with the run's one-at-a-time sender and judges the answer. */
export async function checkRequest(
  run: ContractRunContext,
  kind: CheckKind,
  name: string,
  r: FuzzRequest,
  judge: (o: Observed) => Verdict,
  operation?: OperationInfo,
): Promise<CheckResult> {
  const observed = await run.sender.send('', r);
  run.noteCreated(r.method, r.path, observed, r.headers);
  const verdict = judge(observed);
  const replay = `${curlLine('', r, run.baseUrl)}\n← ${describeObserved(observed)}`;
  const contentType = [observed.headers['content-type'] ?? []].flat().join(', ');
  const call = operation && !observed.error ? { call: { operationId: operation.id, status: observed.status, contentType } } : {};
  if (verdict === 'not implemented') return { kind, name, outcome: 'skipped', message: 'not implemented (501)', details: replay, ms: observed.ms, ...call };
  if ('skipped' in verdict) return { kind, name, outcome: 'skipped', message: verdict.skipped, details: replay, ms: observed.ms, ...call };
  if (verdict.length === 0) return { kind, name, outcome: 'passed', ms: observed.ms, ...call };
  return { kind, name, outcome: 'failed', message: verdict.join('; '), details: `${verdict.map((v) => `- ${v}`).join('\n')}\n${replay}`, ms: observed.ms, ...call };
}

/** An example request as the sender's plain data, so it is sent and replayed like a fuzz case. */
export function asWireRequest(built: BuiltRequest, kind: string): FuzzRequest {
  const headers = Object.fromEntries(Object.entries((built.init.headers ?? {}) as Record<string, string>));
  const body = typeof built.init.body === 'string' ? [built.init.body] : undefined;
  return { case: kind, method: String(built.init.method ?? 'GET'), path: built.url, query: [], headers, body, expect: 'any' };
}

/** A request for the path no operation matches. */
export function unknownPathRequest(run: ContractRunContext, kind: string): FuzzRequest {
  return run.withExtra({ case: kind, method: 'GET', path: run.unknownPath, query: [], headers: {}, expect: 'any' });
}
