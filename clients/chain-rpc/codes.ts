/**
 * JSON-RPC error codes of the chain RPC binding (schemas/chain-rpc/chain-rpc.openrpc.json,
 * `components.errors`). The one definition: the client and the node stub both import it, so this
 * module must stay free of imports (it is bundled for browsers with the client).
 */
export const RpcErrorCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  BLOCK_NOT_FOUND: -32001,
  TRANSACTION_NOT_FOUND: -32002,
  TRANSACTION_REJECTED: -32003,
  SUBSCRIPTIONS_NEED_WEBSOCKET: -32004,
  INSUFFICIENT_FUNDS: -32005,
  UNKNOWN_OUTPUT: -32006,
} as const;

export type RpcErrorCodeName = keyof typeof RpcErrorCode;
export type RpcErrorCodeValue = (typeof RpcErrorCode)[RpcErrorCodeName];
