import { credentialHeaders } from '../../server-stubs/lib/auth.js';
import type { StubService } from '../../server-stubs/lib/service.js';
import { deref, type JsonNode } from './operations.js';

/**
 * Headers of the service's first valid seeded credential for a security scheme, from the same list
 * that feeds the stub's auth and the start banner; none when the service seeds none for it.
 */
export function seededCredentials(service: Pick<StubService, 'credentials'> | undefined, document: JsonNode) {
  return (_scheme: JsonNode, name: string): Record<string, string> => {
    const credential = service?.credentials.find((c) => c.scheme === name && c.valid !== false);
    return credential ? credentialHeaders(document, credential) : {};
  };
}

/** Headers for the document's first security requirement, from the seeded credentials (one tenant's). */
export function defaultCredentialHeaders(service: Pick<StubService, 'credentials'> | undefined, document: JsonNode): Record<string, string> {
  const requirement: Record<string, string[]> = (document.security ?? [])[0] ?? {};
  const credentials = seededCredentials(service, document);
  return Object.assign({}, ...Object.keys(requirement).map((name) => credentials(document.components?.securitySchemes?.[name] ?? {}, name)));
}

/** Where a credential goes on the wire: headers, or query parameters (an apiKey `in: query`). */
export interface CredentialCarrier {
  headers: Record<string, string>;
  query: Array<[string, string]>;
}

/**
 * A credential for a security scheme as a client sends it: HTTP Basic as `user:password` in base64
 * (RFC 7617), any other HTTP scheme, OAuth 2 and OpenID Connect as `<Scheme> <token>`, an apiKey
 * in its header, query parameter or cookie. Mutual TLS travels outside HTTP: nothing to send.
 */
export function credentialCarrier(document: JsonNode, schemeName: string, value: string): CredentialCarrier {
  const scheme: JsonNode = deref(document, document.components?.securitySchemes?.[schemeName]) ?? {};
  const none: CredentialCarrier = { headers: {}, query: [] };
  if (scheme.type === 'http') {
    const name = String(scheme.scheme ?? 'bearer').toLowerCase();
    if (name === 'basic') return { ...none, headers: { Authorization: `Basic ${Buffer.from(value.includes(':') ? value : `${value}:`).toString('base64')}` } };
    return { ...none, headers: { Authorization: `${name === 'bearer' ? 'Bearer' : scheme.scheme} ${value}` } };
  }
  if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect') return { ...none, headers: { Authorization: `Bearer ${value}` } };
  if (scheme.type === 'apiKey' && typeof scheme.name === 'string') {
    if (scheme.in === 'query') return { ...none, query: [[scheme.name, value]] };
    if (scheme.in === 'cookie') return { ...none, headers: { Cookie: `${scheme.name}=${value}` } };
    return { ...none, headers: { [scheme.name]: value } };
  }
  return none;
}

/** What a client of a service with no seeded credentials sends: the mock checks presence only. */
export const PLACEHOLDER_SECRET = 'placeholder-credential';

/** One placeholder credential per security scheme of the document, in the stubs' structured form. */
export function placeholderCredentials(document: JsonNode): Array<{ label: string; scheme: string; value: string }> {
  return Object.entries<JsonNode>(document.components?.securitySchemes ?? {}).map(([scheme, raw]) => {
    const basic = deref(document, raw)?.type === 'http' && String(deref(document, raw)?.scheme).toLowerCase() === 'basic';
    return { label: `placeholder (${scheme})`, scheme, value: basic ? `user:${PLACEHOLDER_SECRET}` : PLACEHOLDER_SECRET };
  });
}

/** Headers and cookies of several carriers as one request's: cookies joined, not overwritten. */
export function mergeCarriers(carriers: CredentialCarrier[]): CredentialCarrier {
  const headers: Record<string, string> = {};
  const query: Array<[string, string]> = [];
  for (const carrier of carriers) {
    for (const [name, value] of Object.entries(carrier.headers)) {
      const existing = Object.keys(headers).find((h) => h.toLowerCase() === name.toLowerCase());
      if (existing && name.toLowerCase() === 'cookie') headers[existing] = `${headers[existing]}; ${value}`;
      else headers[existing ?? name] = value;
    }
    query.push(...carrier.query);
  }
  return { headers, query };
}
