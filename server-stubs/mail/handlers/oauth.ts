import type { Request } from 'express';
import type { components } from '../../../generated/mail/types.gen.js';
import type { StateStore } from '../../lib/store.js';
import { mailHandlers, type MailDeps } from '../context.js';
import { isRegisteredRedirectUri, OAuthClients, scopesBeyondRegistration, type OAuthClient } from '../oauth/clients.js';
import { AuthorizationCodes, s256 } from '../oauth/codes.js';
import { consentPage, consentPageHeaders, ConsentTokens } from '../oauth/consent-page.js';
import { defaultScope, parseScope, supportedScopes, unsupportedScopes } from '../oauth/scopes.js';

/** OAuth access tokens live 90 days (document: Authentication, rule 8). */
export const accessTokenLifetimeSeconds = 7776000;

/** What the authorization server keeps between requests (clients and codes in the state store, back to none on reset). */
export class OAuthState {
  readonly clients: OAuthClients;
  readonly codes: AuthorizationCodes;
  /** its signing secret is per process: a consent page shown before a restart is answered again after it */
  readonly consentTokens = new ConsentTokens();

  constructor(state: StateStore) {
    this.clients = new OAuthClients(state);
    this.codes = new AuthorizationCodes(state);
  }
}

type RegisterRequest = components['schemas']['RegisterOAuthClientRequest'];

/** RFC 6749 §3.2: a parameter sent without a value counts as omitted. */
const given = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);

/** `{base_url}/mail`: the issuer and every endpoint follow the URL the caller reached the service at (RFC 8414 §2). */
const issuerOf = (req: Request) => `${req.protocol}://${req.get('host')}${req.baseUrl}`;

const acceptsHtml = (req: Request) => /\btext\/html\b/.test(req.get('accept') ?? '');

/** `redirect_uri` with the callback parameters, keeping its own query (RFC 6749 §3.1.2). */
function callback(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * The OAuth 2.0 authorization server: RFC 8414 metadata, RFC 7591 registration, the authorization
 * code grant with PKCE S256 (RFC 7636) and a consent page, RFC 7009 revocation. Access tokens are
 * `msk_` API keys of the identity store, limited to the granted scopes.
 */
export function oauthHandlers(deps: MailDeps, state: OAuthState) {
  const { identity } = deps;
  const { clients, codes, consentTokens } = state;

  /** The checks authorize and the consent decision share; they fail without redirecting (RFC 6749 §4.1.2.1). */
  function verifiedRequest(
    fail: (status: 400, code: string, message: string) => never,
    input: { clientId: string; redirectUri: string; scope: string | undefined },
  ): { client: OAuthClient; scopes: string[] } {
    const client = clients.get(input.clientId);
    if (!client) fail(400, 'invalid_client', 'Unknown client_id');
    if (!isRegisteredRedirectUri(client, input.redirectUri)) fail(400, 'invalid_request', 'redirect_uri does not match a registered redirect URI');
    const scopes = parseScope(given(input.scope) ?? defaultScope);
    const unsupported = unsupportedScopes(scopes);
    if (unsupported.length > 0) fail(400, 'invalid_scope', `Unsupported scope: ${unsupported.join(' ')}`);
    const beyond = scopesBeyondRegistration(client, scopes);
    if (beyond.length > 0) fail(400, 'invalid_scope', `Scope not registered for this client: ${beyond.join(' ')}`);
    return { client, scopes };
  }

  return mailHandlers({
    getOAuthServerMetadata: ({ req }) => {
      const issuer = issuerOf(req);
      return {
        status: 200,
        body: {
          issuer,
          authorization_endpoint: `${issuer}/api/oauth/authorize`,
          token_endpoint: `${issuer}/api/oauth/token`,
          registration_endpoint: `${issuer}/api/oauth/register`,
          revocation_endpoint: `${issuer}/api/oauth/revoke`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none'],
          scopes_supported: [...supportedScopes],
          service_documentation: `${req.protocol}://${req.get('host')}/docs/mail`,
        },
      };
    },

    registerOAuthClient: ({ body: openBody, fail }) => {
      // An open schema (unknown metadata is ignored, RFC 7591 §2) loses its field types through the
      // defaults helper; the validator has filled the defaults.
      const body = openBody as RegisterRequest & Required<Pick<RegisterRequest, 'grant_types' | 'response_types'>>;
      // The schema holds the redirect URI rules; what it cannot say is that only one grant exists.
      if (body.grant_types.some((g) => g !== 'authorization_code')) fail(400, 'invalid_client_metadata', 'Only the authorization_code grant type is supported');
      if (body.response_types.some((r) => r !== 'code')) fail(400, 'invalid_client_metadata', 'Only the code response type is supported');
      const unsupported = unsupportedScopes(parseScope(body.scope));
      if (unsupported.length > 0) fail(400, 'invalid_client_metadata', `Unsupported scope: ${unsupported.join(' ')}`);
      const client = clients.register({
        redirectUris: [...body.redirect_uris],
        grantTypes: [...body.grant_types],
        responseTypes: [...body.response_types],
        ...(given(body.client_name) !== undefined && { clientName: body.client_name }),
        ...(given(body.scope) !== undefined && { scope: parseScope(body.scope).join(' ') }),
        ...(body.logo_uri !== undefined && { logoUri: body.logo_uri }),
        ...(body.client_uri !== undefined && { clientUri: body.client_uri }),
        ...(body.contacts !== undefined && { contacts: [...body.contacts] }),
      });
      return {
        status: 201,
        body: {
          client_id: client.clientId,
          client_name: client.clientName ?? client.clientId,
          redirect_uris: client.redirectUris,
          grant_types: client.grantTypes,
          response_types: client.responseTypes,
          scope: client.scope ?? supportedScopes.join(' '),
          token_endpoint_auth_method: 'none' as const,
        },
      };
    },

    authorizeOAuthClient: ({ query, req, fail }) => {
      const { client, scopes } = verifiedRequest(fail, { clientId: query.client_id, redirectUri: query.redirect_uri, scope: query.scope });
      const session = String(req.cookies?.session ?? '');
      const user = session ? identity.sessionUser(session) : undefined;
      if (!user) {
        if (!acceptsHtml(req)) fail(401, 'access_denied', 'Not authenticated; sign in to the dashboard first');
        const login = new URL(`${issuerOf(req)}/api/auth/login`);
        login.searchParams.set('return_to', req.originalUrl);
        return { status: 302, headers: { Location: login.toString() } };
      }
      return {
        status: 200,
        headers: consentPageHeaders,
        contentType: 'text/html',
        text: consentPage({
          client,
          userEmail: user.email,
          redirectUri: query.redirect_uri,
          scopes,
          state: given(query.state),
          codeChallenge: given(query.code_challenge),
          csrfToken: consentTokens.issue(session),
          action: `${req.baseUrl}/api/oauth/authorize`,
        }),
      };
    },

    decideOAuthConsent: ({ body, principal, req, fail }) => {
      if (!consentTokens.verify(String(req.cookies?.session ?? ''), body.csrf_token)) fail(400, 'invalid_request', 'Invalid or expired consent form');
      const { client, scopes } = verifiedRequest(fail, { clientId: body.client_id, redirectUri: body.redirect_uri, scope: body.scope });
      const state = given(body.state);
      if (body.decision === 'deny') return { status: 302, headers: { Location: callback(body.redirect_uri, { error: 'access_denied', state }) } };
      const codeChallenge = given(body.code_challenge);
      const code = codes.issue({
        clientId: client.clientId,
        userId: principal.userId,
        redirectUri: body.redirect_uri,
        scopes,
        ...(codeChallenge !== undefined && { codeChallenge }),
      });
      return { status: 302, headers: { Location: callback(body.redirect_uri, { code, state }) } };
    },

    exchangeOAuthToken: ({ body, fail }) => {
      const client = clients.get(body.client_id);
      if (!client) return fail(400, 'invalid_client', 'Unknown client_id');
      const found = codes.inspect(body.code);
      if (found.kind === 'replayed') {
        // A code used twice was stolen or replayed: what its first use issued is revoked (RFC 6749 §4.1.2, RFC 9700 §4.5).
        identity.revokeGrant(found.code.grantId);
      }
      if (found.kind !== 'ok') return fail(400, 'invalid_grant', 'The authorization code is invalid or expired');
      const { code } = found;
      if (code.clientId !== client.clientId) fail(400, 'invalid_client', 'The authorization code was issued to another client');
      if (code.redirectUri !== body.redirect_uri) fail(400, 'invalid_grant', 'redirect_uri does not match the authorization request');
      const verifier = given(body.code_verifier);
      if (code.codeChallenge !== undefined ? verifier === undefined || s256(verifier) !== code.codeChallenge : verifier !== undefined) {
        // A verifier without a challenge is a PKCE downgrade attempt (RFC 9700 §2.1.1).
        fail(400, 'invalid_grant', 'PKCE verification failed');
      }
      codes.markRedeemed(code);
      const { raw } = identity.issueKey({
        userId: code.userId,
        name: `OAuth: ${client.clientName ?? client.clientId}`,
        kind: 'oauth',
        scopes: code.scopes,
        clientId: client.clientId,
        grantId: code.grantId,
        ttlSeconds: accessTokenLifetimeSeconds,
      });
      return {
        status: 200,
        // The answer carries a credential (RFC 6749 §5.1).
        headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
        body: { access_token: raw, token_type: 'bearer' as const, expires_in: accessTokenLifetimeSeconds, scope: code.scopes.join(' ') },
      };
    },

    revokeOAuthToken: ({ body }) => {
      // Only tokens issued here are revoked; dashboard keys are managed with /v1/keys. Unknown or
      // already revoked tokens answer the same 200, so the answer tells nothing (RFC 7009 §2.2).
      const record = identity.findKey(body.token);
      if (record?.kind === 'oauth') identity.revokeKey(record.id);
      return { status: 200 };
    },
  });
}
