import type { SubscribeRequest, Subscription } from '../../generated/schemas/chain-rpc/index.gen.js';
import type { ChainRpcError } from './errors.js';
import type { RpcSocket } from './socket.js';
import type { ChainSubscription } from './types.js';

/** The client's record of one subscription, behind the handle the caller holds. */
export interface Handle {
  id: string;
  request: SubscribeRequest;
  subscription: Subscription;
  /** pending until the node first answers, active while notifications flow, ended for good */
  status: 'pending' | 'active' | 'ended';
  /** the socket the node subscription lives on */
  socket: RpcSocket | undefined;
  onNotification: (notification: unknown, subscription: ChainSubscription) => void;
  onError: ((error: ChainRpcError) => void) | undefined;
  public: ChainSubscription;
}

/**
 * Every subscription the client holds, by its client-side id and by the node's id. A handle is
 * listed once the node first opened it; its node id changes on every re-subscribe.
 */
export class SubscriptionRegistry {
  private readonly handles = new Map<string, Handle>();
  /** node subscription id -> handle */
  private readonly byNodeId = new Map<string, Handle>();
  private nextId = 1;

  constructor(private readonly reportError: (error: ChainRpcError, handle?: Handle) => void) {}

  /** A pending handle, not listed yet; its public view unsubscribes through `unsubscribe`. */
  create(
    request: SubscribeRequest,
    onNotification: Handle['onNotification'],
    onError: Handle['onError'],
    unsubscribe: (id: string) => Promise<void>,
  ): Handle {
    const id = `c${this.nextId++}`;
    const handle: Handle = { id, request, subscription: { id: '', type: request.type }, status: 'pending', socket: undefined, onNotification, onError, public: undefined as unknown as ChainSubscription };
    handle.public = {
      id,
      request: request as SubscribeRequest & { type: never },
      get subscription() {
        return handle.subscription;
      },
      get active() {
        return handle.status === 'active';
      },
      unsubscribe: () => unsubscribe(id),
    };
    return handle;
  }

  get(id: string): Handle | undefined {
    return this.handles.get(id);
  }

  byNode(nodeId: string): Handle | undefined {
    return this.byNodeId.get(nodeId);
  }

  active(): Handle[] {
    return [...this.handles.values()].filter((h) => h.status === 'active');
  }

  hasActive(): boolean {
    return [...this.handles.values()].some((h) => h.status === 'active');
  }

  /** The node opened `subscription` for the handle on `socket`: it is active and listed under its new node id. */
  activate(handle: Handle, subscription: Subscription, socket: RpcSocket): void {
    if (this.byNodeId.get(handle.subscription.id) === handle) this.byNodeId.delete(handle.subscription.id);
    handle.subscription = subscription;
    handle.socket = socket;
    handle.status = 'active';
    this.handles.set(handle.id, handle);
    this.byNodeId.set(subscription.id, handle);
  }

  /** Ends a handle for good; the error, if any, goes to its onError (else the client's). */
  end(handle: Handle, error?: ChainRpcError): void {
    if (handle.status === 'ended') return;
    handle.status = 'ended';
    this.handles.delete(handle.id);
    if (this.byNodeId.get(handle.subscription.id) === handle) this.byNodeId.delete(handle.subscription.id);
    if (error) this.reportError(error, handle);
  }

  endAll(error: ChainRpcError): void {
    for (const handle of [...this.handles.values()]) this.end(handle, error);
    this.byNodeId.clear();
  }

  /** The socket is gone, and with it every node id. */
  forgetNodeIds(): void {
    this.byNodeId.clear();
  }

  /** The client closed: every handle ends without a word. */
  endSilently(): void {
    for (const handle of this.handles.values()) handle.status = 'ended';
    this.handles.clear();
    this.byNodeId.clear();
  }
}
