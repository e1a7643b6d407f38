import type { Operation } from './openapi/document.js';
/**
 * How a stub fails. A handler fails through its context's `fail(status, code, message)`, typed by
 * the statuses its operation declares; security handlers throw an ApiError. The service's error
 * mapper turns it, and every body-parser, validator, auth and rate-limit failure, into the
 * published error body.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** The service's error code (`NOT_FOUND`, `plan_limit_exceeded`, ...), if it publishes codes. */
    readonly code: string | undefined,
    message: string,
    /** Extra published fields of the body (`details`, `upgrade`, `feature`, ...). */
    readonly extras: Record<string, unknown> = {},
    /** Response headers, e.g. `Retry-After`. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Where a failure came from, before it takes a service's shape. */
export type FailureKind =
  | 'validation' // request did not match the contract, or was not JSON
  | 'payload_too_large' // body or its field count over the limit
  | 'unsupported_media_type' // content type or charset the operation does not take
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found' // no such route
  | 'method_not_allowed' // a known path, another method
  | 'rate_limited'
  | 'api' // a handler's failure
  | 'not_implemented' // a contract operation the stub does not implement yet
  | 'internal'; // a bug: logged in full, answered without detail

/** `Failure.code` of a body that is not valid JSON, for services that word it apart. */
export const INVALID_JSON = 'invalid_json';

export interface Failure {
  kind: FailureKind;
  /** The status answered: the framework has already folded it into one the operation declares. */
  status: number;
  message: string;
  code?: string | undefined;
  extras?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Validation issues: `{path, message}` with `path` like `body.serpDepth` or `query.projectId`. */
  issues?: Array<{ path: string; message: string }>;
  /** The contract operation the request matched, when it matched one (set before mapping). */
  operation?: FailedOperation | undefined;
  /**
   * Where it matched none: an operation of the route the request named (another method, a path
   * that is not valid percent-encoding, a path under it), for a mapper whose error body differs by
   * route. Never a reason to fold the status into that operation's.
   */
  near?: FailedOperation | undefined;
}

export interface FailedOperation {
  id: string;
  tags: string[];
  /** the media types its request body may have (none when it takes no body), for a 415 that names them */
  bodyTypes: string[];
}

/** What an error mapper may know of the operation a failed request matched. */
export function failedOperation(operation: Pick<Operation, 'id' | 'op'>): FailedOperation {
  // Read without the document: a body given as a `$ref` names no media types here.
  const body = operation.op.requestBody;
  return { id: operation.id, tags: operation.op.tags ?? [], bodyTypes: Object.keys((body && 'content' in body ? body.content : undefined) ?? {}) };
}

export interface ErrorResponse {
  status: number;
  /** the JSON body; undefined for an answer without one (or with `text`) */
  body: unknown;
  /** a body that is not JSON (an XML or text error a document declares), sent as it is */
  text?: string | Uint8Array;
  /** the body's media type: JSON unless given (`application/problem+json`, `application/xml`) */
  contentType?: string;
  headers?: Record<string, string>;
  /**
   * The same error as an HTML page, for the routes a person's browser lands on (an OAuth authorize
   * request with an unknown client): sent instead of the body when the request prefers HTML. The
   * operation must declare `text/html` for the status.
   */
  page?: string;
}

/** A service's published error body, built in one place per service. */
export type ErrorMapper = (failure: Failure) => ErrorResponse;

/** Validation issues as one readable sentence, for services whose body has a single message. */
export function describeIssues(failure: Failure): string {
  if (!failure.issues?.length) return failure.message;
  return failure.issues.map((i) => (i.path ? `${i.path} ${i.message}` : i.message)).join('; ');
}

/** Messages a validator gives for a composition as a whole; beside a field's own message they add nothing. */
const compositeNoise = new Set(['must NOT be valid', 'must match exactly one schema in oneOf', 'must match a schema in anyOf']);

const fieldOf = (path: string) => path.replace(/^(body|query|path|params|headers)\.?/, '');

/**
 * Issues as a reader should get them: the same message once per field; the composite messages at the
 * root dropped when a field says what is wrong; a field a branch forbids (`not: {}`) named as such.
 */
function readableIssues(failure: Failure): Array<{ field: string; message: string }> {
  const issues = (failure.issues ?? []).map((i) => ({ field: fieldOf(i.path), message: i.message }));
  const fieldSaid = issues.some((i) => i.field !== '');
  const seen = new Set<string>();
  return issues
    .filter((i) => !(fieldSaid && i.field === '' && compositeNoise.has(i.message)))
    .map((i) => (i.field !== '' && i.message === 'must NOT be valid' ? { ...i, message: 'is not allowed together with the other fields given' } : i))
    .filter((i) => {
      const key = JSON.stringify([i.field, i.message]);
      return !seen.has(key) && (seen.add(key), true);
    });
}

/**
 * Issues grouped by field (`body.to` -> `to`; the request as a whole is `_`), in a map without a
 * prototype: field names come from the request, and one named `__proto__` or `toString` must stay a field.
 */
export function issuesByField(failure: Failure): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null);
  for (const issue of readableIssues(failure)) (out[issue.field || '_'] ??= []).push(issue.message);
  return out;
}

/** For bodies with both: messages per field, and those about the request as a whole apart. */
export function fieldAndFormErrors(failure: Failure): { fieldErrors: Record<string, string[]>; formErrors: string[] } {
  const fieldErrors: Record<string, string[]> = Object.create(null);
  const formErrors: string[] = [];
  for (const issue of readableIssues(failure)) {
    if (issue.field === '') formErrors.push(issue.message);
    else (fieldErrors[issue.field] ??= []).push(issue.message);
  }
  return { fieldErrors, formErrors };
}
