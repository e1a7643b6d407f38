/**
 * Security for a stub with no seeded credentials: each scheme of the contract is satisfied by any
 * credential presented the way the scheme says (presence only). The contract still decides where
 * one is needed, and its alternatives and `security: []` are the framework's to honour.
 */
import type { Request } from 'express';
import type { OpenAPI3, SecuritySchemeObject } from 'openapi-typescript';
import { bearerToken, fail, type SecurityHandler } from './auth.js';
import { ApiError } from './errors.js';
import { deref, type Operation } from './openapi/document.js';

/** One handler per security scheme of the document. */
export function presenceSecurity(document: OpenAPI3): Record<string, SecurityHandler> {
  const schemes = document.components?.securitySchemes ?? {};
  return Object.fromEntries(Object.entries(schemes).map(([name, scheme]) => [name, presenceOf(name, deref(document, scheme))]));
}

/** How a client presents a credential of the scheme, in words for the start banner: `Authorization: Bearer <any token>`. */
export function presentation(scheme: SecuritySchemeObject): string {
  if (scheme.type === 'http') {
    const kind = String(scheme.scheme ?? '').toLowerCase();
    if (kind === 'basic') return 'Authorization: Basic <base64 of any user:password>';
    if (kind === 'bearer') return 'Authorization: Bearer <any token>';
    return `Authorization: ${scheme.scheme} <any credentials>`;
  }
  if (scheme.type === 'apiKey') {
    if (scheme.in === 'query') return `?${scheme.name}=<any key>`;
    if (scheme.in === 'cookie') return `Cookie: ${scheme.name}=<any value>`;
    return `${scheme.name}: <any key>`;
  }
  if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect') return 'Authorization: Bearer <any token>';
  return `${String(scheme.type ?? '')}: not checked`;
}

function presenceOf(name: string, scheme: SecuritySchemeObject): SecurityHandler {
  return (req) => {
    const value = presentedCredential(scheme, req);
    if (value === undefined) return fail(req, new ApiError(401, 'unauthenticated', `${name}: send ${wayOf(scheme)}`));
    req.principal = { id: `${name}:${value}` };
    return true;
  };
}

export type PresenceVerdict = { ok: true } | { ok: false; message: string };

/**
 * Whether the request satisfies one of the operation's security requirements by presence alone, for
 * a server with no framework security step in front of it (the mock of an imported document).
 */
export function checkPresence(document: OpenAPI3, operation: Pick<Operation, 'op'>, req: Request): PresenceVerdict {
  const requirements: Array<Record<string, string[]>> = operation.op.security ?? document.security ?? [];
  if (requirements.length === 0 || requirements.some((r) => Object.keys(r).length === 0)) return { ok: true };
  const schemeOf = (name: string) => deref(document, document.components?.securitySchemes?.[name]);
  // A scheme the document does not define cannot be asked for: it does not hold the request back.
  const present = (name: string) => {
    const scheme = schemeOf(name);
    return !scheme || presentedCredential(scheme, req) !== undefined;
  };
  if (requirements.some((r) => Object.keys(r).every(present))) return { ok: true };
  const ways = requirements.map((r) => Object.keys(r).map((name) => wayOf(schemeOf(name))).join(' and '));
  return { ok: false, message: `Missing credentials: send ${[...new Set(ways)].join(' or ')}` };
}

/**
 * The credential the request presents the way the scheme says, or undefined. HTTP Basic needs
 * base64 of `user:password`, any other HTTP scheme its name and a value, OAuth 2 and OpenID Connect a
 * bearer token, an apiKey a non-empty header, query parameter or cookie; mutualTLS and types not known
 * here are presented by the connection, so they count as present.
 */
export function presentedCredential(scheme: SecuritySchemeObject, req: Request): string | undefined {
  if (scheme.type === 'http') {
    const kind = String(scheme.scheme ?? 'bearer').toLowerCase();
    if (kind === 'bearer') return bearerToken(req) || undefined;
    if (kind === 'basic') {
      const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(req.headers.authorization ?? '');
      const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
      return decoded.includes(':') ? decoded.slice(0, decoded.indexOf(':')) : undefined;
    }
    const prefix = new RegExp(`^${kind.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+(\\S.*)$`, 'i');
    return prefix.exec(req.headers.authorization ?? '')?.[1];
  }
  if (scheme.type === 'apiKey') {
    const key = String(scheme.name ?? '');
    const value =
      scheme.in === 'query' ? (req.query as Record<string, unknown>)[key] : scheme.in === 'cookie' ? (req.cookies as Record<string, string> | undefined)?.[key] : req.headers[key.toLowerCase()];
    const text = Array.isArray(value) ? value[0] : value;
    return typeof text === 'string' && text ? text : undefined;
  }
  if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect') return bearerToken(req) || undefined;
  return 'connection';
}

/** Where and how the scheme's credential is sent, for a refusal's message. */
function wayOf(scheme: SecuritySchemeObject | undefined): string {
  if (scheme?.type === 'http') {
    const kind = String(scheme.scheme ?? 'bearer').toLowerCase();
    if (kind === 'bearer') return 'Authorization: Bearer <token>';
    if (kind === 'basic') return 'Authorization: Basic <base64 of user:password>';
    return `Authorization: ${scheme.scheme} <credentials>`;
  }
  if (scheme?.type === 'apiKey') return scheme.in === 'query' ? `the query parameter ${scheme.name}` : scheme.in === 'cookie' ? `the cookie ${scheme.name}` : `the header ${scheme.name}`;
  return 'Authorization: Bearer <access token>';
}
