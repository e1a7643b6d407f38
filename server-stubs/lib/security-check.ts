/**
 * The contract's security requirements, checked as express-openapi-validator's security middleware
 * checks them (same presence checks, same handler calls in the same order, same error objects), but
 * without a promise per requirement and per scheme when every handler answers synchronously: under
 * load those promises were a visible share of a request's CPU and garbage.
 *
 * Semantics kept from the library: requirements are alternatives (one passing is enough), schemes
 * within one must all pass; every handler of every requirement is called, in order, so a handler's
 * side effects (`req.principal`, `req.authFailure`) are those of the library; the failure reported is
 * the first one, with the status its handler threw (401 by default).
 */
import type { Request } from 'express';
import type { SecurityHandler } from './auth.js';
import type { Step } from './middleware-chain.js';
import type { OpenAPI3, SecuritySchemeObject } from 'openapi-typescript';
import { deref } from './openapi/document.js';
import { validatorErrors } from './validator-adapter.js';

interface Outcome {
  success: boolean;
  status?: number;
  error?: { message?: string; status?: number };
}

const passed: Outcome = { success: true };

/** A security handler as the library calls it: with the scheme too (the stubs' handlers read only the first two). */
type HandlerWithScheme = (req: Request, scopes: string[], scheme: SecuritySchemeObject) => unknown;

export function securityCheck(apiDoc: OpenAPI3, handlers: Record<string, SecurityHandler>): Step {
  const declared = apiDoc.components?.securitySchemes;
  // The library's document is dereferenced already; a `$ref` left over is followed all the same.
  const schemes = declared && Object.fromEntries(Object.entries(declared).map(([name, scheme]) => [name, deref(apiDoc, scheme)]));
  /** Per requirement list of the document: the scheme names of each requirement (none for `{}`). */
  const schemeNames = new WeakMap<object, string[][]>();
  return (req, _res, next) => {
    const openapi = req.openapi!;
    const securities: Array<Record<string, string[] | undefined>> | undefined = openapi.schema.security ?? apiDoc.security;
    const path = openapi.openApiRoute;
    if (!path || !Array.isArray(securities) || securities.length === 0) return next();
    if (!schemes) return next(validatorErrors.internal({ path, message: `security referenced at path ${path}, but not defined in 'components.securitySchemes'` }));
    let names = schemeNames.get(securities);
    if (!names) schemeNames.set(securities, (names = securities.map((requirement) => (isEmptyObject(requirement) ? [] : Object.keys(requirement)))));
    if (names.length === 1 && names[0]!.length === 1) {
      // The common case, one requirement of one scheme: no lists or closures per request.
      const name = names[0]![0]!;
      const outcome = runHandler(req, schemes, handlers, name, securities[0]![name]);
      if (outcome instanceof Promise) return void outcome.then((settled) => decide([[settled]], path, next), next);
      return outcome.success ? next() : decide([[outcome]], path, next);
    }
    let pending = false;
    const results: Array<Array<Outcome | Promise<Outcome>>> = securities.map((requirement, i) => {
      if (names[i]!.length === 0) return [passed] as Array<Outcome | Promise<Outcome>>;
      return names[i]!.map((name) => {
        const outcome = runHandler(req, schemes, handlers, name, requirement[name]);
        if (outcome instanceof Promise) pending = true;
        return outcome;
      });
    });
    if (!pending) return decide(results as Outcome[][], path, next);
    Promise.all(results.map((outcomes) => Promise.all(outcomes.map((o) => Promise.resolve(o))))).then((settled) => decide(settled, path, next), next);
  };
}

function decide(results: Outcome[][], path: string, next: (error?: unknown) => void) {
  if (results.some((outcomes) => outcomes.every((o) => o.success))) return next();
  const first = results.flat().find((o) => !o.success)!;
  next(validatorErrors.http({ status: first.status, path, message: first.error?.message || 'unauthorized' }));
}

function runHandler(req: Request, schemes: Record<string, SecuritySchemeObject>, handlers: Record<string, SecurityHandler>, name: string, scopesGiven: string[] | undefined): Outcome | Promise<Outcome> {
  try {
    const scheme = schemes[name];
    const handler: HandlerWithScheme | undefined = handlers[name];
    const scopes = Array.isArray(scopesGiven) ? scopesGiven : [];
    if (!scheme) throw validatorErrors.internal({ message: `components.securitySchemes.${name} does not exist` });
    if (!Object.hasOwn(scheme, 'type')) throw validatorErrors.internal({ message: `components.securitySchemes.${name} must have property 'type'` });
    if (!handler) throw validatorErrors.internal({ message: `a security handler for '${name}' does not exist` });
    credentialPresent(req, scheme);
    const answer = handler(req, scopes, scheme);
    if (answer instanceof Promise) return answer.then((value) => (value === true ? passed : failed(new Error())), failed);
    return answer === true ? passed : failed(new Error());
  } catch (error) {
    return failed(error);
  }
}

function failed(error: unknown): Outcome {
  const e = (error ?? {}) as { status?: number; message?: string };
  return { success: false, status: e.status ?? 401, error: e };
}

/** The library's AuthValidator: the credential a scheme names must be there before its handler runs. */
function credentialPresent(req: Request, declared: SecuritySchemeObject) {
  // Read as the library reads it: `in` and `name` of an `http` scheme too (a bearer token in a cookie).
  const scheme: { type: string; in?: unknown; name?: unknown; scheme?: unknown } = declared;
  const type = String(scheme.type).toLowerCase();
  const name = String(scheme.name);
  if (scheme.type === 'apiKey') {
    if (scheme.in === 'header' && !req.headers[name.toLowerCase()]) throw Error(`'${name}' header required`);
    if (scheme.in === 'query' && !(req.query as Record<string, unknown>)[name]) throw Error(`query parameter '${name}' required`);
    if (scheme.in === 'cookie' && !req.cookies[name] && !req.signedCookies?.[name]) throw Error(`cookie '${name}' required`);
  }
  if (type === 'http') {
    const authHeader = req.headers.authorization && req.headers.authorization.toLowerCase();
    const authCookie = req.cookies?.[name] || req.signedCookies?.[name];
    const kind = scheme.scheme && String(scheme.scheme).toLowerCase();
    if (kind === 'bearer') {
      if (authHeader && !authHeader.includes('bearer')) throw Error(`Authorization header with scheme 'Bearer' required`);
      if (!authHeader && !authCookie) throw Error(scheme.in === 'cookie' ? `Cookie authentication required` : `Authorization header required`);
    }
    if (kind === 'basic') {
      if (!authHeader) throw Error(`Authorization header required`);
      if (!authHeader.includes('basic')) throw Error(`Authorization header with scheme 'Basic' required`);
    }
  }
}

function isEmptyObject(o: unknown): boolean {
  return typeof o === 'object' && o !== null && Object.keys(o).length === 0 && o.constructor === Object;
}
