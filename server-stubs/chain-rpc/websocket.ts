import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { errorResponse, RpcErrorCode, type ChainNode } from './node.js';

export interface WebSocketEndpoint {
  /** Takes an upgrade for the WebSocket path; false for any other path. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Terminates every open WebSocket without a close handshake, as a dropped network would. */
  dropConnections(): void;
  /** Stops taking connections (the open ones stay: drop them first). */
  close(): Promise<void>;
}

/** JSON-RPC 2.0 over the WebSocket at `wsPath`: every method, plus subscriptions. */
export function webSocketEndpoint(node: ChainNode, wsPath: string): WebSocketEndpoint {
  const wss = new WebSocketServer({ noServer: true });
  const sockets = new Set<WebSocket>();
  wss.on('connection', (ws: WebSocket) => {
    sockets.add(ws);
    serveConnection(node, ws, () => sockets.delete(ws));
  });
  const dropConnections = () => {
    for (const ws of sockets) ws.terminate();
  };
  return {
    upgrade(req, socket, head) {
      const path = (req.url ?? '').split('?')[0];
      if (path !== wsPath && path !== `${wsPath}/`) return false;
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
      return true;
    },
    dropConnections,
    async close() {
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** One client's socket: its messages go to the node, the node's answers and notifications come back. */
function serveConnection(node: ChainNode, ws: WebSocket, onClose: () => void): void {
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
    onClose();
    node.disconnect(conn);
  });
  ws.on('error', () => ws.terminate());
}
