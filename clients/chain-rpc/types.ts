import type {
  Block,
  BlockNotification,
  ChainInfo,
  EstimateFeeRequest,
  FeeEstimate,
  GetBlockRequest,
  GetTransactionRequest,
  MempoolInfo,
  RpcConfig,
  SendTransactionRequest,
  SendTransactionResponse,
  SubscribeRequest,
  Subscription,
  SubscriptionType,
  Transaction,
  TransactionNotification,
} from '../../generated/schemas/chain-rpc/index.gen.js';
import type { ChainRpcError } from './errors.js';

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
