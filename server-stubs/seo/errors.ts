import { describeIssues, type ErrorMapper } from '../lib/errors.js';

/** The seo error body, `{error, code}`, for every failure of the service. */
export const seoErrors: ErrorMapper = (failure) => {
  switch (failure.kind) {
    case 'validation':
    case 'unsupported_media_type':
      return { status: 400, body: { error: describeIssues(failure), code: 'VALIDATION_ERROR' } };
    case 'unauthenticated':
    case 'forbidden':
      return { status: 401, body: { error: failure.message, code: 'UNAUTHENTICATED' } };
    case 'not_found':
    case 'method_not_allowed':
      return { status: 404, body: { error: failure.message, code: 'NOT_FOUND' } };
    case 'rate_limited':
      return { status: 429, body: { error: failure.message, code: 'RATE_LIMITED' } };
    case 'api':
      return { status: failure.status, body: { error: failure.message, code: failure.code ?? 'INTERNAL_ERROR' } };
    case 'not_implemented':
    case 'internal':
      return { status: 500, body: { error: failure.message, code: 'INTERNAL_ERROR' } };
  }
};
