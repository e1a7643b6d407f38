/**
 * The mock's front: one port, every service at its stub's base path, and in front of each service's
 * Prism the steps a client of the stubs meets first, taken from the stubs' own code:
 * browser access (CORS, preflights; server-stubs/lib/browser.ts), the operation (404, 405 with
 * `Allow`), the seeded credentials (401 in the service's body), `Prefer` resolved (see prefer.ts),
 * then the validating proxy in strict mode (server-stubs/lib/proxy.ts), whose upstream is the Prism
 * gateway: request violations answer the service's error body naming them, and an answer of Prism's
 * off the contract is not passed on.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { OpenAPI3, ParameterObject, SchemaObject } from 'openapi-typescript';
import { deref, HTTP_METHODS, operationAt } from '../server-stubs/lib/openapi/document.js';
import { parseCookies } from '../server-stubs/lib/auth.js';
import { browserAccess, type CorsOrigins } from '../server-stubs/lib/browser.js';
import { answerableKeys, contractOf, declares, type Contract, type OperationInfo } from '../server-stubs/lib/contract.js';
import type { ErrorMapper, Failure } from '../server-stubs/lib/errors.js';
import { failureOf, isFailure } from '../server-stubs/lib/failures.js';
import { createValidatingProxy } from '../server-stubs/lib/proxy.js';
import { countAnswers, coverageEndpoint, type CoverageBook, type CoverageCounter } from '../server-stubs/lib/coverage.js';
import { writeError } from '../server-stubs/lib/results.js';
import type { StubCredential } from '../server-stubs/lib/service.js';
import { checkCredentials } from './credentials.js';
import { checkPresence } from '../server-stubs/lib/presence-security.js';
import { failureFor } from './errors.js';
import { resolvePreference } from '../server-stubs/lib/prefer.js';
import { platformError, withoutAbsolutePaths } from '../server-stubs/lib/transport-errors.js';
import { defaultRoot } from '../server-stubs/lib/root.js';
import { prismQueryOverrides } from './prism-overrides.js';

export interface FrontService {
  slug: string;
  basePath: string;
  contract: Contract;
  /** the document Prism serves, for its example names */
  served: OpenAPI3;
  /** the stub's seeded credentials; none for a contract without a stub (then any credential present passes) */
  credentials?: ReadonlyArray<StubCredential>;
  /** the service's error body, status folded into a declared one (mock/errors.ts) */
  errors: ErrorMapper;
  /** where the proxy forwards: the gateway's URL for the service */
  upstream: string;
  /** where the service's answers are counted (`GET /_stub/coverage`) */
  coverage?: CoverageCounter;
}

export interface FrontOptions {
  corsOrigins?: CorsOrigins;
  log?: (line: string) => void;
}

declare module 'express-serve-static-core' {
  interface Locals {
    operation?: OperationInfo;
  }
}

/**
 * The front app; `routers` is read on every request, so a service's router can be replaced while
 * serving. `/_stub/coverage` answers what the services counted into `coverage`, as the stubs' controls do.
 */
export function createFront(routers: Map<string, { basePath: string; router: Router }>, coverage?: CoverageBook) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use('/_stub/coverage', coverageEndpoint(coverage));
  app.use((req, res, next) => {
    const url = req.url;
    const target = [...routers.values()].find(({ basePath }) => url === basePath || url.startsWith(`${basePath}/`) || url.startsWith(`${basePath}?`));
    if (!target) {
      const { body } = platformError({ kind: 'not_found', status: 404, message: `No mocked service at ${url.split('?')[0]}` });
      res.status(404).type('application/json').send(JSON.stringify({ ...(body as object), services: [...routers.values()].map((r) => r.basePath).sort() }));
      return;
    }
    // Mounted by hand (not `app.use(basePath, …)`) so a restarted service's router takes over at once.
    const baseUrl = req.baseUrl;
    req.baseUrl = target.basePath;
    req.url = url.slice(target.basePath.length) || '/';
    if (!req.url.startsWith('/')) req.url = `/${req.url}`;
    target.router(req, res, (error?: unknown) => {
      req.baseUrl = baseUrl;
      req.url = url;
      next(error);
    });
  });
  return app;
}

/** One service's steps before its Prism. */
export function serviceRouter(service: FrontService, options: FrontOptions = {}): Router {
  const { contract, errors } = service;
  const router = express.Router();
  if (service.coverage) router.use(countAnswers(service.coverage, (_req, res) => (res as Response).locals.operation));
  router.use(browserAccess(contract, options.corsOrigins));
  router.use(parseCookies);
  router.use((req: Request, res: Response, next: NextFunction) => {
    const match = contract.match(req.method, req.path);
    switch (match.kind) {
      case 'operation':
        res.locals.operation = match.operation;
        // A HEAD is the GET without its body (Node drops it); Prism knows only the GET.
        if (match.head) req.method = 'GET';
        // The stubs take `/pulls/` for `/pulls`; Prism would match `/pulls/{id}` with an empty id.
        if (req.path.length > 1 && req.path.endsWith('/') && !match.operation.path.endsWith('/')) req.url = req.url.replace(/\/+(?=\?|$)/, '');
        return next();
      case 'method_not_allowed':
        return next(failureOf('method_not_allowed', 405, `Method ${req.method} is not allowed on ${req.baseUrl}${req.path}; allowed: ${match.allow.join(', ')}`, { headers: { Allow: match.allow.join(', ') } }));
      case 'malformed_path':
        return next(failureOf('not_found', 404, `No route ${req.method} ${req.baseUrl}${req.path}: the path is not valid percent-encoding`));
      case 'not_found':
        return next(failureOf('not_found', 404, `No route ${req.method} ${req.baseUrl}${req.path}`));
    }
  });
  router.use((req: Request, res: Response, next: NextFunction) => {
    const verdict = service.credentials
      ? checkCredentials(contract.document, res.locals.operation!, service.credentials, req)
      : checkPresence(contract.document, res.locals.operation!, req);
    if (verdict.ok) return next();
    next(failureOf('unauthenticated', 401, verdict.message));
  });
  router.use((_req: Request, res: Response, next: NextFunction) => {
    if (answerableKeys(res.locals.operation!).length > 0) return next();
    // An operation that declares no responses (3.1 allows it) promises nothing to mock, and Prism
    // would answer it 500; one that declares only a 1xx cannot end an exchange with it, and Prism
    // would try. An empty success claims the least, as the contract stub answers both.
    res.status(204).end();
  });
  router.use(prismQueryOverrides(service.served));
  router.use((req: Request, res: Response, next: NextFunction) => {
    // The stubs answer their declared media type whatever `Accept` says; Prism answers 406, which no
    // operation declares. So an Accept the operation cannot satisfy is dropped, as the stubs ignore it.
    const types = [...new Set(Object.values(res.locals.operation!.op.responses ?? {}).flatMap((r) => Object.keys(deref(contract.document, r)?.content ?? {})))];
    if (req.headers.accept && types.length > 0 && !req.accepts(types)) delete req.headers.accept;
    const preference = resolvePreference(service.served, res.locals.operation!, req.headers.prefer, req.headers.accept);
    if (preference.kind === 'refused') return next(failureOf('validation', preference.status, preference.message));
    if (preference.kind === 'ignored') delete req.headers.prefer;
    if (preference.kind === 'pinned') req.headers.prefer = preference.header;
    next();
  });
  // Before the proxy, whose own error exit would take these for an unreachable upstream.
  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (!isFailure(error)) return next(error);
    const mapped = errors(failureFor(res.locals.operation, error as Failure));
    writeError(res.status(mapped.status).set({ ...(error.headers ?? {}), ...(mapped.headers ?? {}) }), mapped);
  });
  router.use(createValidatingProxy({ slug: service.slug, upstream: service.upstream, errors, strict: true, forwardTolerated: true, contract: proxyContract(contract), log: options.log ?? (() => {}) }));
  return router;
}

/** Where a service that could not start is mounted: every request answers 503 naming the problem. */
export function unavailableRouter(slug: string, problem: string): Router {
  const router = express.Router();
  router.use((_req: Request, res: Response) => {
    const shown = withoutAbsolutePaths(problem, defaultRoot);
    const { body } = platformError({ kind: 'internal', status: 503, message: `The mock of ${slug} is not running: ${shown}` });
    res.status(503).type('application/json').send(JSON.stringify({ ...(body as object), service: slug, problem: shown }));
  });
  return router;
}

/**
 * The contract as the validating proxy should read it.
 * - The proxy finds a query parameter by its name, but an object spread over the query (`style:
 *   form` exploded, `deepObject`) arrives as its properties' names (`color=red`,
 *   `filter[color]=red`): the proxy would refuse every such request as missing it. Those are not
 *   required of the proxy; Prism, behind it, reads them by their style.
 * - The proxy holds the gateway's answers to the contract, and the gateway answers a request Prism
 *   finds invalid itself: where the operation declares no status for a bad request, that is the
 *   400 in problem+json DECISIONS I-2 prescribes, which the proxy must let through.
 */
export function proxyContract(contract: Contract): Contract {
  let changed = false;
  const spread = (p: ParameterObject) => {
    const type = deref(contract.document, p.schema)?.type;
    const style = p.style ?? 'form';
    return p.in === 'query' && p.required && type === 'object' && (style === 'deepObject' || (style === 'form' && p.explode !== false));
  };
  const document = structuredClone(contract.document);
  for (const operation of contract.operations.values()) {
    const responses = operationAt(document, operation.path, operation.method)?.responses;
    if (!responses || Object.keys(responses).length === 0 || declares(operation, 400) || declares(operation, 422)) continue;
    // `{}`, any body: openapi-typescript's SchemaObject has no form without a `type`.
    responses['400'] = { description: 'The request breaks the contract (RFC 9457)', content: { 'application/problem+json': { schema: {} as SchemaObject } } };
    changed = true;
  }
  for (const rawItem of Object.values(document.paths ?? {})) {
    const item = deref(document, rawItem);
    for (const holder of [item, ...HTTP_METHODS.map((method) => deref(document, item?.[method]))]) {
      for (const parameter of holder?.parameters ?? []) {
        const p = deref(document, parameter);
        if (p && spread(p)) {
          p.required = false;
          changed = true;
        }
      }
    }
  }
  // The schemas it validates against are the contract's own (a 400 added here has `{}`, which
  // passes anything, as a place the contract lacks does): its compiled validators serve both.
  return changed ? { ...contractOf(contract.slug, document), validator: contract.validator } : contract;
}
