import cors from 'cors';
import type { NextFunction, Request, Response } from 'express';
import { deref } from './openapi/document.js';
import type { Contract } from './contract.js';
import { failureOf } from './failures.js';

/** Origins browsers may call a stub from: `true` for any (the default), or a list. */
export type CorsOrigins = true | string[];

/** `STUB_CORS_ORIGINS=https://app.example,http://localhost:5173`; unset or `*` means any. */
export function corsOriginsFromEnv(env: NodeJS.ProcessEnv = process.env): CorsOrigins {
  const value = env.STUB_CORS_ORIGINS?.trim();
  if (!value || value === '*') return true;
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

/** Every response header the contract declares, so a browser script may read it (`Retry-After`, ...). */
function declaredResponseHeaders(contract: Contract): string[] {
  const names = new Set<string>(['Retry-After', 'Allow']);
  for (const operation of contract.operations.values()) {
    for (const response of Object.values(operation.op.responses ?? {})) {
      for (const name of Object.keys(deref(contract.document, response)?.headers ?? {})) names.add(name);
    }
  }
  return [...names];
}

/**
 * Browsers are clients (DECISIONS G-3): CORS headers on every answer, preflights answered before
 * auth, credentials (cookies) allowed for the origins let in, and a plain OPTIONS on a known path
 * answers 204 with `Allow` (unless the contract has an OPTIONS operation there).
 */
export function browserAccess(contract: Contract, origins: CorsOrigins = true) {
  const exposedHeaders = declaredResponseHeaders(contract);
  const corsMiddleware = cors({ origin: origins, credentials: true, exposedHeaders, maxAge: 600, preflightContinue: true });
  const exposed = exposedHeaders.join(',');
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'OPTIONS') {
      // What the cors middleware writes on an answer that is not a preflight, without its per-request
      // header lists and closures (a share of every request's CPU under load).
      // Only a request from a page (with an Origin) gets them; every answer varies by Origin.
      const origin = req.headers.origin;
      if (res.getHeader('Vary') === undefined) res.setHeader('Vary', 'Origin');
      else res.vary('Origin');
      if (origin && (origins === true || origins.includes(origin))) {
        res.setHeader('Access-Control-Allow-Origin', origin);
        res.setHeader('Access-Control-Allow-Credentials', 'true');
        res.setHeader('Access-Control-Expose-Headers', exposed);
      }
      return next();
    }
    corsMiddleware(req, res, () => {
      if (req.method !== 'OPTIONS') return next();
      const match = contract.match('OPTIONS', req.path);
      if (match.kind === 'operation') return next();
      if (match.kind === 'method_not_allowed') {
        res.set('Allow', match.allow.join(', ')).status(204).end();
        return;
      }
      // A preflight to a path no operation has still passes: the browser then sends the request and
      // its page reads the 404, where a refused preflight shows only an opaque CORS failure.
      if (isPreflight(req)) {
        res.status(204).end();
        return;
      }
      next(failureOf('not_found', 404, `No route OPTIONS ${req.baseUrl}${req.path}`));
    });
  };
}

/** A CORS preflight: an OPTIONS a browser sends on its own, naming the method it wants to use. */
const isPreflight = (req: Request) => req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined;
