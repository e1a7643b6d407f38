/**
 * What is wrong with one answer to an operation, as the examples, negative and scenario checks hold
 * it to the contract: its status, then its media type and body.
 */
import type { OpenAPI3 } from 'openapi-typescript';
import { declares, documentsOnlyFailures, responseKeyFor, type OperationInfo } from '../../../server-stubs/lib/contract.js';
import { deref } from '../../../server-stubs/lib/openapi/document.js';
import { essence, isJsonType } from '../../../server-stubs/lib/media-types.js';
import type { ContractChecker } from '../contract-checker.js';
import type { Observed } from '../fuzz/wire.js';

/** The statuses a check allows (401 for a call without credentials, a 4xx for a malformed body). */
export interface ExpectedAnswer {
  statuses: (status: number) => boolean;
  what: string;
  /** hold the answer to its status only, not its body */
  statusOnly?: boolean | undefined;
}

/** What an answer is held against: the contract, and where schemas that could not be compiled are named. */
export interface AnswerContext {
  checker: ContractChecker;
  document: OpenAPI3;
  /** schemas that could not be compiled: the server is not to blame for them */
  unchecked?: Set<string>;
}

/** The media type an answer says it carries, without its parameters. */
export function mediaTypeOf(o: Observed): string {
  const value = o.headers['content-type'];
  const header = Array.isArray(value) ? value.join(', ') : value;
  return essence(header ?? '');
}

/** What is wrong with an answer to an operation: [] when it keeps the contract. */
export function answerProblems(context: AnswerContext, operation: OperationInfo, o: Observed, expect?: ExpectedAnswer): string[] {
  if (o.error) return [`no answer: ${o.error}`];
  const key = responseKeyFor(operation, o.status);
  const problems = statusProblems(operation, o, key, expect);
  if (!key || expect?.statusOnly) return problems;
  return [...problems, ...bodyProblems(context, operation, o, key)];
}

function statusProblems(operation: OperationInfo, o: Observed, key: string | undefined, expect?: ExpectedAnswer): string[] {
  const problems: string[] = [];
  const declared = Object.keys(operation.op.responses ?? {});
  if (!key) problems.push(`status ${o.status} is not declared (declared: ${declared.join(', ')})`);
  if (expect && !expect.statuses(o.status)) problems.push(`expected ${expect.what}, got ${o.status}`);
  // A 5xx the check asked for (a scenario's documented refusal: an upstream down, 502), or the one
  // answer an operation documents, is an answer, not a crash.
  if (o.status >= 500 && o.status !== 501 && !expect?.statuses(o.status) && !(key && documentsOnlyFailures(operation))) problems.push(`server error ${o.status}`);
  return problems;
}

/** The answer's media type and body against the response declared for its status (`key`). */
function bodyProblems(context: AnswerContext, operation: OperationInfo, o: Observed, key: string): string[] {
  const content = deref(context.document, operation.op.responses?.[key])?.content ?? {};
  const type = mediaTypeOf(o);
  if (Object.keys(content).length === 0) return o.body !== '' ? [`a body on ${o.status}, which is declared without content`] : [];
  if (o.body === '' && (o.status === 204 || o.status === 304)) return [];
  const mediaType = Object.keys(content).find((t) => t.toLowerCase() === type);
  if (!mediaType) return [`media type ${type || '(none)'} is not declared for ${o.status} (declared: ${Object.keys(content).join(', ')})`];
  const compiled = <T>(what: () => T): T | undefined => {
    try {
      return what();
    } catch (error) {
      context.unchecked?.add(`${operation.label} ${key} ${mediaType}: the schema cannot be compiled (${(error as Error).message.split('\n')[0]})`);
      return undefined;
    }
  };
  if (mediaType === 'text/event-stream') {
    // A stream cut short is checked as it is: the parser dispatches only the frames that arrived whole.
    const stream = compiled(() => context.checker.streamErrors(operation.path, operation.method, o.body, key));
    if (!stream) return [];
    const problems = stream.errors.slice(0, 5).map((e) => `event stream ${e}`);
    if (stream.frames.length === 0 && o.body.trim() !== '' && !o.truncated) problems.push('event stream without a single frame');
    return problems;
  }
  if (!isJsonType(mediaType)) return [];
  if (o.truncated) return ['body longer than 8 MB: not checked'];
  let body: unknown;
  try {
    body = JSON.parse(o.body);
  } catch (error) {
    return [`body is not JSON: ${(error as Error).message.slice(0, 80)}`];
  }
  const errors = compiled(() => context.checker.responseErrors(operation.path, operation.method, key, body, mediaType)) ?? [];
  return errors.slice(0, 5).map((e) => `body ${e}`);
}

/**
 * A refusal the contract does not declare, answered as DECISIONS I-2 says a contract-only service
 * answers it: the status asked for, in RFC 9457 problem+json.
 */
export function problemFallback(operation: OperationInfo, o: Observed, status: (s: number) => boolean): boolean {
  return !o.error && status(o.status) && !declares(operation, o.status) && mediaTypeOf(o) === 'application/problem+json';
}
