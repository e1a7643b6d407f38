import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import type { OpenAPI3 } from 'openapi-typescript';
import { parseCookies, type Principal, type SecurityHandler } from './auth.js';
import { bodyParser, parseBody, parseDeclaredMedia, checkFiniteParameters, pruneUnknownProperties } from './request-body.js';
import { coerceFormFields } from './form-body.js';
import { deserializeStyledParameters } from './parameter-styles.js';
import { browserAccess, type CorsOrigins } from './browser.js';
import type { Clock } from './clock.js';
import { contractValidation } from './contract-validation.js';
import { countAnswers, type CoverageBook } from './coverage.js';
import { runSteps, type Step } from './middleware-chain.js';
import { contractOf, loadContract, type Contract, type OperationInfo } from './contract.js';
import { ApiError, failedOperation, type ErrorMapper } from './errors.js';
import { failureFromThrown, failureOf } from './failures.js';
import type { HandlerMap } from './handlers.js';
import { RateLimiter, type RateLimitRule } from './rate-limit.js';
import { sendResult, writeBody, writeError, type RuntimeResult } from './results.js';

export interface ServiceRouterOptions<Ops, P extends Principal, Defaults> {
  slug: string;
  /** the bundle to serve; generated/<slug>/openapi.json unless given (tests serve fixtures) */
  document?: OpenAPI3;
  /**
   * The service's handlers by operationId (typed where they are declared, by the service's
   * `handlersFor` builder, and joined `satisfies HandlerMap<operations, P, operationDefaults>`). An operation without one answers 501
   * in the service's error body; a key that is not an operation of the contract fails at start.
   */
  handlers: Partial<HandlerMap<Ops, P, Defaults>>;
  /** one handler per security scheme name of the contract */
  security: Record<string, SecurityHandler>;
  errors: ErrorMapper;
  clock: Clock;
  /** operations whose handlers get the exact request bytes as `ctx.rawBody` (signature checks, proxies) */
  rawBody?: ReadonlyArray<keyof Ops & string>;
  /** origins browsers may call from: any by default (DECISIONS G-3) */
  corsOrigins?: CorsOrigins;
  validateRequests?: boolean;
  validateResponses?: boolean;
  rateLimits?: boolean;
  /** where the router counts each answer by operationId and status (`GET /_stub/coverage`); none counts nothing */
  coverage?: CoverageBook;
  /** the largest request body taken (body-parser's notation, `5mb` unless given) */
  bodyLimit?: string;
}

export interface ServiceRouter {
  /** the service as one middleware (not an Express Router: a router's own dispatch per request was a tenth of its allocations) */
  router: RequestHandler;
  contract: Contract;
  limiter: RateLimiter;
  /** operations of the contract that have no handler: they answer 501 */
  unimplemented: string[];
}

/** What the framework learns about a request before anything else: the operation it addresses. */
export interface MatchedRequest {
  operation: OperationInfo;
  /**
   * the path's values: text as matched, read into arrays and objects by their styles, then of their
   * schemas' types after contract validation (`7` for an integer; text without request validation)
   */
  pathParams: Record<string, unknown>;
  wantsRawBody: boolean;
  /** the query after contract validation: coerced, with its defaults (unset without request validation) */
  query?: Record<string, unknown>;
  /** checks a JSON answer against the operation's response (unset without response validation) */
  checkResponse?: (req: Request, res: Response, body: unknown) => void;
}

declare module 'express-serve-static-core' {
  interface Request {
    matched?: MatchedRequest;
    rawBody?: Buffer;
  }
}

type RuntimeHandler = (ctx: Record<string, unknown>) => RuntimeResult | Promise<RuntimeResult>;

/**
 * The router of one service, to mount at the contract's base path. In order: browser access (CORS,
 * OPTIONS), the operation the request addresses (404 and 405 answered here, so every later failure
 * knows its operation and so its error family), the body (only where the operation takes one),
 * contract validation (express-openapi-validator on the bundle), auth through the contract's
 * security schemes, rate limits from `x-rate-limit`, dispatch by operationId, and one error exit
 * through the service's mapper, with the status folded into one the operation declares.
 */
export function createServiceRouter<Ops, P extends Principal = Principal, Defaults = {}>(
  options: ServiceRouterOptions<Ops, P, Defaults>,
): ServiceRouter {
  const contract = options.document ? contractOf(options.slug, options.document) : loadContract(options.slug);
  const written = options.handlers as Record<string, RuntimeHandler | undefined>;
  const unknown = Object.keys(written).filter((id) => !contract.operations.has(id));
  if (unknown.length > 0) throw new Error(`${options.slug}: handlers for operations the contract does not have: ${unknown.join(', ')}`);
  const handlers = withAliases(written, contract);
  const unimplemented = [...contract.operations.keys()].filter((id) => !handlers[id]);
  const rawBody = withAliasIds(new Set<string>(options.rawBody ?? []), contract);
  const limiter = new RateLimiter(options.clock);
  const steps: Step[] = [
    ...(options.coverage ? [countAnswers(options.coverage.service(contract), matchedOperation)] : []),
    browserAccess(contract, options.corsOrigins),
    matchOperation(contract, rawBody),
    parseCookies,
    deserializeStyledParameters(contract),
    options.bodyLimit ? bodyParser(options.bodyLimit) : parseBody,
    parseDeclaredMedia(contract),
    coerceFormFields(contract),
    checkFiniteParameters(contract),
    pruneUnknownProperties(contract),
    // Each operation's validators are built on its first request, not at start: compiling them is
    // most of a service's start-up cost.
    contractValidation(contract, {
      validateRequests: options.validateRequests !== false,
      validateResponses: options.validateResponses !== false,
      security: options.security,
    }),
    ...(options.rateLimits !== false ? [rateLimit(limiter)] : []),
    dispatch(handlers, contract, options.validateResponses !== false),
  ];
  const exit = errorExit(options.slug, options.errors);
  // The steps run as one middleware, and every failure leaves through the service's error exit.
  const router: RequestHandler = (req, res, next) => runSteps(steps, req, res, (error?: unknown) => (error ? exit(error, req, res, next) : next()));
  return { router, contract, limiter, unimplemented };
}

/**
 * An operation the contract marks `x-alias-of: <operationId>` is its twin served at a second path
 * (the `platform/path-aliases` bundle decorator writes them: mail's `/api/v1/...` beside `/v1/...`,
 * DECISIONS P-2), identical but for its operationId. It is served by the twin's handler unless the
 * service writes one of its own: one routing rule here, not a registration per alias in each
 * service. The twin's handler is type-checked against the twin's operation, which is the alias's
 * (test/mail/api-aliases.test.ts holds the generated types to that); validation, security, rate
 * limit and the answer's check still run on the alias's own contract entry.
 */
function withAliases(written: Record<string, RuntimeHandler | undefined>, contract: Contract): Record<string, RuntimeHandler | undefined> {
  const handlers = { ...written };
  for (const [id, twin] of aliasTwins(contract)) handlers[id] ??= written[twin];
  return handlers;
}

/** The operations the router gives special treatment by id (raw bodies), with their aliases. */
function withAliasIds(ids: Set<string>, contract: Contract): Set<string> {
  for (const [id, twin] of aliasTwins(contract)) if (ids.has(twin)) ids.add(id);
  return ids;
}

function aliasTwins(contract: Contract): Array<[alias: string, twin: string]> {
  return [...contract.operations].flatMap(([id, operation]) => {
    const twin: unknown = operation.op['x-alias-of'];
    return typeof twin === 'string' && contract.operations.has(twin) ? [[id, twin] as [string, string]] : [];
  });
}

/** The operation a request addressed, as `matchOperation` found it. */
const matchedOperation = (req: IncomingMessage) => (req as Request).matched?.operation;

/** Sets `req.matched`, or fails with 404 (no such path) or 405 with `Allow` (no such method). */
function matchOperation(contract: Contract, rawBody: Set<string>) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const match = contract.match(req.method, req.path);
    switch (match.kind) {
      case 'operation':
        // Every field set here, later ones too: one object shape, no property store grown per request.
        req.matched = { operation: match.operation, pathParams: match.pathParams, wantsRawBody: rawBody.has(match.operation.id), query: undefined, checkResponse: undefined };
        // HEAD is a GET without the body: Node drops the body of a HEAD answer by itself.
        if (match.head) req.method = 'GET';
        return next();
      case 'method_not_allowed':
        return next(failureOf('method_not_allowed', 405, `Method ${req.method} is not allowed on ${req.baseUrl}${req.path}; allowed: ${match.allow.join(', ')}`, {
          headers: { Allow: match.allow.join(', ') },
          near: failedOperation(match.near),
        }));
      case 'malformed_path':
        return next(failureOf('not_found', 404, `No route ${req.method} ${req.baseUrl}${req.path}: the path is not valid percent-encoding`, { near: failedOperation(match.near) }));
      case 'not_found':
        return next(failureOf('not_found', 404, `No route ${req.method} ${req.baseUrl}${req.path}`, { near: match.near && failedOperation(match.near) }));
    }
  };
}

function rateLimit(limiter: RateLimiter) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const operation = req.matched?.operation;
    const rule = operation?.op['x-rate-limit'] as RateLimitRule | undefined;
    if (!operation || !rule) return next();
    const who = req.principal?.id ?? req.ip ?? 'anonymous';
    const decision = limiter.take(`${rule.bucket ?? operation.id}:${who}`, rule);
    if (decision.allowed) return next();
    next(
      failureOf('rate_limited', 429, `Rate limit of ${rule.requests} requests per ${rule.windowSeconds} s exceeded; retry after ${decision.retryAfterSeconds} s`, {
        headers: { 'Retry-After': String(decision.retryAfterSeconds) },
      }),
    );
  };
}

function dispatch(handlers: Record<string, RuntimeHandler | undefined>, contract: Contract, validateFrames: boolean) {
  return (req: Request, res: Response, next: NextFunction) => {
    const operation = req.matched?.operation;
    if (!operation) return next(failureOf('not_found', 404, `No route ${req.method} ${req.baseUrl}${req.path}`));
    const handler = handlers[operation.id];
    if (!handler) {
      return next(
        failureOf('not_implemented', 501, `${operation.id} (${operation.method.toUpperCase()} ${operation.path}) is in the contract but not implemented by this stub yet`),
      );
    }
    const at = { contract, operation, validateFrames, checkBody: req.matched!.checkResponse };
    // A handler that answers synchronously is answered in the same turn: no promise and no
    // microtask per request for the (many) handlers that never wait.
    try {
      const result = handler({
        params: req.matched!.pathParams,
        query: req.matched!.query ?? req.query,
        headers: req.headers,
        body: req.body,
        cookies: req.cookies ?? noCookies,
        rawBody: req.rawBody,
        files: req.files,
        principal: req.principal,
        fail: failRequest,
        req,
        res,
      });
      if (result instanceof Promise) return void result.then((answer) => sendResult(res, answer, at)).catch(next);
      sendResult(res, result, at)?.catch(next);
    } catch (error) {
      next(error);
    }
  };
}

/** The cookies of a request without any: one object for every such request. */
const noCookies: Record<string, never> = Object.freeze({});

/** A handler's `fail`: one function for every request (a closure per request would cost its allocation). */
function failRequest(status: number, code: string | undefined, message: string, extras?: Record<string, unknown>, headers?: Record<string, string>): never {
  throw new ApiError(status, code, message, extras, headers);
}

/** Every failure leaves here, in the service's body, with a status its operation declares. */
function errorExit(slug: string, errors: ErrorMapper) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const operation = req.matched?.operation;
    const failure = failureFromThrown(error, req);
    if (failure.kind === 'internal') console.error(`[${slug}] ${req.method} ${req.originalUrl}: ${failure.message}`, error instanceof Error ? error.stack : '');
    if (res.headersSent) {
      // A stream that failed half-way: all that is left is to end it.
      res.end();
      return;
    }
    const mapped = errors({ ...failure, operation: operation && failedOperation(operation) });
    res.status(mapped.status);
    res.set({ ...(failure.headers ?? {}), ...(mapped.headers ?? {}) });
    if (mapped.page !== undefined && req.accepts(['application/json', 'text/html']) === 'text/html') {
      writeBody(res, mapped.page, 'text/html; charset=utf-8');
      return;
    }
    // Sent as written bytes so the response validator does not take an error body for a handler's
    // answer; the conformance and fuzz tests hold the mappers to the contract.
    writeError(res, mapped);
  };
}

