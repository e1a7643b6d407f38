import { INVALID_JSON, issuesByField, type ErrorMapper, type Failure } from '../lib/errors.js';

/**
 * The lead-outreach error body, `{error}` plus extras, for every failure of the service. What fails
 * before the body is parsed into its shape (invalid JSON, a malformed path UUID, a bad query) is a
 * 400 `{error}`; a body that parsed but breaks its schema is a 422 `{error: {fieldErrors,
 * formErrors}}` (DECISIONS reach-2). Every reach operation with a body declares 422.
 */
export const reachErrors: ErrorMapper = (failure) => {
  const plain = (error = failure.message) => ({ status: failure.status, body: { error } });
  switch (failure.kind) {
    case 'validation':
      if (isBodyShapeFailure(failure)) return { status: 422, body: { error: fieldErrorsOf(failure) } };
      return plain(badRequestMessage(failure));
    case 'payload_too_large':
    case 'unsupported_media_type':
    case 'unauthenticated':
    case 'not_found':
    case 'method_not_allowed':
    case 'rate_limited':
      return plain();
    case 'forbidden':
      return { status: failure.status, body: { error: failure.message, requiredScope: failure.extras?.requiredScope } };
    case 'api':
      if (failure.status === 422) {
        return { status: 422, body: { error: { fieldErrors: failure.extras?.fieldErrors ?? {}, formErrors: failure.extras?.formErrors ?? [] } } };
      }
      // 402's two published forms and the 429 credit extras come from the handler as extras.
      return { status: failure.status, body: { error: failure.message, ...(failure.code !== undefined && { code: failure.code }), ...failure.extras } };
    case 'not_implemented':
    case 'internal':
      return plain();
  }
};

function isBodyShapeFailure(failure: Failure): boolean {
  if (failure.code === INVALID_JSON || !failure.issues?.length) return false;
  return failure.issues.every((i) => i.path === 'body' || i.path.startsWith('body.'));
}

/** zod's flatten() shape: issues on a field under `fieldErrors`, issues on the whole body under `formErrors`. */
function fieldErrorsOf(failure: Failure) {
  // The only body-wide `not` is scoreLeads' "not both jobId and leadIds": say so in words.
  const formErrors = (failure.issues ?? []).filter((i) => i.path === 'body').map((i) => (i.message === 'must NOT be valid' ? 'jobId and leadIds are exclusive: give exactly one' : i.message));
  const fields = issuesByField({ ...failure, issues: (failure.issues ?? []).filter((i) => i.path !== 'body').map((i) => ({ ...i, path: i.path.split('.').slice(0, 2).join('.') })) });
  return { fieldErrors: { ...fields }, formErrors };
}

function badRequestMessage(failure: Failure): string {
  const issue = failure.issues?.[0];
  if (!issue) return failure.message;
  const [place, name] = issue.path.split('.');
  if (place === 'params' || place === 'path') return /uuid/.test(issue.message) ? `Malformed UUID in the path: ${name}` : `Invalid path parameter ${name}: ${issue.message}`;
  if (place === 'query' && name === 'returnUrl') return 'Invalid returnUrl';
  if (place === 'query') return `Invalid query parameter ${name}: ${issue.message}`;
  return issue.path ? `${issue.path} ${issue.message}` : issue.message;
}
