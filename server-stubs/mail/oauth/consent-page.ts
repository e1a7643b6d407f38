import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { OAuthClient } from './clients.js';

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * Anti-forgery tokens bound to the session that saw the consent page: a decision posted by another
 * site with the user's cookie carries no valid token (RFC 6749 §10.12).
 */
export class ConsentTokens {
  private readonly secret = randomBytes(32);

  issue(session: string): string {
    return createHmac('sha256', this.secret).update(session).digest('base64url');
  }

  verify(session: string, token: string): boolean {
    const expected = Buffer.from(this.issue(session));
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

/** Nothing may frame the consent page (clickjacking, RFC 6749 §10.13, RFC 9700 §4.16), and no cache keeps it. */
export const consentPageHeaders = {
  'Content-Security-Policy': "frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
};

export interface ConsentRequest {
  client: OAuthClient;
  userEmail: string;
  redirectUri: string;
  scopes: string[];
  state?: string;
  codeChallenge?: string;
  csrfToken: string;
  /** where the form posts: the decision operation under the service's base path */
  action: string;
}

export function consentPage(request: ConsentRequest): string {
  const { client } = request;
  const name = escapeHtml(client.clientName ?? client.clientId);
  const hidden = (field: string, value: string | undefined) =>
    value === undefined ? '' : `\n      <input type="hidden" name="${field}" value="${escapeHtml(value)}">`;
  const logo = client.logoUri ? `\n  <img src="${escapeHtml(client.logoUri)}" alt="${name} logo" width="64" height="64">` : '';
  const scopes = request.scopes.map((s) => `<li>${escapeHtml(s)}</li>`).join('');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Authorize ${name}</title></head>
<body>
  <h1>${name} wants to access your account</h1>${logo}
  <p>Signed in as ${escapeHtml(request.userEmail)}. ${name} will be redirected to ${escapeHtml(request.redirectUri)}.</p>
  <p>Requested scopes:</p>
  <ul id="scopes">${scopes}</ul>
  <form method="post" action="${escapeHtml(request.action)}">${hidden('client_id', client.clientId)}${hidden('redirect_uri', request.redirectUri)}${hidden('scope', request.scopes.join(' '))}${hidden('state', request.state)}${hidden('code_challenge', request.codeChallenge)}${hidden('code_challenge_method', request.codeChallenge === undefined ? undefined : 'S256')}${hidden('csrf_token', request.csrfToken)}
    <button type="submit" name="decision" value="approve">Approve</button>
    <button type="submit" name="decision" value="deny">Deny</button>
  </form>
</body>
</html>
`;
}

/**
 * What a person sees when an authorization request cannot be trusted (unknown client, a redirect
 * URI that is not registered): the browser stays here, it is never sent on (RFC 6749 §4.1.2.1).
 */
export function authorizationErrorPage(error: string, description: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Authorization request refused</title></head>
<body>
  <h1>This authorization request cannot be completed</h1>
  <p>${escapeHtml(description)}</p>
  <p>Error: <code>${escapeHtml(error)}</code>. Go back to the application and try again, or contact its developer.</p>
</body>
</html>
`;
}
