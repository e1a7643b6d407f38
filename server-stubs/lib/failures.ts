import type { Request } from 'express';
import { badInputStatus, declares, type OperationInfo } from './contract.js';
import { ApiError, failedOperation, INVALID_JSON, type Failure, type FailureKind } from './errors.js';

const FAILURE = Symbol('failure');

/** A failure the framework raises itself (not thrown by a handler). */
export function failureOf(kind: FailureKind, status: number, message: string, more: Partial<Failure> = {}): Failure {
  return Object.assign({ kind, status, message, ...more }, { [FAILURE]: true });
}

/** What a service refuses in a request the contract admits: messages per field, and about the request as a whole. */
export interface RequestRefusal {
  fieldErrors?: Record<string, string[]>;
  formErrors?: string[];
}

/**
 * Refuses a request the contract admits but the service does not (an unknown id, a range the
 * other way round): a validation failure like the validator's, shaped by the service's error mapper.
 */
export function invalidRequest(refusal: RequestRefusal): never {
  const issues = [
    ...Object.entries(refusal.fieldErrors ?? {}).flatMap(([field, messages]) => messages.map((message) => ({ path: `body.${field}`, message }))),
    ...(refusal.formErrors ?? []).map((message) => ({ path: '', message })),
  ];
  throw failureOf('validation', 400, 'Validation failed', { issues });
}

export function isFailure(value: unknown): value is Failure {
  return typeof value === 'object' && value !== null && FAILURE in value;
}

/** body-parser's error types, by what they mean for the client. */
const bodyErrors: Record<string, { kind: FailureKind; status: number; code?: string; message: (e: ThrownError) => string }> = {
  'entity.parse.failed': { kind: 'validation', status: 400, code: INVALID_JSON, message: (e) => `Invalid JSON in request body${/finite/.test(e.message ?? '') ? `: ${e.message}` : ''}` },
  'entity.too.large': { kind: 'payload_too_large', status: 413, message: (e) => `Request body too large (limit ${e.limit} bytes)` },
  'parameters.too.many': { kind: 'payload_too_large', status: 413, message: () => 'Too many form fields in request body' },
  'charset.unsupported': { kind: 'unsupported_media_type', status: 415, message: (e) => `Unsupported charset "${e.charset}": send UTF-8` },
  'encoding.unsupported': { kind: 'unsupported_media_type', status: 415, message: (e) => `Unsupported content encoding "${e.encoding}"` },
  'request.aborted': { kind: 'validation', status: 400, message: () => 'Request body was cut off' },
  'request.size.invalid': { kind: 'validation', status: 400, message: () => 'Request body length does not match Content-Length' },
};

interface ThrownError {
  status?: number;
  code?: string;
  type?: string;
  message?: string;
  limit?: number;
  charset?: string;
  encoding?: string;
  errors?: Array<{ path?: string; message?: string }>;
}

/**
 * Anything thrown or passed to `next`, as a Failure whose status the operation declares. A failure
 * of the framework's own (413, 415, 405) folds into 400 where the operation does not declare it; a
 * handler's failure with an undeclared status is a bug in the handler, answered as one.
 */
export function failureFromThrown(error: unknown, req: Request, operation: OperationInfo | undefined = req.matched?.operation): Failure {
  const failure = isFailure(error) ? error : classify(error, req, operation);
  return operation ? declaredFailure(failure, operation) : failure;
}

function classify(error: unknown, req: Request, operation: OperationInfo | undefined): Failure {
  if (error instanceof ApiError) {
    return { kind: 'api', status: error.status, message: error.message, code: error.code, extras: error.extras, headers: error.headers };
  }
  const e = (error ?? {}) as ThrownError;
  // zlib's own words ("incorrect header check") say nothing of the request that caused them.
  if (typeof e.code === 'string' && e.code.startsWith('Z_')) {
    const encoding = String(req.headers['content-encoding'] ?? '');
    return { kind: 'validation', status: 400, message: `The body is not valid ${encoding} data (Content-Encoding: ${encoding}); send it encoded so, or without the header` };
  }
  const known = e.type ? bodyErrors[e.type] : undefined;
  if (known) {
    const message = known.message(e);
    return { kind: known.kind, status: known.status, code: known.code, message };
  }
  const status = e.status ?? 500;
  if ((status === 401 || status === 403) && req.authFailure) {
    // An auth failure keeps its kind, so each service answers it with its own auth error body.
    const auth = req.authFailure;
    return { kind: auth.status === 403 ? 'forbidden' : 'unauthenticated', status: auth.status, message: auth.message, code: auth.code, extras: auth.extras, headers: auth.headers };
  }
  if (status === 401) return { kind: 'unauthenticated', status, message: e.message ?? 'Unauthorized' };
  if (status === 403) return { kind: 'forbidden', status, message: e.message ?? 'Forbidden' };
  if (status === 404) return { kind: 'not_found', status, message: `No route ${req.method} ${req.originalUrl.split('?')[0]}` };
  if (status === 405) return { kind: 'method_not_allowed', status, message: `Method ${req.method} not allowed on ${req.originalUrl.split('?')[0]}` };
  if (status === 415) return { kind: 'unsupported_media_type', status, message: unsupportedType(req, operation) };
  if (status === 413) return { kind: 'payload_too_large', status, message: e.message ?? 'Request body too large' };
  if (status === 400) {
    const issues = (e.errors ?? []).map((i) => ({ path: readablePath(i.path), message: i.message ?? 'is invalid' }));
    return { kind: 'validation', status, message: e.message ?? 'Invalid request', issues };
  }
  // Everything else is a bug (a response off the contract included): the log has the detail,
  // the client a sentence without stack or file path.
  const problems = (e.errors ?? []).map((i) => `${readablePath(i.path)} ${i.message ?? ''}`.trim());
  const message = problems.length > 0 && /response/i.test(`${e.message ?? ''} ${problems.join(' ')}`)
    ? `Response does not match the contract: ${problems.join('; ')}`
    : 'Internal error in the stub; the server log has the detail';
  return { kind: 'internal', status: 500, message };
}

/** Folds a failure into a status its operation declares (DECISIONS G-2). */
export function declaredFailure(failure: Failure, operation: OperationInfo): Failure {
  if (failure.kind === 'not_implemented' || failure.kind === 'internal' || declares(operation, failure.status)) return failure;
  if (failure.kind === 'api') {
    return {
      kind: 'internal',
      status: 500,
      message: `The stub answered ${failure.status} (${failure.message}), a status ${operation.id} does not declare`,
    };
  }
  // 413 and 415 are bad requests too; an auth 403 where only 401 is declared is a refused credential.
  const fallback = failure.kind === 'forbidden' ? 401 : badInputStatus(operation);
  return declares(operation, fallback) ? { ...failure, status: fallback } : failure;
}

/** `/body/serpDepth` -> `body.serpDepth`; `/query/projectId` -> `query.projectId`. */
function readablePath(pointer: string | undefined): string {
  if (!pointer) return '';
  return pointer.replace(/^\//, '').replaceAll('/', '.');
}

/** Which media type was refused and which the operation takes (the validator says "unsupported media type undefined"). */
function unsupportedType(req: Request, operation: OperationInfo | undefined): string {
  const sent = req.headers['content-type'];
  const taken = operation ? failedOperation(operation).bodyTypes : [];
  const wanted = taken.length > 0 ? `; ${req.method} ${req.originalUrl.split('?')[0]} takes ${taken.join(', ')}` : '';
  return sent ? `Content-Type ${sent} is not accepted${wanted}` : `A request body needs a Content-Type${wanted}`;
}
