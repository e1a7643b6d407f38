import { validate, type RpcConfig } from '../../generated/schemas/chain-rpc/index.gen.js';
import { checkParams } from './jsonrpc.js';
import type { ChainRpcClientConfig, ReconnectOptions } from './types.js';

/** The client's settings, read once from its config with the defaults filled in. */
export interface ClientSettings {
  /** the published RpcConfig part, validated */
  rpcConfig: RpcConfig;
  timeoutMs: number;
  network: NonNullable<RpcConfig['network']>;
  /** sent on every call and WebSocket upgrade, the API key's `authorization` among them */
  headers: Record<string, string>;
  /** undefined: reconnecting is off */
  reconnect: Required<ReconnectOptions> | undefined;
  fetch: typeof fetch;
}

const RPC_CONFIG_KEYS = ['endpoint', 'apiKey', 'timeoutMs', 'headers', 'wsEndpoint', 'network'] as const;

const RECONNECT_DEFAULTS: Required<ReconnectOptions> = { initialDelayMs: 250, maxDelayMs: 10_000, factor: 2, maxAttempts: Infinity };

/** Validates the RpcConfig part of `config` (an `invalid_request` otherwise) and fills in the defaults. */
export function readClientConfig(config: ChainRpcClientConfig): ClientSettings {
  // Only the published keys are validated: the client-only options (callbacks, fetch) are not RpcConfig.
  const picked: Record<string, unknown> = {};
  for (const key of RPC_CONFIG_KEYS) if (config[key] !== undefined) picked[key] = config[key];
  const rpcConfig = checkParams('createChainRpcClient', picked, validate.RpcConfig);
  const headers: Record<string, string> = { ...rpcConfig.headers };
  if (rpcConfig.apiKey) headers.authorization = `Bearer ${rpcConfig.apiKey}`;
  return {
    rpcConfig,
    timeoutMs: rpcConfig.timeoutMs ?? 30_000,
    network: rpcConfig.network ?? 'mainnet',
    headers,
    reconnect: config.reconnect === false ? undefined : { ...RECONNECT_DEFAULTS, ...config.reconnect },
    fetch: config.fetch ?? globalThis.fetch,
  };
}
