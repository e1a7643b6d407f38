import { validate, type Subscription } from '../../generated/schemas/chain-rpc/index.gen.js';
import { ChainRpcError } from './errors.js';
import { checkResult } from './jsonrpc.js';
import type { RpcSocket } from './socket.js';
import type { Handle, SubscriptionRegistry } from './subscriptions.js';

/**
 * chain_subscribe on `socket` for `handle`. The node id is registered synchronously with the
 * answer, so a notification right behind it finds its handle.
 */
export function subscribeOnNode(socket: RpcSocket, handle: Handle, registry: SubscriptionRegistry): Promise<Subscription> {
  return socket.request('chain_subscribe', handle.request, (result) => {
    const subscription = checkResult('chain_subscribe', result, validate.Subscription);
    if (subscription.type !== handle.request.type) {
      throw new ChainRpcError('invalid_response', `chain_subscribe: asked for ${handle.request.type}, the node opened ${subscription.type}`, {
        method: 'chain_subscribe',
        data: result,
        issues: [{ path: '/type', message: `must be ${JSON.stringify(handle.request.type)}` }],
      });
    }
    if (handle.status === 'ended') {
      // Unsubscribed while the answer was on its way: close it on the node too.
      socket.request('chain_unsubscribe', { id: subscription.id }, () => undefined).catch(() => undefined);
      return subscription;
    }
    registry.activate(handle, subscription, socket);
    return subscription;
  });
}

/** chain_unsubscribe of a node subscription id; the node answers a boolean. */
export function unsubscribeOnNode(socket: RpcSocket, nodeId: string): Promise<boolean> {
  return socket.request('chain_unsubscribe', { id: nodeId }, (result) => {
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
