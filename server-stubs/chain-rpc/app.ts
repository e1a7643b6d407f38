import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { WebSocketServer, type WebSocket } from 'ws';
import cors from 'cors';
import type { StubEnvironment, StubInstance, StubService } from '../lib/service.js';
import { ChainNode, errorResponse, RpcErrorCode, type ChainNodeOptions, type Connection } from './node.js';

export { ChainNode, NOTIFICATION_METHOD, RpcErrorCode } from './node.js';
export { ChainStore } from './store.js';
export { encodeStubTransaction, decodeStubTransaction } from './rawtx.js';

export const BASE_PATH = '/chain-rpc';
/** WebSocket path, below the base path. */
export const WS_PATH = `${BASE_PATH}/ws`;

export interface ChainRpcStubOptions extends ChainNodeOptions, StubEnvironment {
  /** Mine a block every this many milliseconds; 0 disables (mine with `chain_mine` or `node.store.mine()`). Default 10 000. */
  mineIntervalMs?: number;
  /** Largest accepted HTTP body, in bytes or as `'1mb'`, `'512kb'`; default 1 MB (1 048 576 bytes). */
  bodyLimit?: string | number;
}

export interface ChainRpcStubInstance extends StubInstance {
  upgrade: NonNullable<StubInstance['upgrade']>;
  close: () => Promise<void>;
  node: ChainNode;
  /** Terminates every open WebSocket without a close handshake, as a dropped network would. */
  dropConnections(): void;
}

/**
 * The local chain node: JSON-RPC 2.0 over `POST /` (queries; batches allowed) and over the
 * WebSocket at `/chain-rpc/ws` (everything, plus subscriptions).
 */
export function createChainRpcStub(options: ChainRpcStubOptions = {}): ChainRpcStubInstance {
  const node = new ChainNode(options);
  const router: Router = express.Router();
  // Wallet pages call the node from their own origin (DECISIONS G-3).
  router.use(cors({ origin: options.corsOrigins ?? true, maxAge: 600 }));
  router.use(express.raw({ type: () => true, limit: options.bodyLimit ?? '1mb' }));

  const httpConnection: Connection = { subscriptions: new Map() };
  router.post('/', (req: Request, res: Response) => {
    const charset = charsetOf(req.headers['content-type']);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      bodyFailure(res, 415, `the body must be UTF-8, not ${charset}`, { charset });
      return;
    }
    let message: unknown;
    if (Buffer.isBuffer(req.body)) {
      try {
        message = JSON.parse(utf8.decode(req.body));
      } catch (err) {
        res.json(errorResponse(null, RpcErrorCode.PARSE_ERROR, 'Parse error', { message: err instanceof Error ? err.message : String(err) }));
        return;
      }
    } else if (req.body !== undefined && req.body !== null && typeof req.body === 'object') {
      message = req.body; // a JSON body parser ran before this router
    } else {
      res.json(errorResponse(null, RpcErrorCode.PARSE_ERROR, 'Parse error', { message: 'empty body' }));
      return;
    }
    const out = node.handleMessage(message, httpConnection);
    if (out === undefined) res.status(204).end();
    else res.json(out);
  });
  router.all('/', (_req, res) => {
    res.status(405).set('Allow', 'POST').json(errorResponse(null, RpcErrorCode.INVALID_REQUEST, 'Invalid Request', 'send JSON-RPC 2.0 with POST; subscriptions use the WebSocket at ' + WS_PATH));
  });
  // Express's own fallbacks answer HTML (with a stack trace for errors): every answer below the
  // base path is JSON-RPC instead.
  router.use((req, res) => {
    const ws = req.path === '/ws' || req.path === '/ws/';
    res
      .status(ws ? 426 : 404)
      .set(ws ? { Upgrade: 'websocket', Connection: 'Upgrade' } : {})
      .json(errorResponse(null, RpcErrorCode.INVALID_REQUEST, 'Invalid Request', ws ? `${WS_PATH} takes WebSocket upgrades only` : `no endpoint here: POST ${BASE_PATH}, WebSocket ${WS_PATH}`));
  });
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    answerBodyError(err, res);
  });

  const wss = new WebSocketServer({ noServer: true });
  const sockets = new Set<WebSocket>();
  wss.on('connection', (ws: WebSocket) => {
    sockets.add(ws);
    const send = (message: unknown) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    const conn = node.connect(send);
    ws.on('message', (data, isBinary) => {
      let message: unknown;
      try {
        message = JSON.parse(isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString());
      } catch (err) {
        send(errorResponse(null, RpcErrorCode.PARSE_ERROR, 'Parse error', { message: err instanceof Error ? err.message : String(err) }));
        return;
      }
      const out = node.handleMessage(message, conn);
      if (out !== undefined) send(out);
    });
    ws.on('close', () => {
      sockets.delete(ws);
      node.disconnect(conn);
    });
    ws.on('error', () => ws.terminate());
  });

  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): boolean => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== WS_PATH && path !== `${WS_PATH}/`) return false;
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    return true;
  };

  const interval = options.mineIntervalMs ?? 10_000;
  const timer = interval > 0 ? setInterval(() => node.store.mine(), interval) : undefined;
  timer?.unref();

  const dropConnections = () => {
    for (const ws of sockets) ws.terminate();
  };

  const close = async () => {
    if (timer) clearInterval(timer);
    dropConnections();
    node.close();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  };

  return { router, upgrade, close, node, dropConnections, state: node.store.state, reset: () => node.store.reset() };
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

const service: StubService<ChainRpcStubOptions> = {
  slug: 'chain-rpc',
  basePath: BASE_PATH,
  title: 'Chain RPC node (JSON-RPC 2.0 over HTTP POST /chain-rpc and WebSocket /chain-rpc/ws)',
  credentials: [],
  create: (options) => createChainRpcStub(options),
};

export default service;
