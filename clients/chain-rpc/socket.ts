import type WebSocket from 'ws';
import { ChainRpcError } from './errors.js';
import { readEnvelope, rpcError } from './jsonrpc.js';

export interface RpcSocketOptions {
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** A server-to-client JSON-RPC notification. */
  onNotification: (method: string, params: unknown) => void;
  /** The socket closed without `close()` being called. */
  onUnexpectedClose: (reason: ChainRpcError) => void;
  /** Something arrived that is not valid JSON-RPC and belongs to no pending call. */
  onProtocolError: (error: ChainRpcError) => void;
}

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: ChainRpcError) => void;
  timer: NodeJS.Timeout;
  onResult: (result: unknown) => unknown;
}

/** `WebSocket.OPEN` of every implementation (the WHATWG value `ws` follows). */
const OPEN = 1;

/**
 * `ws`, loaded when the first subscription opens a socket: queries and validators need no WebSocket,
 * so the package loads without `ws` (an optional peer dependency) and only a subscription asks for it.
 */
async function loadWebSocket(url: string): Promise<typeof WebSocket> {
  try {
    return (await import('ws')).default;
  } catch (err) {
    throw new ChainRpcError('transport', `WebSocket ${url}: subscriptions need the \`ws\` package (npm install ws); queries work without it`, { cause: err });
  }
}

/** One WebSocket carrying JSON-RPC 2.0 calls and notifications. */
export class RpcSocket {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closing = false;

  private constructor(
    private readonly ws: WebSocket,
    private readonly options: RpcSocketOptions,
  ) {
    ws.on('message', (data) => this.onMessage(data.toString()));
    ws.on('close', (code, reason) => this.onClose(code, reason.toString()));
    ws.on('error', () => {
      /* followed by 'close' */
    });
  }

  /** Opens the socket; rejects with `transport` or `timeout`. */
  static async open(options: RpcSocketOptions): Promise<RpcSocket> {
    const WebSocketClass = await loadWebSocket(options.url);
    return new Promise((resolve, reject) => {
      let ws: WebSocket;
      try {
        ws = new WebSocketClass(options.url, { headers: options.headers });
      } catch (err) {
        // A bad URL, or a browser bundle, where `ws` is a stub that throws.
        reject(new ChainRpcError('transport', `WebSocket ${options.url}: ${err instanceof Error ? err.message : String(err)}`, { cause: err }));
        return;
      }
      const timer = setTimeout(() => {
        ws.terminate();
        reject(new ChainRpcError('timeout', `WebSocket ${options.url}: not open after ${options.timeoutMs} ms`));
      }, options.timeoutMs);
      const fail = (err: Error) => {
        clearTimeout(timer);
        ws.removeAllListeners();
        ws.on('error', () => undefined);
        ws.terminate();
        reject(new ChainRpcError('transport', `WebSocket ${options.url}: ${err.message}`, { cause: err }));
      };
      ws.once('error', fail);
      ws.once('unexpected-response', (_req, res) => fail(new Error(`HTTP ${res.statusCode} instead of a WebSocket upgrade`)));
      ws.once('open', () => {
        clearTimeout(timer);
        ws.removeAllListeners();
        resolve(new RpcSocket(ws, options));
      });
    });
  }

  get isOpen(): boolean {
    return !this.closing && this.ws.readyState === OPEN;
  }

  /**
   * Calls a method. `onResult` runs synchronously when the answer arrives, before any later
   * message is handled (subscription bookkeeping relies on this); what it returns resolves the call,
   * what it throws rejects it.
   */
  request<T>(method: string, params: unknown, onResult: (result: unknown) => T): Promise<T> {
    if (!this.isOpen) return Promise.reject(new ChainRpcError('closed', `${method}: the WebSocket is not open`, { method }));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ChainRpcError('timeout', `${method}: no answer within ${this.options.timeoutMs} ms`, { method }));
      }, this.options.timeoutMs);
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, timer, onResult });
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }), (err) => {
        if (!err) return;
        const p = this.pending.get(id);
        if (!p) return;
        this.pending.delete(id);
        clearTimeout(p.timer);
        p.reject(new ChainRpcError('transport', `${method}: ${err.message}`, { method, cause: err }));
      });
    });
  }

  /** Closes on purpose: pending calls reject with `closed`, no reconnect is triggered. */
  close(): void {
    this.closing = true;
    this.rejectAll('the client closed the WebSocket');
    this.ws.close();
  }

  private onMessage(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (err) {
      this.options.onProtocolError(new ChainRpcError('invalid_response', 'WebSocket message is not JSON', { data: text, cause: err }));
      return;
    }
    const m = message as Record<string, unknown> | null;
    if (m !== null && typeof m === 'object' && !Array.isArray(m) && typeof m.method === 'string' && !Object.hasOwn(m, 'id')) {
      this.options.onNotification(m.method, m.params);
      return;
    }
    const id = m !== null && typeof m === 'object' ? (m as Record<string, unknown>).id : undefined;
    const pending = typeof id === 'number' ? this.pending.get(id) : undefined;
    if (!pending) {
      this.options.onProtocolError(new ChainRpcError('invalid_response', 'WebSocket message answers no pending call', { data: message }));
      return;
    }
    this.pending.delete(id as number);
    clearTimeout(pending.timer);
    try {
      const env = readEnvelope(message, pending.method);
      if (env.kind === 'error') throw rpcError(pending.method, env);
      pending.resolve(pending.onResult(env.result));
    } catch (err) {
      pending.reject(err instanceof ChainRpcError ? err : new ChainRpcError('invalid_response', String(err), { method: pending.method, cause: err }));
    }
  }

  private onClose(code: number, reason: string): void {
    this.rejectAll(`the WebSocket closed (${code}${reason ? ` ${reason}` : ''})`);
    if (!this.closing) {
      this.closing = true;
      this.options.onUnexpectedClose(new ChainRpcError('closed', `WebSocket closed unexpectedly (${code}${reason ? ` ${reason}` : ''})`));
    }
  }

  private rejectAll(why: string): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(new ChainRpcError('closed', `${p.method}: ${why}`, { method: p.method }));
    }
  }
}
