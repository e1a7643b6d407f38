import { describeIssues, type ErrorMapper } from '../lib/errors.js';

/** The seo error body, `{error, code}`, for every failure of the service. */
export const seoErrors: ErrorMapper = (failure) => {
  const body = (code: string, error = failure.message) => ({ status: failure.status, body: { error, code } });
  switch (failure.kind) {
    case 'validation':
    case 'payload_too_large':
    case 'unsupported_media_type':
      return body('VALIDATION_ERROR', describeIssues(failure));
    case 'unauthenticated':
    case 'forbidden':
      return body('UNAUTHENTICATED');
    case 'not_found':
      return body('NOT_FOUND');
    case 'method_not_allowed':
      return body('METHOD_NOT_ALLOWED');
    case 'rate_limited':
      return body('RATE_LIMITED');
    case 'api':
      return body(failure.code ?? 'INTERNAL_ERROR');
    case 'not_implemented':
    case 'internal':
      return body('INTERNAL_ERROR');
  }
};
