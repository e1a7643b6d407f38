import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { parseCookies, type Principal, type SecurityHandler } from './auth.js';
import type { Clock } from './clock.js';
import { loadContract, type Contract } from './contract.js';
import { ApiError, type ErrorMapper, type Failure } from './errors.js';
import type { HandlerContext } from './handlers.js';
import { RateLimiter, type RateLimitRule } from './rate-limit.js';
import { eventStreamHeaders, openEventStream } from './sse.js';

/** `Failure.code` of a body that is not valid JSON, for services that word it apart. */
export const INVALID_JSON = 'invalid_json';

export interface ServiceRouterOptions {
  slug: string;
  /** the service's handler map (typed where it is declared, with `satisfies HandlerMap<...>`) */
  handlers: Record<string, (ctx: HandlerContext<any, any>) => unknown>;
  /** one handler per security scheme name of the contract */
  security: Record<string, SecurityHandler>;
  errors: ErrorMapper;
  clock: Clock;
  validateRequests?: boolean;
  validateResponses?: boolean;
  rateLimits?: boolean;
  /**
   * Operations without a handler answer 501 in the service's error body instead of failing at
   * start-up. For a service whose contract has landed before its reference behaviour.
   */
  allowUnimplemented?: boolean;
}

export interface ServiceRouter {
  router: Router;
  contract: Contract;
  limiter: RateLimiter;
}

declare module 'express-serve-static-core' {
  interface Request {
    openapi?: { schema: Record<string, any>; openApiRoute?: string; pathParams?: Record<string, string> };
  }
}

/**
 * The router of one service, to mount at the contract's base path: body parsing, contract validation
 * of requests and responses (express-openapi-validator on the bundle), auth through the contract's
 * security schemes, per-operation rate limits from `x-rate-limit`, dispatch by `operationId`, and one
 * error exit through the service's mapper.
 */
export function createServiceRouter(options: ServiceRouterOptions): ServiceRouter {
  const contract = loadContract(options.slug);
  const limiter = new RateLimiter(options.clock);
  const router = express.Router();
  const missing = [...contract.operations.keys()].filter((id) => !(id in options.handlers));
  if (missing.length > 0 && !options.allowUnimplemented) throw new Error(`${options.slug}: no handler for ${missing.join(', ')}`);

  router.use(parseCookies);
  router.use(express.json({ type: ['application/json', 'application/*+json'], limit: '5mb' }));
  router.use(express.urlencoded({ extended: false, limit: '5mb' }));
  router.use(express.text({ type: ['text/*', 'message/*'], limit: '5mb' }));
  // The validator's types are written against Express 4's; at run time it works with 5.
  router.use(
    ...(OpenApiValidator.middleware({
      apiSpec: structuredClone(contract.document) as never,
      // The build lints every bundle against the OpenAPI schema already; doing it again here
      // would cost a third of the stub's cold start.
      validateApiSpec: false,
      validateRequests: options.validateRequests === false ? false : { allErrors: true },
      validateResponses: options.validateResponses === false ? false : { allErrors: true },
      validateSecurity: { handlers: options.security as never },
      validateFormats: true,
      ignoreUndocumented: false,
    }) as unknown as RequestHandler[]),
  );
  if (options.rateLimits !== false) router.use(rateLimit(limiter));
  router.use(dispatch(options.handlers));
  if (options.allowUnimplemented) router.use(notImplemented);
  router.use(errorExit(options));
  return { router, contract, limiter };
}

function rateLimit(limiter: RateLimiter) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const rule = req.openapi?.schema['x-rate-limit'] as RateLimitRule | undefined;
    if (!rule) return next();
    const who = req.principal?.id ?? req.ip ?? 'anonymous';
    const decision = limiter.take(`${req.openapi!.schema.operationId}:${who}`, rule);
    if (decision.allowed) return next();
    const failure: Failure = {
      kind: 'rate_limited',
      status: 429,
      message: `Rate limit of ${rule.requests} requests per ${rule.windowSeconds} s exceeded; retry after ${decision.retryAfterSeconds} s`,
      headers: { 'Retry-After': String(decision.retryAfterSeconds) },
    };
    next(failure);
  };
}

/** A contract operation that has no handler yet. */
function notImplemented(req: Request, _res: Response, next: NextFunction) {
  const operationId = req.openapi?.schema.operationId as string | undefined;
  if (!operationId) return next();
  const failure: Failure = {
    kind: 'not_implemented',
    status: 501,
    message: `${operationId} (${req.method} ${req.openapi?.openApiRoute ?? req.path}) is in the contract but not implemented by this stub yet`,
  };
  next(failure);
}

function dispatch(handlers: ServiceRouterOptions['handlers']) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const operationId = req.openapi?.schema.operationId as string | undefined;
    const handler = operationId ? handlers[operationId] : undefined;
    if (!handler) return next();
    try {
      const result = (await handler({
        params: (req.openapi?.pathParams ?? req.params) as never,
        query: req.query as never,
        body: req.body as never,
        principal: req.principal as Principal,
        req,
        res,
      })) as { status: number; headers?: Record<string, string>; body?: unknown; stream?: Function; text?: string; contentType?: string };
      if (result.stream) {
        const events = openEventStream(res, { ...eventStreamHeaders, ...(result.headers ?? {}) });
        await result.stream(events);
        return;
      }
      res.status(result.status);
      if (result.headers) res.set(result.headers);
      if (result.text !== undefined) res.type(result.contentType ?? 'text/plain').send(result.text);
      else if (result.body !== undefined) res.json(result.body);
      else res.end();
    } catch (error) {
      next(error);
    }
  };
}

/** Turns anything thrown or passed to `next` into a Failure, then the service's published body. */
function errorExit(options: ServiceRouterOptions) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const failure = toFailure(error, req);
    if (failure.kind === 'internal') console.error(`[${options.slug}] ${req.method} ${req.originalUrl}:`, failure.message);
    if (res.headersSent) {
      res.end();
      return;
    }
    const mapped = options.errors({ ...failure, operation: operationOf(req) });
    res.status(mapped.status);
    res.set({ ...(failure.headers ?? {}), ...(mapped.headers ?? {}) });
    // 501 is not a contract status, so it is sent past the response validator.
    if (failure.kind === 'not_implemented') res.type('application/json').send(JSON.stringify(mapped.body));
    else res.json(mapped.body);
  };
}

function operationOf(req: Request): Failure['operation'] {
  const schema = req.openapi?.schema;
  return schema?.operationId ? { id: String(schema.operationId), tags: (schema.tags as string[] | undefined) ?? [] } : undefined;
}

export function toFailure(error: unknown, req: Request): Failure {
  if (isFailure(error)) return error;
  if (error instanceof ApiError) return apiFailure(error);
  const e = error as { status?: number; type?: string; message?: string; errors?: Array<{ path?: string; message?: string }> };
  if (e?.type === 'entity.parse.failed') {
    return { kind: 'validation', status: 400, code: INVALID_JSON, message: 'Invalid JSON in request body', issues: [{ path: 'body', message: 'is not valid JSON' }] };
  }
  if (e?.type === 'entity.too.large') return { kind: 'validation', status: 413, message: 'Request body too large' };
  const status = e?.status ?? 500;
  if ((status === 401 || status === 403) && req.authFailure) {
    // An auth failure keeps its kind, so each service answers it with its own auth error body.
    return { ...apiFailure(req.authFailure), kind: req.authFailure.status === 403 ? 'forbidden' : 'unauthenticated' };
  }
  if (status === 401) return { kind: 'unauthenticated', status, message: e.message ?? 'Unauthorized' };
  if (status === 403) return { kind: 'forbidden', status, message: e.message ?? 'Forbidden' };
  if (status === 404) return { kind: 'not_found', status, message: `No route ${req.method} ${req.originalUrl.split('?')[0]}` };
  if (status === 405) return { kind: 'method_not_allowed', status, message: `Method ${req.method} not allowed on ${req.originalUrl.split('?')[0]}` };
  if (status === 415) return { kind: 'unsupported_media_type', status, message: e.message ?? 'Unsupported media type' };
  if (status === 400) {
    const issues = (e.errors ?? []).map((i) => ({ path: readablePath(i.path), message: i.message ?? 'is invalid' }));
    return { kind: 'validation', status, message: e.message ?? 'Invalid request', issues };
  }
  const message = e?.message ?? String(error);
  return { kind: 'internal', status: 500, message: /response/.test(message) ? `Response does not match the contract: ${message}` : message };
}

function apiFailure(error: ApiError): Failure {
  return {
    kind: 'api',
    status: error.status,
    message: error.message,
    code: error.code,
    extras: error.extras,
    headers: error.headers,
  };
}

function isFailure(value: unknown): value is Failure {
  return typeof value === 'object' && value !== null && 'kind' in value && 'status' in value && !(value instanceof Error);
}

/** `/body/serpDepth` -> `body.serpDepth`; `/query/projectId` -> `query.projectId`. */
function readablePath(pointer: string | undefined): string {
  if (!pointer) return '';
  return pointer.replace(/^\//, '').replaceAll('/', '.');
}
