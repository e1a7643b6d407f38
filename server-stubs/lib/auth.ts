import type { Request } from 'express';
import type { OpenAPI3 } from 'openapi-typescript';
import { ApiError } from './errors.js';
import type { StubCredential } from './service.js';

/** Who is calling: resolved from a credential, attached to the request, passed to handlers. */
export interface Principal {
  /** stable id used for ownership and per-key rate limits */
  id: string;
  [key: string]: unknown;
}

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
    /** the ApiError an auth handler failed with, so the error mapper keeps its code and status */
    authFailure?: ApiError;
  }
}

const noCookies: Readonly<Record<string, string>> = Object.freeze(Object.create(null));

/**
 * Fills `req.cookies` (Express types it `any`) from the Cookie header: the validator reads cookie
 * credentials there. Without a prototype, so a cookie named `__proto__` is just a cookie.
 */
export function parseCookies(req: Request, _res: unknown, next: () => void) {
  const header = req.headers.cookie;
  if (!header) {
    // Most requests carry none: one shared empty object, not a dictionary (about 1.4 kB) each.
    req.cookies = noCookies;
    return next();
  }
  const cookies: Record<string, string> = Object.create(null);
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    const name = part.slice(0, at).trim();
    const raw = part.slice(at + 1).trim();
    try {
      cookies[name] = decodeURIComponent(raw);
    } catch {
      cookies[name] = raw;
    }
  }
  req.cookies = cookies;
  next();
}

export function bearerToken(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * A security handler for express-openapi-validator, keyed by the contract's security scheme name.
 * It runs only where the operation's `security` names the scheme: the contract decides who may call.
 */
export type SecurityHandler = (req: Request, scopes: string[]) => boolean | Promise<boolean>;

export function fail(req: Request, error: ApiError): never {
  req.authFailure = error;
  throw Object.assign(new Error(error.message), { status: error.status });
}

/**
 * Bearer keys of one product. Keys of any other product are unknown here, so they get 401 like any
 * invalid key.
 */
export function bearerKeys<P extends Principal>(
  lookup: (token: string) => P | undefined,
  messages: { missing: string; invalid: string } = { missing: 'Missing or invalid Authorization header', invalid: 'Invalid API key' },
): SecurityHandler {
  return (req) => {
    const token = bearerToken(req);
    if (!token) fail(req, new ApiError(401, undefined, messages.missing));
    const principal = lookup(token);
    if (!principal) fail(req, new ApiError(401, undefined, messages.invalid));
    req.principal = principal;
    return true;
  };
}

/** The headers a client sends to present a credential, by its security scheme in the contract. */
export function credentialHeaders(document: OpenAPI3, credential: StubCredential): Record<string, string> {
  const scheme = document.components?.securitySchemes?.[credential.scheme];
  if (!scheme) throw new Error(`credential "${credential.label}" names ${credential.scheme}, which is not a security scheme of the contract`);
  if ('type' in scheme && (scheme.type === 'http' || scheme.type === 'oauth2' || scheme.type === 'openIdConnect')) return { Authorization: `Bearer ${credential.value}` };
  // Only an apiKey scheme says where its key goes.
  const apiKey = 'in' in scheme ? scheme : undefined;
  if (apiKey?.in === 'cookie') return { Cookie: `${apiKey.name}=${credential.value}` };
  return { [String(apiKey?.name)]: credential.value };
}
