import {
  validate,
  type Block,
  type BlockNotification,
  type ChainInfo,
  type EstimateFeeRequest,
  type FeeEstimate,
  type GetBlockRequest,
  type GetTransactionRequest,
  type MempoolInfo,
  type RpcConfig,
  type SendTransactionRequest,
  type SendTransactionResponse,
  type SubscribeRequest,
  type Subscription,
  type SubscriptionType,
  type Transaction,
  type TransactionNotification,
} from '../../generated/schemas/chain-rpc/index.gen.js';
import { ChainRpcError } from './errors.js';
import { createHttpCaller } from './http-call.js';
import { checkParams, checkResult } from './jsonrpc.js';
import { RpcSocket } from './socket.js';

export { ChainRpcError, isChainRpcError, RpcErrorCode, type ChainRpcErrorKind, type ChainRpcErrorDetails, type RpcErrorCodeName, type RpcErrorCodeValue } from './errors.js';

/** Backoff between reconnect attempts: initialDelayMs * factor^(attempt-1), capped at maxDelayMs. */
export interface ReconnectOptions {
  /** Default 250 ms. */
  initialDelayMs?: number;
  /** Default 10 000 ms. */
  maxDelayMs?: number;
  /** Default 2. */
  factor?: number;
  /** Give up after this many failed attempts in a row; default unlimited. */
  maxAttempts?: number;
}

export type ConnectionState = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'closed';

/** Client-only options beside the published RpcConfig. */
export interface ChainRpcClientOptions {
  /** `false` turns reconnecting off: a dropped socket ends every subscription with a `closed` error. */
  reconnect?: ReconnectOptions | false;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** WebSocket state changes, e.g. to show "reconnecting" in a UI. */
  onConnectionChange?: (state: ConnectionState) => void;
  /** After a reconnect, once every active subscription is open again (notifications sent meanwhile are not replayed). */
  onReconnect?: (info: { attempts: number; subscriptions: number }) => void;
  /** Errors that belong to no call: malformed WebSocket messages, subscriptions without an onError. */
  onError?: (error: ChainRpcError) => void;
}

export type ChainRpcClientConfig = RpcConfig & ChainRpcClientOptions;

export type NotificationFor<T extends SubscriptionType> = T extends 'blocks' ? BlockNotification : TransactionNotification;

export interface SubscribeOptions {
  /** Invalid notifications, a failed re-subscribe, or reconnecting giving up (then the subscription is inactive). */
  onError?: (error: ChainRpcError) => void;
}

/** A client-side subscription handle: stays the same object (and id) across reconnects. */
export interface ChainSubscription<T extends SubscriptionType = SubscriptionType> {
  /** Client-side id, stable for the handle's lifetime (`c1`, `c2`, ...). */
  readonly id: string;
  readonly request: SubscribeRequest & { type: T };
  /** The node's current Subscription; its id changes after a reconnect. */
  readonly subscription: Subscription;
  /** False after unsubscribe, client close, or when reconnecting gave up. */
  readonly active: boolean;
  unsubscribe(): Promise<void>;
}

export interface ChainRpcClient {
  readonly config: Readonly<RpcConfig>;
  getBlock(request: GetBlockRequest): Promise<Block>;
  getTransaction(request: GetTransactionRequest): Promise<Transaction>;
  sendTransaction(request: SendTransactionRequest): Promise<SendTransactionResponse>;
  estimateFee(request?: EstimateFeeRequest): Promise<FeeEstimate>;
  getChainInfo(): Promise<ChainInfo>;
  getMempoolInfo(): Promise<MempoolInfo>;
  subscribe<T extends SubscriptionType>(
    request: SubscribeRequest & { type: T },
    onNotification: (notification: NotificationFor<T>, subscription: ChainSubscription<T>) => void,
    options?: SubscribeOptions,
  ): Promise<ChainSubscription<T>>;
  /** Accepts the handle or its client-side id; a no-op for unknown or inactive ones. */
  unsubscribe(subscription: ChainSubscription | string): Promise<void>;
  readonly connectionState: ConnectionState;
  /** Closes the WebSocket and ends every subscription; later calls reject with `closed`. */
  close(): Promise<void>;
}

interface Handle {
  id: string;
  request: SubscribeRequest;
  subscription: Subscription;
  /** pending until the node first answers, active while notifications flow, ended for good */
  status: 'pending' | 'active' | 'ended';
  /** the socket the node subscription lives on */
  socket: RpcSocket | undefined;
  onNotification: (notification: never, subscription: never) => void;
  onError: ((error: ChainRpcError) => void) | undefined;
  public: ChainSubscription;
}

const RPC_CONFIG_KEYS = ['endpoint', 'apiKey', 'timeoutMs', 'headers', 'wsEndpoint', 'network'] as const;

/**
 * A typed chain RPC client. Queries go as JSON-RPC 2.0 over HTTP POST to `endpoint`;
 * subscriptions over the WebSocket at `wsEndpoint`, reconnected with backoff after a drop, each
 * active subscription re-opened. Every answer is checked against the published schemas.
 */
export function createChainRpcClient(config: ChainRpcClientConfig): ChainRpcClient {
  const picked: Record<string, unknown> = {};
  for (const key of RPC_CONFIG_KEYS) if (config[key] !== undefined) picked[key] = config[key];
  const rpcConfig = checkParams('createChainRpcClient', picked, validate.RpcConfig);
  const timeoutMs = rpcConfig.timeoutMs ?? 30_000;
  const network = rpcConfig.network ?? 'mainnet';
  const doFetch = config.fetch ?? globalThis.fetch;
  const reconnect = config.reconnect === false ? undefined : { initialDelayMs: 250, maxDelayMs: 10_000, factor: 2, maxAttempts: Infinity, ...config.reconnect };
  const headers: Record<string, string> = { ...rpcConfig.headers };
  if (rpcConfig.apiKey) headers.authorization = `Bearer ${rpcConfig.apiKey}`;

  let nextHandle = 1;
  let closed = false;
  let state: ConnectionState = 'idle';
  let socket: RpcSocket | undefined;
  let opening: Promise<RpcSocket> | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let reconnectLoop = false;
  const handles = new Map<string, Handle>();
  /** node subscription id -> handle */
  const byNodeId = new Map<string, Handle>();

  const setState = (next: ConnectionState) => {
    if (state === next) return;
    state = next;
    config.onConnectionChange?.(next);
  };
  const reportError = (error: ChainRpcError, handle?: Handle) => {
    if (handle?.onError) handle.onError(error);
    else config.onError?.(error);
  };

  const call = createHttpCaller({ endpoint: rpcConfig.endpoint, headers, timeoutMs, fetch: doFetch, isClosed: () => closed });

  // ---- WebSocket and subscriptions

  function onNotification(method: string, params: unknown): void {
    if (method !== 'chain_subscription') {
      reportError(new ChainRpcError('invalid_response', `unknown notification method ${method}`, { method, data: params }));
      return;
    }
    const p = params as { subscription?: unknown; result?: unknown } | null;
    const handle = p && typeof p === 'object' && typeof p.subscription === 'string' ? byNodeId.get(p.subscription) : undefined;
    if (!handle) {
      if (!(p && typeof p === 'object' && typeof p.subscription === 'string')) {
        reportError(new ChainRpcError('invalid_response', 'chain_subscription: params.subscription must be a string', { method, data: params, issues: [{ path: '/params/subscription', message: 'must be string' }] }));
      }
      return; // a late notification for a subscription we already left
    }
    if (handle.status !== 'active') return;
    const result = handle.request.type === 'blocks' ? validate.BlockNotification(p!.result) : validate.TransactionNotification(p!.result);
    if (!result.ok) {
      reportError(new ChainRpcError('invalid_response', `chain_subscription: ${result.message}`, { method, data: p!.result, issues: result.errors }), handle);
      return;
    }
    try {
      (handle.onNotification as (n: unknown, s: ChainSubscription) => void)(result.value, handle.public);
    } catch (err) {
      // The caller's bug, not the node's: surface it as an uncaught error, outside the socket's handler.
      queueMicrotask(() => {
        throw err;
      });
    }
  }

  function onUnexpectedClose(reason: ChainRpcError): void {
    socket = undefined;
    byNodeId.clear();
    if (closed || reconnectLoop) return; // a running reconnect loop notices on its own
    const active = [...handles.values()].filter((h) => h.status === 'active');
    if (active.length === 0) {
      setState('idle');
      return;
    }
    if (!reconnect) {
      endAll(new ChainRpcError('closed', `${reason.message}; reconnecting is off`));
      setState('idle');
      return;
    }
    reconnectLoop = true;
    setState('reconnecting');
    scheduleReconnect(1);
  }

  function scheduleReconnect(attempt: number): void {
    if (closed || !reconnect) return;
    const delay = Math.min(reconnect.maxDelayMs, reconnect.initialDelayMs * reconnect.factor ** (attempt - 1));
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      void reconnectNow(attempt);
    }, delay);
  }

  async function reconnectNow(attempt: number): Promise<void> {
    if (closed || !reconnect) return;
    let s: RpcSocket | undefined;
    try {
      s = await openSocket();
      const opened = s;
      // Re-open every active subscription not yet registered on this socket (subscribe() may have raced us).
      const todo = [...handles.values()].filter((h) => h.status === 'active' && h.socket !== opened);
      await Promise.all(
        todo.map((h) =>
          nodeSubscribe(opened, h).catch((err: unknown) => {
            // The node refused this subscription now: end it alone. Transport trouble fails the round.
            if (err instanceof ChainRpcError && (err.kind === 'rpc' || err.kind === 'invalid_response')) {
              end(h, err);
              return;
            }
            throw err;
          }),
        ),
      );
      if (!opened.isOpen) throw new ChainRpcError('closed', 'the WebSocket closed while re-subscribing');
      reconnectLoop = false;
      setState('open');
      config.onReconnect?.({ attempts: attempt, subscriptions: [...handles.values()].filter((h) => h.status === 'active').length });
    } catch (err) {
      if (closed) return;
      if (s?.isOpen) s.close(); // e.g. a timed-out re-subscribe: start over on a fresh socket
      if (socket === s) socket = undefined;
      byNodeId.clear();
      if (![...handles.values()].some((h) => h.status === 'active')) {
        reconnectLoop = false;
        setState('idle');
        return;
      }
      if (attempt >= reconnect.maxAttempts) {
        reconnectLoop = false;
        endAll(new ChainRpcError('closed', `gave up reconnecting after ${attempt} attempts: ${err instanceof Error ? err.message : String(err)}`, { cause: err }));
        setState('idle');
        return;
      }
      scheduleReconnect(attempt + 1);
    }
  }

  function end(h: Handle, error?: ChainRpcError): void {
    if (h.status === 'ended') return;
    h.status = 'ended';
    handles.delete(h.id);
    if (byNodeId.get(h.subscription.id) === h) byNodeId.delete(h.subscription.id);
    if (error) reportError(error, h);
  }

  function endAll(error: ChainRpcError): void {
    for (const h of [...handles.values()]) end(h, error);
    byNodeId.clear();
  }

  function openSocket(): Promise<RpcSocket> {
    if (socket?.isOpen) return Promise.resolve(socket);
    if (opening) return opening;
    if (!rpcConfig.wsEndpoint) {
      return Promise.reject(new ChainRpcError('invalid_request', 'subscriptions need RpcConfig.wsEndpoint', { issues: [{ path: '/wsEndpoint', message: 'is required for subscriptions' }] }));
    }
    if (state !== 'reconnecting') setState('connecting');
    opening = RpcSocket.open({
      url: rpcConfig.wsEndpoint,
      headers,
      timeoutMs,
      onNotification,
      onUnexpectedClose,
      onProtocolError: (e) => reportError(e),
    })
      .then((s) => {
        opening = undefined;
        if (closed) {
          s.close();
          throw new ChainRpcError('closed', 'the client is closed');
        }
        socket = s;
        if (state !== 'reconnecting') setState('open');
        return s;
      })
      .catch((err: unknown) => {
        opening = undefined;
        if (state === 'connecting') setState('idle');
        throw err;
      });
    return opening;
  }

  /**
   * chain_subscribe on `s` for `h`. The node id is registered synchronously with the answer, so a
   * notification right behind it finds its handle.
   */
  function nodeSubscribe(s: RpcSocket, h: Handle): Promise<Subscription> {
    return s.request('chain_subscribe', h.request, (result) => {
      const sub = checkResult('chain_subscribe', result, validate.Subscription);
      if (sub.type !== h.request.type) {
        throw new ChainRpcError('invalid_response', `chain_subscribe: asked for ${h.request.type}, the node opened ${sub.type}`, {
          method: 'chain_subscribe',
          data: result,
          issues: [{ path: '/type', message: `must be ${JSON.stringify(h.request.type)}` }],
        });
      }
      if (h.status === 'ended') {
        // Unsubscribed while the answer was on its way: close it on the node too.
        s.request('chain_unsubscribe', { id: sub.id }, () => undefined).catch(() => undefined);
        return sub;
      }
      if (byNodeId.get(h.subscription.id) === h) byNodeId.delete(h.subscription.id);
      h.subscription = sub;
      h.socket = s;
      h.status = 'active';
      handles.set(h.id, h);
      byNodeId.set(sub.id, h);
      return sub;
    });
  }

  async function unsubscribe(target: ChainSubscription | string): Promise<void> {
    const h = handles.get(typeof target === 'string' ? target : target.id);
    if (!h || h.status === 'ended') return;
    const nodeId = h.subscription.id;
    const onSocket = h.socket;
    end(h);
    if (![...handles.values()].some((x) => x.status === 'active') && reconnectLoop) {
      if (reconnectTimer) clearTimeout(reconnectTimer);
      reconnectTimer = undefined;
      reconnectLoop = false;
      setState('idle');
    }
    if (onSocket && onSocket === socket && onSocket.isOpen) {
      await onSocket.request('chain_unsubscribe', { id: nodeId }, (result) => {
        if (typeof result !== 'boolean') {
          throw new ChainRpcError('invalid_response', 'chain_unsubscribe: the answer must be a boolean', {
            method: 'chain_unsubscribe',
            data: result,
            issues: [{ path: '', message: 'must be boolean' }],
          });
        }
        return result;
      });
    }
  }

  const client: ChainRpcClient = {
    config: { ...rpcConfig, network, timeoutMs },
    get connectionState() {
      return state;
    },
    // async: a bad request rejects like every other failure instead of throwing synchronously
    getBlock: async (request) => call('chain_getBlock', checkParams('chain_getBlock', request, validate.GetBlockRequest), validate.Block),
    getTransaction: async (request) =>
      call('chain_getTransaction', checkParams('chain_getTransaction', request, validate.GetTransactionRequest), validate.Transaction),
    sendTransaction: async (request) =>
      call('chain_sendTransaction', checkParams('chain_sendTransaction', request, validate.SendTransactionRequest), validate.SendTransactionResponse),
    estimateFee: async (request = {}) => call('chain_estimateFee', checkParams('chain_estimateFee', request, validate.EstimateFeeRequest), validate.FeeEstimate),
    getChainInfo: () => call('chain_getChainInfo', {}, validate.ChainInfo),
    getMempoolInfo: () => call('chain_getMempoolInfo', {}, validate.MempoolInfo),

    async subscribe(request, onNotification, options = {}) {
      const req = checkParams('chain_subscribe', request, validate.SubscribeRequest);
      if (closed) throw new ChainRpcError('closed', 'chain_subscribe: the client is closed', { method: 'chain_subscribe' });
      const id = `c${nextHandle++}`;
      const h: Handle = {
        id,
        request: req,
        subscription: { id: '', type: req.type },
        status: 'pending',
        socket: undefined,
        onNotification: onNotification as Handle['onNotification'],
        onError: options.onError,
        public: undefined as unknown as ChainSubscription,
      };
      h.public = {
        id,
        request: req as SubscribeRequest & { type: never },
        get subscription() {
          return h.subscription;
        },
        get active() {
          return h.status === 'active';
        },
        unsubscribe: () => unsubscribe(id),
      };
      // One retry when the socket drops between opening and answering.
      for (let attempt = 1; ; attempt++) {
        const s = await openSocket();
        try {
          await nodeSubscribe(s, h);
          return h.public as ChainSubscription<typeof request.type>;
        } catch (err) {
          if (attempt < 2 && err instanceof ChainRpcError && err.kind === 'closed' && !closed) continue;
          h.status = 'ended';
          throw err;
        }
      }
    },

    unsubscribe,

    async close() {
      if (closed) return;
      closed = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      reconnectTimer = undefined;
      reconnectLoop = false;
      for (const h of handles.values()) h.status = 'ended';
      handles.clear();
      byNodeId.clear();
      const s = socket ?? (await opening?.catch(() => undefined));
      socket = undefined;
      s?.close();
      setState('closed');
    },
  };
  return client;
}
