import { describeIssues, type ErrorMapper, type Failure } from '../lib/errors.js';
import { INVALID_JSON } from '../lib/service-router.js';

/**
 * The mail service's two published error bodies: `{error, error_description}` (RFC 6749 / 7591) on
 * the OAuth routes, `{success: false, error, details?}` everywhere else.
 */
export const mailErrors: ErrorMapper = (failure) =>
  failure.operation?.tags.includes('OAuth') ? oauthError(failure) : serviceError(failure);

function serviceError(failure: Failure) {
  const body = (error: string, extras: Record<string, unknown> = {}) => ({ success: false as const, error, ...extras });
  switch (failure.kind) {
    case 'validation':
      if (failure.code === INVALID_JSON) return { status: 400, body: body('Invalid JSON body') };
      return { status: 400, body: body('Validation failed', { details: { fieldErrors: fieldErrors(failure) } }) };
    case 'unsupported_media_type':
      return { status: 415, body: body('Content-Type must be application/json') };
    case 'unauthenticated':
      return { status: 401, body: body(failure.message) };
    case 'forbidden':
      return { status: 403, body: body(failure.message) };
    case 'not_found':
    case 'method_not_allowed':
      return { status: 404, body: body('Not found') };
    case 'rate_limited':
      return { status: 429, body: body('Rate limit exceeded') };
    case 'api':
      return { status: failure.status, body: body(failure.message, failure.extras) };
    case 'not_implemented':
      return { status: 501, body: body(failure.message) };
    case 'internal':
      return { status: 500, body: body(failure.message) };
  }
};

function oauthError(failure: Failure) {
  const body = (error: string, description: string) => ({ error, error_description: description });
  switch (failure.kind) {
    case 'validation':
    case 'unsupported_media_type':
      return { status: 400, body: body('invalid_request', describeIssues(failure)) };
    case 'unauthenticated':
    case 'forbidden':
      return { status: failure.status, body: body('access_denied', failure.message) };
    case 'api':
      return { status: failure.status, body: body(failure.code ?? 'invalid_request', failure.message) };
    case 'not_found':
    case 'method_not_allowed':
      return { status: 404, body: body('invalid_request', failure.message) };
    case 'rate_limited':
    case 'not_implemented':
      return { status: failure.status, body: body('temporarily_unavailable', failure.message) };
    case 'internal':
      return { status: failure.status, body: body('server_error', failure.message) };
  }
}

/** `body.to` / `query.limit` issues as `{to: [...], limit: [...]}`, the published `details.fieldErrors`. */
function fieldErrors(failure: Failure): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of failure.issues ?? []) {
    const field = issue.path.replace(/^(body|query|path|params|headers)\.?/, '') || '_';
    (out[field] ??= []).push(issue.message);
  }
  return out;
}
