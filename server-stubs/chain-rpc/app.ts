import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import express, { type Request, type Response, type Router } from 'express';
import { WebSocketServer, type WebSocket } from 'ws';
import type { StubInstance, StubService } from '../lib/service.js';
import { ChainNode, ERROR, errorResponse, type ChainNodeOptions, type Connection } from './node.js';

export { ChainNode, ERROR, NOTIFICATION_METHOD } from './node.js';
export { ChainStore } from './store.js';
export { encodeStubTransaction, decodeStubTransaction } from './rawtx.js';

export const BASE_PATH = '/chain-rpc';
/** WebSocket path, below the base path. */
export const WS_PATH = `${BASE_PATH}/ws`;

export interface ChainRpcStubOptions extends ChainNodeOptions {
  /** Mine a block every this many milliseconds; 0 disables (mine with `chain_mine` or `node.store.mine()`). Default 10 000. */
  mineIntervalMs?: number;
  /** Largest accepted HTTP body; default 1 MB. */
  bodyLimit?: string;
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
  router.use(express.raw({ type: () => true, limit: options.bodyLimit ?? '1mb' }));

  const httpConnection: Connection = { subscriptions: new Map() };
  router.post('/', (req: Request, res: Response) => {
    let message: unknown;
    if (Buffer.isBuffer(req.body)) {
      try {
        message = JSON.parse(req.body.toString('utf8'));
      } catch (err) {
        res.json(errorResponse(null, ERROR.PARSE, 'Parse error', { message: err instanceof Error ? err.message : String(err) }));
        return;
      }
    } else if (req.body !== undefined && req.body !== null && typeof req.body === 'object') {
      message = req.body; // a JSON body parser ran before this router
    } else {
      res.json(errorResponse(null, ERROR.PARSE, 'Parse error', { message: 'empty body' }));
      return;
    }
    const out = node.handleMessage(message, httpConnection);
    if (out === undefined) res.status(204).end();
    else res.json(out);
  });
  router.get('/', (_req, res) => {
    res.status(405).set('Allow', 'POST').json(errorResponse(null, ERROR.INVALID_REQUEST, 'Invalid Request', 'send JSON-RPC 2.0 with POST; subscriptions use the WebSocket at ' + WS_PATH));
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
        send(errorResponse(null, ERROR.PARSE, 'Parse error', { message: err instanceof Error ? err.message : String(err) }));
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

  return { router, upgrade, close, node, dropConnections };
}

const service: StubService<ChainRpcStubOptions> = {
  slug: 'chain-rpc',
  basePath: BASE_PATH,
  title: 'Chain RPC node (JSON-RPC 2.0 over HTTP POST /chain-rpc and WebSocket /chain-rpc/ws)',
  credentials: [],
  create: (options) => createChainRpcStub(options),
};

export default service;
