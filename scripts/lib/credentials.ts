import type { OpenAPI3, SecuritySchemeObject } from 'openapi-typescript';
import { credentialHeaders } from '../../server-stubs/lib/auth.js';
import type { StubService } from '../../server-stubs/lib/service.js';
import { deref } from '../../server-stubs/lib/openapi/document.js';

/**
 * Headers of the service's first valid seeded credential for a security scheme, from the same list
 * that feeds the stub's auth and the start banner; none when the service seeds none for it.
 */
export function seededCredentials(service: Pick<StubService, 'credentials'> | undefined, document: OpenAPI3) {
  return (_scheme: SecuritySchemeObject | undefined, name: string): Record<string, string> => {
    const credential = service?.credentials.find((c) => c.scheme === name && c.valid !== false);
    return credential ? credentialHeaders(document, credential) : {};
  };
}

/** Headers for the document's first security requirement, from the seeded credentials (one tenant's). */
export function defaultCredentialHeaders(service: Pick<StubService, 'credentials'> | undefined, document: OpenAPI3): Record<string, string> {
  const requirement: Record<string, string[]> = (document.security ?? [])[0] ?? {};
  const credentials = seededCredentials(service, document);
  return Object.assign({}, ...Object.keys(requirement).map((name) => credentials(deref(document, document.components?.securitySchemes?.[name]), name)));
}

/** Where a credential goes on the wire: headers, or query parameters (an apiKey `in: query`). */
export interface CredentialCarrier {
  headers: Record<string, string>;
  query: Array<[string, string]>;
}

/** The carrier of a credential for a security scheme of the document, by its name there (see schemeCarrier). */
export function credentialCarrier(document: OpenAPI3, scheme: string, value: string): CredentialCarrier {
  return schemeCarrier(deref(document, document.components?.securitySchemes?.[scheme]), value);
}

/**
 * The one place a client's credential is written for a security scheme: HTTP Basic as
 * `user:password` in base64 (RFC 7617), any other HTTP scheme, OAuth 2 and OpenID Connect as
 * `<Scheme> <token>`, an apiKey in its header, query parameter or cookie. Mutual TLS travels outside
 * HTTP: nothing to send.
 */
function schemeCarrier(declared: SecuritySchemeObject | undefined, value: string): CredentialCarrier {
  const none: CredentialCarrier = { headers: {}, query: [] };
  if (declared?.type === 'http') {
    const name = String(declared.scheme ?? 'bearer').toLowerCase();
    if (name === 'basic') return { ...none, headers: { Authorization: `Basic ${Buffer.from(value.includes(':') ? value : `${value}:`).toString('base64')}` } };
    return { ...none, headers: { Authorization: `${name === 'bearer' ? 'Bearer' : declared.scheme} ${value}` } };
  }
  if (declared?.type === 'oauth2' || declared?.type === 'openIdConnect') return { ...none, headers: { Authorization: `Bearer ${value}` } };
  if (declared?.type === 'apiKey' && typeof declared.name === 'string') {
    if (declared.in === 'query') return { ...none, query: [[declared.name, value]] };
    if (declared.in === 'cookie') return { ...none, headers: { Cookie: `${declared.name}=${value}` } };
    return { ...none, headers: { [declared.name]: value } };
  }
  return none;
}

/**
 * Of a request's headers, those that carry a credential of one of the document's security schemes
 * (`Authorization`, an apiKey's header, `Cookie`): what a later request of the same client needs to
 * act as the same caller, without the request's own content headers.
 */
export function credentialHeadersOf(document: OpenAPI3, headers: Record<string, string>): Record<string, string> {
  const names = new Set(['authorization', 'cookie']);
  for (const scheme of Object.values(document.components?.securitySchemes ?? {})) {
    const declared = deref<SecuritySchemeObject>(document, scheme);
    if (declared.type === 'apiKey' && declared.in === 'header') names.add(declared.name.toLowerCase());
  }
  return Object.fromEntries(Object.entries(headers).filter(([name]) => names.has(name.toLowerCase())));
}

/** What a client of a service with no seeded credentials sends: the mock checks presence only. */
export const PLACEHOLDER_SECRET = 'placeholder-credential';

/** The placeholder for a scheme: Basic wants a user as well as a password. */
function placeholderValue(scheme: SecuritySchemeObject | undefined): string {
  return scheme?.type === 'http' && String(scheme.scheme).toLowerCase() === 'basic' ? `user:${PLACEHOLDER_SECRET}` : PLACEHOLDER_SECRET;
}

/** One placeholder credential per security scheme of the document, in the stubs' structured form. */
export function placeholderCredentials(document: OpenAPI3): Array<{ label: string; scheme: string; value: string }> {
  return Object.entries(document.components?.securitySchemes ?? {}).map(([scheme, raw]) => ({
    label: `placeholder (${scheme})`,
    scheme,
    value: placeholderValue(deref(document, raw)),
  }));
}

/** Credential headers for one security scheme of the document, by its name there (exampleRequest's `credentials`). */
export type SchemeCredentials = (scheme: SecuritySchemeObject | undefined, name: string) => Record<string, string>;

/**
 * A carrier as a `SchemeCredentials` answer: an apiKey that travels in the query comes back as a
 * header of its name, which exampleRequest moves to the query.
 */
export function carrierHeaders(carrier: CredentialCarrier): Record<string, string> {
  return { ...carrier.headers, ...Object.fromEntries(carrier.query) };
}

/**
 * A placeholder credential in the scheme's own shape: what a server that checks only that a
 * credential is present (the contract-only stub, the mock) accepts.
 */
export const placeholderFor: SchemeCredentials = (scheme) => carrierHeaders(schemeCarrier(scheme, placeholderValue(scheme)));

/** The service's seeded credential for a scheme where it has one, else a placeholder in the scheme's shape. */
export function seededOrPlaceholder(seeded: SchemeCredentials): SchemeCredentials {
  return (scheme, name) => {
    const headers = seeded(scheme, name);
    return Object.keys(headers).length > 0 ? headers : placeholderFor(scheme, name);
  };
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
