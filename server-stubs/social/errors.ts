import { describeIssues, type ErrorMapper } from '../lib/errors.js';

/**
 * The social error body, `{error}`, for every failure of the service; the free-tier refusal keeps
 * its published extras `count` and `limit` (nothing else a handler passes reaches the client).
 */
export const socialErrors: ErrorMapper = (failure) => {
  switch (failure.kind) {
    case 'validation':
    case 'payload_too_large':
    case 'unsupported_media_type':
      return { status: failure.status, body: { error: describeIssues(failure) } };
    case 'api': {
      const { count, limit } = failure.extras ?? {};
      const figures = typeof count === 'number' && typeof limit === 'number' ? { count, limit } : {};
      return { status: failure.status, body: { error: failure.message, ...figures } };
    }
    default:
      return { status: failure.status, body: { error: failure.message } };
  }
};
