import { describeIssues, type ErrorMapper, type Failure } from '../lib/errors.js';

/**
 * The gateway's three error bodies (DECISIONS coder-5), chosen by the operation's tag:
 * `{type: 'error', error: {type, message}}` on the messages routes, `{error: {message, type, param,
 * code}}` on the OpenAI-style routes, `{detail}` (422 `{detail: [{loc, msg, type}]}`) elsewhere. A
 * request that matched no operation is answered in the family of the route it named (another
 * method, a malformed path, a path under it: G-2), else in `{detail}`.
 */
export const coderErrors: ErrorMapper = (raw) => {
  const failure = publishedAuthMessage(raw);
  const tags = (failure.operation ?? failure.near)?.tags ?? [];
  if (tags.includes('Messages')) return anthropicError(failure);
  if (tags.includes('OpenAI')) return openaiError(failure);
  return detailError(failure);
};

/** The document publishes two 401 messages; the validator's own (`Authorization header required`) becomes the first. */
function publishedAuthMessage(failure: Failure): Failure {
  if (failure.kind !== 'unauthenticated' || failure.message === 'Invalid API key') return failure;
  return { ...failure, message: 'Missing or invalid Authorization header' };
}

/** The error `type` both vendor formats use for a failure kind. */
function vendorType(failure: Failure): string {
  switch (failure.kind) {
    case 'validation':
    case 'payload_too_large':
    case 'unsupported_media_type':
    case 'method_not_allowed':
      return 'invalid_request_error';
    case 'unauthenticated':
      return 'authentication_error';
    case 'forbidden':
      return 'permission_error';
    case 'not_found':
      return 'not_found_error';
    case 'rate_limited':
      return 'rate_limit_error';
    case 'api':
      return failure.code ?? 'api_error';
    case 'not_implemented':
    case 'internal':
      return 'api_error';
  }
}

function anthropicError(failure: Failure) {
  return { status: failure.status, body: { type: 'error', error: { type: vendorType(failure), message: describeIssues(failure) } } };
}

function openaiError(failure: Failure) {
  const type = vendorType(failure) === 'api_error' ? 'server_error' : vendorType(failure);
  const param = failure.issues?.[0]?.path.replace(/^(body|query|path|headers)\.?/, '') || null;
  return { status: failure.status, body: { error: { message: describeIssues(failure), type, param, code: (failure.extras?.code as string | undefined) ?? null } } };
}

function detailError(failure: Failure) {
  if (failure.status === 422 && failure.issues?.length) {
    const detail = failure.issues.map((issue) => {
      const [place = 'body', ...rest] = issue.path.split('.');
      return { loc: [place === 'params' ? 'path' : place, ...rest.filter(Boolean)], msg: issue.message, type: 'value_error' };
    });
    return { status: 422, body: { detail } };
  }
  return { status: failure.status, body: { detail: describeIssues(failure) } };
}
