import { readFileSync } from 'node:fs';
import {
  validate,
  type BlockNotification,
  type SubscribeRequest,
  type Subscription,
  type TransactionNotification,
  type ValidationIssue,
  type ValidationResult,
} from '../../generated/schemas/chain-rpc/index.gen.js';
import { RpcErrorCode } from '../../clients/chain-rpc/codes.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { ChainStore, TxRejectedError, type ChainEvent, type ChainStoreOptions } from './store.js';

/**
 * JSON-RPC 2.0 over any transport: the HTTP router and the WebSocket server both hand parsed
 * messages to `ChainNode.handleMessage`. The wire binding is described in
 * schemas/chain-rpc/chain-rpc.openrpc.json (PROVISIONAL: the published document does not show it).
 */

export { RpcErrorCode };

/** Message and code of each way the store refuses a transaction. */
const REJECTION = {
  undecodable: { code: RpcErrorCode.TRANSACTION_REJECTED, message: 'Transaction rejected' },
  unknown_output: { code: RpcErrorCode.UNKNOWN_OUTPUT, message: 'Unknown output' },
  insufficient_funds: { code: RpcErrorCode.INSUFFICIENT_FUNDS, message: 'Insufficient funds' },
} as const;

export type JsonRpcId = string | number | null;

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcError };

/** A caller's connection: HTTP requests have no push channel, WebSocket connections do. */
export interface Connection {
  /** Sends a server-to-client message; undefined for HTTP. */
  push?: (message: unknown) => void;
  /** Subscriptions opened on this connection, by id. */
  subscriptions: Map<string, SubscribeRequest & { subscription: Subscription }>;
}

export const NOTIFICATION_METHOD = 'chain_subscription';

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

function invalidParams(result: { errors: ValidationIssue[]; message: string }): RpcFailure {
  return new RpcFailure(RpcErrorCode.INVALID_PARAMS, `Invalid params: ${result.message}`, { errors: result.errors });
}

function check<T>(result: ValidationResult<T>): T {
  if (!result.ok) throw invalidParams(result);
  return result.value;
}

type Rule = (v: unknown) => string | undefined;

/**
 * Validation for the designed, schema-less param objects (no params, unsubscribe, mine). Keys come
 * from the caller, so lookups are own-property only: `toString` or `__proto__` must be an unknown
 * param, not a rule inherited from Object.prototype.
 */
function checkSmall(params: Record<string, unknown>, fields: Record<string, Rule>, required: string[], name: string): void {
  const errors: ValidationIssue[] = [];
  for (const key of required) if (!Object.hasOwn(params, key)) errors.push({ path: '', message: `must have required property '${key}'` });
  for (const [key, value] of Object.entries(params)) {
    const rule = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (!rule) errors.push({ path: '', message: `must NOT have additional properties: ${key}` });
    else {
      const problem = rule(value);
      if (problem) errors.push({ path: `/${key}`, message: problem });
    }
  }
  if (errors.length) {
    throw invalidParams({ errors, message: `invalid ${name}: ${errors.map((e) => `${e.path || '(root)'} ${e.message}`).join('; ')}` });
  }
}

let openRpcDocument: unknown;
/** The node's OpenRPC document (what `rpc.discover` answers), read once. */
export function loadOpenRpc(): unknown {
  openRpcDocument ??= JSON.parse(readFileSync(new URL('../../schemas/chain-rpc/chain-rpc.openrpc.json', import.meta.url), 'utf8'));
  return openRpcDocument;
}

export interface ChainNodeOptions extends ChainStoreOptions {
  clock?: Clock;
  /** Where subscriptions are served, named in the error a subscription over HTTP gets. */
  webSocketPath?: string;
}

type Handler = (params: Record<string, unknown>, conn: Connection) => unknown;

export class ChainNode {
  readonly store: ChainStore;
  private readonly clock: Clock;
  private readonly webSocketPath: string | undefined;
  private readonly connections = new Set<Connection>();
  private nextSubscription = 1;
  private readonly unlisten: () => void;
  private readonly methods: Record<string, Handler>;

  constructor(options: ChainNodeOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.webSocketPath = options.webSocketPath;
    this.store = new ChainStore({ ...options, clock: this.clock });
    this.unlisten = this.store.subscribe((event) => this.fanOut(event));
    this.methods = { ...this.queryMethods(), ...this.subscriptionMethods(), ...this.developmentMethods() };
  }

  /** The chain's queries and the one write (sending a transaction), over HTTP and the WebSocket alike. */
  private queryMethods(): Record<string, Handler> {
    return {
      chain_getBlock: (params) => {
        const req = check(validate.GetBlockRequest(params));
        const include = req.includeTransactions ?? true;
        const block = 'hash' in req ? this.store.blockByHash(req.hash, include) : this.store.blockByHeight(req.height, include);
        if (!block) {
          throw new RpcFailure(RpcErrorCode.BLOCK_NOT_FOUND, 'Block not found', 'hash' in req ? { hash: req.hash } : { height: req.height, tip: this.store.height });
        }
        return block;
      },
      chain_getTransaction: (params) => {
        const req = check(validate.GetTransactionRequest(params));
        const tx = this.store.transaction(req.txid);
        if (!tx) throw new RpcFailure(RpcErrorCode.TRANSACTION_NOT_FOUND, 'Transaction not found', { txid: req.txid });
        return tx;
      },
      chain_sendTransaction: (params) => {
        const req = check(validate.SendTransactionRequest(params));
        try {
          return this.store.send(req.raw);
        } catch (err) {
          if (err instanceof TxRejectedError) {
            const { code, message } = REJECTION[err.kind];
            throw new RpcFailure(code, message, { reason: err.message, ...err.data });
          }
          throw err;
        }
      },
      chain_estimateFee: (params) => this.store.estimateFee(check(validate.EstimateFeeRequest(params))),
      chain_getChainInfo: (params) => {
        checkSmall(params, {}, [], 'params');
        return this.store.chainInfo();
      },
      chain_getMempoolInfo: (params) => {
        checkSmall(params, {}, [], 'params');
        return this.store.mempoolInfo();
      },
    };
  }

  /** Subscriptions live on a push-capable connection (a WebSocket). */
  private subscriptionMethods(): Record<string, Handler> {
    return {
      chain_subscribe: (params, conn) => {
        const req = check(validate.SubscribeRequest(params));
        if (!conn.push) {
          throw new RpcFailure(RpcErrorCode.SUBSCRIPTIONS_NEED_WEBSOCKET, 'Subscriptions need the WebSocket endpoint', this.webSocketPath ? { path: this.webSocketPath } : undefined);
        }
        const subscription: Subscription = { id: `sub_${this.nextSubscription++}`, type: req.type, createdAt: new Date(this.clock.now()).toISOString() };
        conn.subscriptions.set(subscription.id, { ...req, subscription });
        return subscription;
      },
      chain_unsubscribe: (params, conn) => {
        checkSmall(params, { id: (v) => (typeof v === 'string' && v.length > 0 ? undefined : 'must be a non-empty string') }, ['id'], 'UnsubscribeParams');
        return conn.subscriptions.delete(params.id as string);
      },
    };
  }

  /** The stub's own: mining on demand, and OpenRPC's discovery. */
  private developmentMethods(): Record<string, Handler> {
    return {
      chain_mine: (params) => {
        checkSmall(
          params,
          { count: (v) => (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 100 ? undefined : 'must be an integer from 1 to 100') },
          [],
          'MineParams',
        );
        return this.store.mine((params.count as number | undefined) ?? 1);
      },
      'rpc.discover': (params) => {
        checkSmall(params, {}, [], 'params');
        return loadOpenRpc();
      },
    };
  }

  /** A new push-capable connection (a WebSocket). Call `disconnect` when it closes. */
  connect(push: (message: unknown) => void): Connection {
    const conn: Connection = { push, subscriptions: new Map() };
    this.connections.add(conn);
    return conn;
  }

  disconnect(conn: Connection): void {
    conn.subscriptions.clear();
    this.connections.delete(conn);
  }

  /** Number of open subscriptions across connections (for tests and logs). */
  get subscriptionCount(): number {
    let n = 0;
    for (const c of this.connections) n += c.subscriptions.size;
    return n;
  }

  close(): void {
    this.unlisten();
    for (const c of this.connections) this.disconnect(c);
  }

  /**
   * Handles one parsed JSON-RPC message (a request, a notification or a batch).
   * Returns what to send back, or undefined when nothing is due (notifications only).
   */
  handleMessage(message: unknown, conn: Connection): JsonRpcResponse | JsonRpcResponse[] | undefined {
    if (Array.isArray(message)) {
      if (message.length === 0) return errorResponse(null, RpcErrorCode.INVALID_REQUEST, 'Invalid Request', 'empty batch');
      const out = message.map((m) => this.handleOne(m, conn)).filter((r): r is JsonRpcResponse => r !== undefined);
      return out.length ? out : undefined;
    }
    return this.handleOne(message, conn);
  }

  private handleOne(message: unknown, conn: Connection): JsonRpcResponse | undefined {
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      return errorResponse(null, RpcErrorCode.INVALID_REQUEST, 'Invalid Request', 'a request must be an object');
    }
    const m = message as Record<string, unknown>;
    const has = (key: string) => Object.hasOwn(m, key);
    const idOk = !has('id') || m.id === null || typeof m.id === 'string' || (typeof m.id === 'number' && Number.isFinite(m.id));
    const id: JsonRpcId = idOk && has('id') ? (m.id as JsonRpcId) : null;
    const problems: string[] = [];
    if (!has('jsonrpc') || m.jsonrpc !== '2.0') problems.push("jsonrpc must be '2.0'");
    if (!has('method') || typeof m.method !== 'string') problems.push('method must be a string');
    if (!idOk) problems.push('id must be a string, a number or null');
    if (has('params') && (m.params === null || typeof m.params !== 'object')) problems.push('params must be an object or an array');
    if (problems.length) return errorResponse(id, RpcErrorCode.INVALID_REQUEST, 'Invalid Request', problems.join('; '));

    const isNotification = !has('id');
    const method = m.method as string;
    const handler = Object.hasOwn(this.methods, method) ? this.methods[method] : undefined;
    let response: JsonRpcResponse;
    if (!handler) {
      response = errorResponse(id, RpcErrorCode.METHOD_NOT_FOUND, 'Method not found', { method });
    } else {
      try {
        const params = byName(has('params') ? m.params : undefined);
        response = { jsonrpc: '2.0', id, result: handler(params, conn) };
      } catch (err) {
        if (err instanceof RpcFailure) response = errorResponse(id, err.code, err.message, err.data);
        else {
          // A bug in the stub: the log gets the stack, the caller no internals (messages can hold file paths).
          console.error(`chain-rpc: ${method} failed:`, err);
          response = errorResponse(id, RpcErrorCode.INTERNAL_ERROR, 'Internal error', { method });
        }
      }
    }
    return isNotification ? undefined : response;
  }

  private fanOut(event: ChainEvent): void {
    for (const conn of this.connections) {
      for (const [id, sub] of conn.subscriptions) {
        const result = notificationFor(sub, event);
        if (result) conn.push?.({ jsonrpc: '2.0', method: NOTIFICATION_METHOD, params: { subscription: id, result } });
      }
    }
  }
}

/** PROVISIONAL routing of events to subscription types (see SubscriptionType.json). */
function notificationFor(sub: SubscribeRequest, event: ChainEvent): BlockNotification | TransactionNotification | undefined {
  if (event.kind === 'block') return sub.type === 'blocks' ? { type: 'block', block: event.block } : undefined;
  switch (sub.type) {
    case 'transactions':
      return { type: 'transaction', transaction: event.transaction };
    case 'mempool':
      return event.change === 'failed' ? undefined : { type: 'transaction', transaction: event.transaction };
    case 'address':
      return sub.address !== undefined && event.addresses.includes(sub.address)
        ? { type: 'transaction', transaction: event.transaction, address: sub.address }
        : undefined;
    default:
      return undefined;
  }
}

/** Params are by-name; an absent or empty positional list counts as no params. */
function byName(params: unknown): Record<string, unknown> {
  if (params === undefined) return {};
  if (Array.isArray(params)) {
    if (params.length === 0) return {};
    throw new RpcFailure(RpcErrorCode.INVALID_PARAMS, 'Invalid params: params are by-name (an object), not positional', {
      errors: [{ path: '', message: 'must be object' }],
    });
  }
  return params as Record<string, unknown>;
}

export function errorResponse(id: JsonRpcId, code: number, message: string, data?: unknown): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}
