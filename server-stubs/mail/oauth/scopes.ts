/** The scopes the authorization server grants (document: "Scopes supported"), in the published order. */
export const supportedScopes = ['read', 'write', 'send', 'send:transactional', 'send:marketing', 'contacts'] as const;

export const defaultScope = 'read';

/** A space-separated scope parameter as a list without repeats (RFC 6749 §3.3: order does not matter). */
export function parseScope(scope: string | undefined): string[] {
  return [...new Set((scope ?? '').split(' ').filter(Boolean))];
}

export function unsupportedScopes(scopes: string[]): string[] {
  return scopes.filter((s) => !(supportedScopes as readonly string[]).includes(s));
}
