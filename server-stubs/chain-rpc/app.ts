import { isJsonObject } from '../lib/openapi/json-schema.js';
import type { StubEnvironment, StubInstance } from '../lib/service.js';
import { stubAppAround, stubService } from '../lib/stub-app.js';
import { httpEndpoint } from './http.js';
import { ChainNode, loadOpenRpc, type ChainNodeOptions } from './node.js';
import { webSocketEndpoint } from './websocket.js';

export { ChainNode, NOTIFICATION_METHOD, RpcErrorCode } from './node.js';
export { ChainStore } from './store.js';
export { encodeStubTransaction, decodeStubTransaction } from './rawtx.js';

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
 * The node's base path: the path of the first `servers` URL of its OpenRPC document, as every other
 * service's is its OpenAPI contract's (the WebSocket is at `<base>/ws`).
 */
export function chainRpcBasePath(): string {
  const document = loadOpenRpc();
  const server = isJsonObject(document) && Array.isArray(document.servers) ? (document.servers as unknown[])[0] : undefined;
  const url = isJsonObject(server) ? server.url : undefined;
  if (typeof url !== 'string') throw new Error('schemas/chain-rpc/chain-rpc.openrpc.json: servers[0].url is missing');
  return new URL(url).pathname.replace(/\/+$/, '') || '/';
}

/**
 * The local chain node: JSON-RPC 2.0 over `POST <base>` (queries; batches allowed) and over the
 * WebSocket at `<base>/ws` (everything, plus subscriptions).
 */
export function createChainRpcStub(options: ChainRpcStubOptions = {}): ChainRpcStubInstance {
  const basePath = chainRpcBasePath();
  const wsPath = `${basePath}/ws`;
  const node = new ChainNode({ ...options, webSocketPath: wsPath });
  const router = httpEndpoint(node, { basePath, wsPath, corsOrigins: options.corsOrigins, bodyLimit: options.bodyLimit ?? '1mb' });
  const sockets = webSocketEndpoint(node, wsPath);
  const stopMining = mineEvery(node, options.mineIntervalMs ?? 10_000);
  const app = stubAppAround({ router, basePath, state: node.store.state });
  const close = async () => {
    stopMining();
    sockets.dropConnections();
    node.close();
    await sockets.close();
  };
  return { ...app, upgrade: sockets.upgrade, dropConnections: sockets.dropConnections, close, node };
}

/** Mines a block every `intervalMs` (0: never); returns what stops it. */
function mineEvery(node: ChainNode, intervalMs: number): () => void {
  if (intervalMs <= 0) return () => undefined;
  const timer = setInterval(() => node.store.mine(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

export default stubService<ChainRpcStubOptions>(
  {
    slug: 'chain-rpc',
    title: 'Chain RPC node (JSON-RPC 2.0 over HTTP POST /chain-rpc and WebSocket /chain-rpc/ws)',
    credentials: [],
    create: (options) => createChainRpcStub(options),
  },
  chainRpcBasePath,
);
