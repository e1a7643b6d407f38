import { describeIssues, fieldAndFormErrors, INVALID_JSON, issuesByField, type ErrorMapper, type Failure } from '../lib/errors.js';
import { authorizationErrorPage } from './oauth/consent-page.js';
import { oauthValidationCode } from './oauth/validation-errors.js';

/**
 * The mail service's two published error bodies: `{error, error_description}` (RFC 6749 / 7591) on
 * the OAuth routes, `{success: false, error, details?}` everywhere else. The family follows the
 * operation, which the framework knows before it reads the body.
 */
export const mailErrors: ErrorMapper = (failure) =>
  failure.operation?.tags.includes('OAuth') ? oauthError(failure) : serviceError(failure);

function serviceError(failure: Failure) {
  const answer = (error: string, extras: Record<string, unknown> = {}) => ({ status: failure.status, body: { success: false as const, error, ...extras } });
  switch (failure.kind) {
    case 'validation':
      // The published wordings: 400 `Invalid JSON body`, 400 `Validation failed` with field errors.
      if (failure.code === INVALID_JSON) return answer('Invalid JSON body');
      if (!failure.issues?.length) return answer(failure.message);
      if (isMissingMilestone(failure)) return answer('milestone_id is required');
      return answer('Validation failed', { details: validationDetails(failure) });
    case 'unsupported_media_type':
      return answer(failure.status === 415 ? `Content-Type must be ${acceptedTypes(failure).join(' or ')}` : failure.message);
    case 'payload_too_large':
      return answer(failure.message);
    case 'unauthenticated':
    case 'forbidden':
    case 'method_not_allowed':
    case 'rate_limited':
    case 'not_implemented':
    case 'internal':
      return answer(failure.message);
    case 'not_found':
      return answer('Not found');
    case 'api':
      return answer(failure.message, failure.extras);
  }
}

/**
 * Document 000 words the claim's one refusal of its own: "Claim errors: 400 `milestone_id is
 * required`", for a body without it (or with an empty one, which the schema's `minLength` refuses).
 * Any other fault of the body is `Validation failed`, as everywhere.
 */
function isMissingMilestone(failure: Failure): boolean {
  if (failure.operation?.id !== 'claimReferralMilestone') return false;
  const byField = Object.entries(issuesByField(failure));
  const missing = /^(must have required property|must NOT have fewer than 1 characters)/;
  return byField.length === 1 && byField[0]![0] === 'milestone_id' && byField[0]![1].every((message) => missing.test(message));
}

/**
 * `{fieldErrors}` as published, with `formErrors` beside it for what concerns the request as a
 * whole; a refusal of the request as a whole alone has no `fieldErrors`.
 */
function validationDetails(failure: Failure) {
  const { fieldErrors, formErrors } = fieldAndFormErrors(failure);
  const byField = Object.keys(fieldErrors).length > 0 || formErrors.length === 0;
  return { ...(byField && { fieldErrors }), ...(formErrors.length > 0 && { formErrors }) };
}

/** The media types the operation takes (the published message names `application/json`, which most take alone). */
function acceptedTypes(failure: Failure): string[] {
  return failure.operation?.bodyTypes.length ? failure.operation.bodyTypes : ['application/json'];
}

/** The OAuth routes a person's browser lands on: their refusals are also an HTML page for it. */
const browserRoutes = new Set(['authorizeOAuthClient', 'decideOAuthConsent']);

function oauthError(failure: Failure) {
  const answer = (error: string) => {
    const description = describeIssues(failure);
    const page = failure.status === 400 && browserRoutes.has(failure.operation?.id ?? '') ? { page: authorizationErrorPage(error, description) } : {};
    return { status: failure.status, body: { error, error_description: description }, ...page };
  };
  switch (failure.kind) {
    case 'validation':
      return answer(oauthValidationCode(failure));
    case 'payload_too_large':
    case 'unsupported_media_type':
    case 'not_found':
    case 'method_not_allowed':
      return answer('invalid_request');
    case 'unauthenticated':
    case 'forbidden':
      return answer('access_denied');
    case 'api':
      return answer(failure.code ?? 'invalid_request');
    case 'rate_limited':
    case 'not_implemented':
      return answer('temporarily_unavailable');
    case 'internal':
      return answer('server_error');
  }
}
