/**
 * One way for a handler to fail: throw an ApiError with the service's code. The service's error
 * mapper turns it, and every validator, auth and rate-limit failure, into the published error body.
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
  | 'unsupported_media_type'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found' // no such route
  | 'method_not_allowed'
  | 'rate_limited'
  | 'api' // thrown by a handler as ApiError
  | 'not_implemented' // a contract operation the stub does not implement yet
  | 'internal';

export interface Failure {
  kind: FailureKind;
  status: number;
  message: string;
  code?: string | undefined;
  extras?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Validation issues: `{path, message}` with `path` like `body.serpDepth` or `query.projectId`. */
  issues?: Array<{ path: string; message: string }>;
  /** The contract operation the request matched, when it matched one (set before mapping). */
  operation?: { id: string; tags: string[] } | undefined;
}

export interface ErrorResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A service's published error body, built in one place per service. */
export type ErrorMapper = (failure: Failure) => ErrorResponse;

/** Validation issues as one readable sentence, for services whose body has a single message. */
export function describeIssues(failure: Failure): string {
  if (!failure.issues?.length) return failure.message;
  return failure.issues.map((i) => (i.path ? `${i.path} ${i.message}` : i.message)).join('; ');
}
