import { createHttpCaller } from './http-call.js';
import { readClientConfig } from './config.js';
import { queryMethods } from './queries.js';
import { SubscriptionSession } from './session.js';
import type { ChainRpcClient, ChainRpcClientConfig } from './types.js';

export { ChainRpcError, isChainRpcError, RpcErrorCode, type ChainRpcErrorKind, type ChainRpcErrorDetails, type RpcErrorCodeName, type RpcErrorCodeValue } from './errors.js';
export type {
  ChainRpcClient,
  ChainRpcClientConfig,
  ChainRpcClientOptions,
  ChainSubscription,
  ConnectionState,
  NotificationFor,
  ReconnectOptions,
  SubscribeOptions,
} from './types.js';

/**
 * A typed chain RPC client. Queries go as JSON-RPC 2.0 over HTTP POST to `endpoint`;
 * subscriptions over the WebSocket at `wsEndpoint`, reconnected with backoff after a drop, each
 * active subscription re-opened. Every answer is checked against the published schemas.
 */
export function createChainRpcClient(config: ChainRpcClientConfig): ChainRpcClient {
  const settings = readClientConfig(config);
  const { rpcConfig, headers, timeoutMs } = settings;
  const session = new SubscriptionSession({
    wsEndpoint: rpcConfig.wsEndpoint,
    headers,
    timeoutMs,
    reconnect: settings.reconnect,
    onConnectionChange: config.onConnectionChange,
    onReconnect: config.onReconnect,
    onError: config.onError,
  });
  const call = createHttpCaller({ endpoint: rpcConfig.endpoint, headers, timeoutMs, fetch: settings.fetch, isClosed: () => session.isClosed });
  return {
    config: { ...rpcConfig, network: settings.network, timeoutMs },
    get connectionState() {
      return session.connectionState;
    },
    ...queryMethods(call),
    subscribe: (request, onNotification, options) => session.subscribe(request, onNotification, options),
    unsubscribe: (subscription) => session.unsubscribe(subscription),
    close: () => session.close(),
  };
}
