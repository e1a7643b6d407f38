import { describeIssues, type ErrorMapper } from '../lib/errors.js';

/**
 * The blog error body, `{error, code?, upgrade?}`, for every failure of the service. The rate limit's
 * code is `rate_limited`, never `plan_limit_exceeded`: clients branch on that code, not on 429.
 */
export const blogErrors: ErrorMapper = (failure) => {
  const body = (code: string, error = failure.message) => ({ status: failure.status, body: { error, code } });
  switch (failure.kind) {
    case 'validation':
    case 'payload_too_large':
    case 'unsupported_media_type':
      return body('invalid_request', describeIssues(failure));
    case 'unauthenticated':
    case 'forbidden':
      return body('unauthorized');
    case 'not_found':
      return body('not_found');
    case 'method_not_allowed':
      return body('method_not_allowed');
    case 'rate_limited':
      return body('rate_limited');
    case 'api': {
      const upgrade = failure.extras?.upgrade;
      return { status: failure.status, body: { error: failure.message, code: failure.code ?? 'internal_error', ...(upgrade !== undefined && { upgrade }) } };
    }
    case 'not_implemented':
    case 'internal':
      return body('internal_error');
  }
};
