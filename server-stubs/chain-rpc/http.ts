import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import cors from 'cors';
import type { CorsOrigins } from '../lib/browser.js';
import { errorResponse, RpcErrorCode, type ChainNode, type Connection } from './node.js';

export interface HttpEndpointOptions {
  basePath: string;
  wsPath: string;
  corsOrigins?: CorsOrigins | undefined;
  /** Largest accepted HTTP body, in bytes or as `'1mb'`, `'512kb'`. */
  bodyLimit: string | number;
}

/**
 * JSON-RPC 2.0 over `POST /` below the base path (queries; batches allowed). Every answer below the
 * base path is JSON-RPC: Express's own fallbacks would answer HTML (with a stack trace for errors).
 */
export function httpEndpoint(node: ChainNode, options: HttpEndpointOptions): Router {
  const router: Router = express.Router();
  // Wallet pages call the node from their own origin (DECISIONS G-3).
  router.use(cors({ origin: options.corsOrigins ?? true, maxAge: 600 }));
  router.use(express.raw({ type: () => true, limit: options.bodyLimit }));
  const connection: Connection = { subscriptions: new Map() };
  router.post('/', (req: Request, res: Response) => answerCall(node, connection, req, res));
  router.all('/', (_req, res) => {
    res.status(405).set('Allow', 'POST').json(errorResponse(null, RpcErrorCode.INVALID_REQUEST, 'Invalid Request', `send JSON-RPC 2.0 with POST; subscriptions use the WebSocket at ${options.wsPath}`));
  });
  router.use((req, res) => answerNoEndpoint(req, res, options));
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    answerBodyError(err, res);
  });
  return router;
}

/** One POSTed message (a call, a notification or a batch), read as UTF-8 JSON and handed to the node. */
function answerCall(node: ChainNode, connection: Connection, req: Request, res: Response): void {
  const charset = charsetOf(req.headers['content-type']);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    bodyFailure(res, 415, `the body must be UTF-8, not ${charset}`, { charset });
    return;
  }
  const message = messageOf(req.body);
  if ('parseError' in message) {
    res.json(errorResponse(null, RpcErrorCode.PARSE_ERROR, 'Parse error', { message: message.parseError }));
    return;
  }
  const out = node.handleMessage(message.value, connection);
  if (out === undefined) res.status(204).end();
  else res.json(out);
}

function messageOf(body: unknown): { value: unknown } | { parseError: string } {
  if (Buffer.isBuffer(body)) {
    try {
      return { value: JSON.parse(utf8.decode(body)) };
    } catch (err) {
      return { parseError: err instanceof Error ? err.message : String(err) };
    }
  }
  // a JSON body parser ran before this router
  if (body !== undefined && body !== null && typeof body === 'object') return { value: body };
  return { parseError: 'empty body' };
}

function answerNoEndpoint(req: Request, res: Response, { basePath, wsPath }: HttpEndpointOptions): void {
  const ws = req.path === '/ws' || req.path === '/ws/';
  res
    .status(ws ? 426 : 404)
    .set(ws ? { Upgrade: 'websocket', Connection: 'Upgrade' } : {})
    .json(errorResponse(null, RpcErrorCode.INVALID_REQUEST, 'Invalid Request', ws ? `${wsPath} takes WebSocket upgrades only` : `no endpoint here: POST ${basePath}, WebSocket ${wsPath}`));
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '');
  return match?.[1]?.toLowerCase();
}

/**
 * HTTP body failures, before any JSON-RPC is read. The answer is a JSON-RPC error (-32600, id null)
 * with the HTTP status saying what went wrong at the HTTP level (413, 415, 400); every answer after
 * the body was read is HTTP 200 as before.
 */
function bodyFailure(res: Response, status: number, reason: string, data: Record<string, unknown> = {}): void {
  res.status(status).json(errorResponse(null, RpcErrorCode.INVALID_REQUEST, `Invalid Request: ${reason}`, { reason, ...data }));
}

/** Errors from the body parser (they carry `type` and `status`) and anything else a route threw. */
function answerBodyError(err: unknown, res: Response): void {
  const e = (err ?? {}) as { type?: unknown; status?: unknown; limit?: unknown; encoding?: unknown; charset?: unknown };
  switch (e.type) {
    case 'entity.too.large':
      return bodyFailure(res, 413, `the body exceeds ${String(e.limit)} bytes`, { limit: e.limit });
    case 'encoding.unsupported':
      return bodyFailure(res, 415, `Content-Encoding ${String(e.encoding)} is not supported (identity, gzip, deflate, br)`, { encoding: e.encoding });
    case 'charset.unsupported':
      return bodyFailure(res, 415, `the body must be UTF-8, not ${String(e.charset)}`, { charset: e.charset });
    case 'request.aborted':
      return bodyFailure(res, 400, 'the request was aborted before its body was complete');
    case 'request.size.invalid':
      return bodyFailure(res, 400, 'the body is not as long as Content-Length says');
  }
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return bodyFailure(res, e.status, 'the body could not be read');
  console.error('chain-rpc: unexpected error', err);
  res.status(500).json(errorResponse(null, RpcErrorCode.INTERNAL_ERROR, 'Internal error'));
}
