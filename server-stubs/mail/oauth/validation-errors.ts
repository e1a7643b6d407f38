import { INVALID_JSON, type Failure } from '../../lib/errors.js';

/**
 * The RFC error code of a request the contract refused on an OAuth route. Registration names the
 * RFC 7591 §3.2.2 codes (a redirect URI problem apart from other metadata); the token endpoint
 * answers a grant type it does not support with `unsupported_grant_type` (RFC 6749 §5.2).
 */
export function oauthValidationCode(failure: Failure): string {
  if (failure.code === INVALID_JSON || !failure.issues?.length) return 'invalid_request';
  const fields = failure.issues.map((i) => i.path);
  switch (failure.operation?.id) {
    case 'registerOAuthClient':
      return fields.some((f) => /^body\.redirect_uris\b/.test(f) || /redirect_uris/.test(f)) ? 'invalid_redirect_uri' : 'invalid_client_metadata';
    case 'exchangeOAuthToken':
      return failure.issues.some((i) => i.path === 'body.grant_type' && !/required/.test(i.message)) ? 'unsupported_grant_type' : 'invalid_request';
    default:
      return 'invalid_request';
  }
}
