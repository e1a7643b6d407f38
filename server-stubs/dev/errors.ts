import { describeIssues, INVALID_JSON, type ErrorMapper, type Failure } from '../lib/errors.js';

type ErrorType = 'invalid_request_error' | 'authentication_error' | 'rate_limit_error' | 'service_unavailable_error' | 'api_error';

/**
 * Validator wording rephrased for the published rules (DECISIONS dev-1, dev-2), so a client reads
 * what to change rather than which schema keyword failed.
 */
function invalidRequestMessage(failure: Failure): { message: string; code: string } {
  if (failure.code === INVALID_JSON) return { message: failure.message, code: 'invalid_json' };
  const issues = failure.issues ?? [];
  if (issues.some((i) => i.path === 'body.model')) return { message: 'Unknown model: `model` must be one of dev-pro, dev-flash', code: 'model_not_found' };
  const rephrased = issues.flatMap((issue) => {
    const { path, message } = issue;
    if (path === 'body' && /oneOf/.test(message)) return ['Send exactly one of `query` or `messages`'];
    if (/required property '(query|messages)'/.test(message)) return ['Send exactly one of `query` or `messages`'];
    // The `contains` check tries every turn against `role: user`; its per-turn misses are noise.
    if (/^body\.messages\.\d+\.role$/.test(path) && /equal to constant/.test(message)) return [];
    if (path === 'body.query' && /fewer than 1|pattern/.test(message)) return ['`query` must not be empty'];
    if (path === 'body.messages' && /fewer than 1/.test(message)) return ['`messages` must not be empty'];
    if (path === 'body.messages' && /contain/.test(message)) return ['`messages` must contain a user turn'];
    const turn = /^body\.messages\.(\d+)\.content$/.exec(path);
    if (turn && /fewer than 1|pattern/.test(message)) return [`\`messages[${turn[1]}].content\` must not be empty`];
    return [path ? `${path.replace(/^body\./, '')} ${message}` : message];
  });
  return { message: rephrased.length > 0 ? [...new Set(rephrased)].join('; ') : describeIssues(failure), code: 'invalid_request' };
}

/** The dev error body, `{error: {message, type, code}}` (DECISIONS dev-3), for every failure of the service. */
export const devErrors: ErrorMapper = (failure) => {
  const body = (type: ErrorType, code: string, message = failure.message) => ({ status: failure.status, body: { error: { message, type, code } } });
  switch (failure.kind) {
    case 'validation':
    case 'payload_too_large':
    case 'unsupported_media_type': {
      const { message, code } = invalidRequestMessage(failure);
      return body('invalid_request_error', code, message);
    }
    case 'unauthenticated':
    case 'forbidden':
      // Without a code the validator refused before the key was read: no bearer credential at all.
      return failure.code
        ? body('authentication_error', failure.code)
        : body('authentication_error', 'missing_api_key', 'Missing or invalid Authorization header');
    case 'not_found':
      return body('invalid_request_error', 'not_found');
    case 'method_not_allowed':
      return body('invalid_request_error', 'method_not_allowed');
    case 'rate_limited':
      return body('rate_limit_error', 'rate_limit_exceeded');
    case 'api':
      if (failure.status === 503) return body('service_unavailable_error', failure.code ?? 'retrieval_unavailable');
      return body('api_error', failure.code ?? 'internal_error');
    case 'not_implemented':
      return body('api_error', 'not_implemented');
    case 'internal':
      return body('api_error', 'internal_error');
  }
};
