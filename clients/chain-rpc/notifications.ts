import { validate } from '../../generated/schemas/chain-rpc/index.gen.js';
import { ChainRpcError } from './errors.js';
import type { Handle } from './subscriptions.js';

export interface NotificationRouting {
  /** the handle of a node subscription id */
  handleOf: (nodeId: string) => Handle | undefined;
  reportError: (error: ChainRpcError, handle?: Handle) => void;
}

/**
 * A server-to-client message from the WebSocket: a `chain_subscription` notification goes, checked
 * against its published schema, to its subscription's callback; anything else is reported.
 */
export function deliverNotification(method: string, params: unknown, routing: NotificationRouting): void {
  if (method !== 'chain_subscription') {
    routing.reportError(new ChainRpcError('invalid_response', `unknown notification method ${method}`, { method, data: params }));
    return;
  }
  const p = params as { subscription?: unknown; result?: unknown } | null;
  if (!(p && typeof p === 'object' && typeof p.subscription === 'string')) {
    routing.reportError(
      new ChainRpcError('invalid_response', 'chain_subscription: params.subscription must be a string', { method, data: params, issues: [{ path: '/params/subscription', message: 'must be string' }] }),
    );
    return;
  }
  const handle = routing.handleOf(p.subscription);
  // No handle: a late notification for a subscription we already left.
  if (!handle || handle.status !== 'active') return;
  const result = handle.request.type === 'blocks' ? validate.BlockNotification(p.result) : validate.TransactionNotification(p.result);
  if (!result.ok) {
    routing.reportError(new ChainRpcError('invalid_response', `chain_subscription: ${result.message}`, { method, data: p.result, issues: result.errors }), handle);
    return;
  }
  try {
    handle.onNotification(result.value, handle.public);
  } catch (err) {
    // The caller's bug, not the node's: surface it as an uncaught error, outside the socket's handler.
    queueMicrotask(() => {
      throw err;
    });
  }
}
