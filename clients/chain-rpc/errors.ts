import type { ValidationIssue } from '../../generated/schemas/chain-rpc/index.gen.js';

/**
 * What went wrong, from the caller's point of view (PROVISIONAL: the published document says a
 * unified error pattern exists but does not show it):
 * - `transport`: the node could not be reached, or answered HTTP without a JSON-RPC body;
 * - `rpc`: the node answered a JSON-RPC error (`code`, `data` as it sent them);
 * - `invalid_request`: the call or the client config failed the published schema before sending (`issues`);
 * - `invalid_response`: the node answered something that is not valid JSON-RPC or not the published type (`issues`);
 * - `timeout`: no answer within `timeoutMs`;
 * - `closed`: the client was closed, the socket dropped under a pending call, or reconnecting gave up.
 */
export type ChainRpcErrorKind = 'transport' | 'rpc' | 'invalid_request' | 'invalid_response' | 'timeout' | 'closed';

export { RpcErrorCode, type RpcErrorCodeName, type RpcErrorCodeValue } from './codes.js';

export interface ChainRpcErrorDetails {
  /** The JSON-RPC method being called, when there is one. */
  method?: string;
  /** JSON-RPC error code (kind `rpc`). */
  code?: number;
  /** JSON-RPC error data (kind `rpc`), or the offending answer (kind `invalid_response`). */
  data?: unknown;
  /** Readable schema violations (kinds `invalid_request`, `invalid_response`). */
  issues?: ValidationIssue[];
  /** HTTP status, when an HTTP answer was received. */
  status?: number;
  cause?: unknown;
}

/** The one error type every client method rejects with. */
export class ChainRpcError extends Error {
  override readonly name = 'ChainRpcError';
  readonly kind: ChainRpcErrorKind;
  readonly method: string | undefined;
  readonly code: number | undefined;
  readonly data: unknown;
  readonly issues: ValidationIssue[] | undefined;
  readonly status: number | undefined;

  constructor(kind: ChainRpcErrorKind, message: string, details: ChainRpcErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = kind;
    this.method = details.method;
    this.code = details.code;
    this.data = details.data;
    this.issues = details.issues;
    this.status = details.status;
  }

  /** A plain object for logs. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, kind: this.kind, message: this.message, method: this.method, code: this.code, data: this.data, issues: this.issues, status: this.status };
  }
}

export function isChainRpcError(value: unknown): value is ChainRpcError {
  return value instanceof ChainRpcError;
}
