import { validate, type SubscribeRequest, type SubscriptionType } from '../../generated/schemas/chain-rpc/index.gen.js';
import { ChainRpcError } from './errors.js';
import { checkParams } from './jsonrpc.js';
import { subscribeOnNode, unsubscribeOnNode } from './node-calls.js';
import { deliverNotification } from './notifications.js';
import { RpcSocket } from './socket.js';
import { SubscriptionRegistry, type Handle } from './subscriptions.js';
import type { ChainRpcClientOptions, ChainSubscription, ConnectionState, NotificationFor, ReconnectOptions, SubscribeOptions } from './types.js';

export interface SessionSettings extends Pick<ChainRpcClientOptions, 'onConnectionChange' | 'onReconnect' | 'onError'> {
  wsEndpoint: string | undefined;
  headers: Record<string, string>;
  timeoutMs: number;
  /** undefined: reconnecting is off */
  reconnect: Required<ReconnectOptions> | undefined;
}

/**
 * The client's WebSocket side: one socket, opened when the first subscription asks for it, the
 * subscriptions on it, and after a drop, reconnecting with backoff and re-opening every active
 * subscription on the new socket.
 */
export class SubscriptionSession {
  private closed = false;
  private state: ConnectionState = 'idle';
  private socket: RpcSocket | undefined;
  private opening: Promise<RpcSocket> | undefined;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  /** a reconnect loop is running (it notices a drop of its own socket by itself) */
  private reconnecting = false;
  private readonly registry = new SubscriptionRegistry((error, handle) => this.reportError(error, handle));

  constructor(private readonly settings: SessionSettings) {}

  get connectionState(): ConnectionState {
    return this.state;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async subscribe<T extends SubscriptionType>(
    request: SubscribeRequest & { type: T },
    onNotification: (notification: NotificationFor<T>, subscription: ChainSubscription<T>) => void,
    options: SubscribeOptions = {},
  ): Promise<ChainSubscription<T>> {
    const checked = checkParams('chain_subscribe', request, validate.SubscribeRequest);
    if (this.closed) throw new ChainRpcError('closed', 'chain_subscribe: the client is closed', { method: 'chain_subscribe' });
    const handle = this.registry.create(checked, onNotification as Handle['onNotification'], options.onError, (id) => this.unsubscribe(id));
    // One retry when the socket drops between opening and answering.
    for (let attempt = 1; ; attempt++) {
      const socket = await this.openSocket();
      try {
        await subscribeOnNode(socket, handle, this.registry);
        return handle.public as ChainSubscription<T>;
      } catch (err) {
        if (attempt < 2 && err instanceof ChainRpcError && err.kind === 'closed' && !this.closed) continue;
        handle.status = 'ended';
        throw err;
      }
    }
  }

  async unsubscribe(target: ChainSubscription | string): Promise<void> {
    const handle = this.registry.get(typeof target === 'string' ? target : target.id);
    if (!handle || handle.status === 'ended') return;
    const nodeId = handle.subscription.id;
    const onSocket = handle.socket;
    this.registry.end(handle);
    if (!this.registry.hasActive()) this.stopReconnecting();
    if (onSocket && onSocket === this.socket && onSocket.isOpen) await unsubscribeOnNode(onSocket, nodeId);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopReconnecting();
    this.registry.endSilently();
    const socket = this.socket ?? (await this.opening?.catch(() => undefined));
    this.socket = undefined;
    socket?.close();
    this.setState('closed');
  }

  private setState(next: ConnectionState): void {
    if (this.state === next) return;
    this.state = next;
    this.settings.onConnectionChange?.(next);
  }

  private reportError(error: ChainRpcError, handle?: Handle): void {
    if (handle?.onError) handle.onError(error);
    else this.settings.onError?.(error);
  }

  /** The open socket, the one being opened, or a new one. */
  private openSocket(): Promise<RpcSocket> {
    if (this.socket?.isOpen) return Promise.resolve(this.socket);
    if (this.opening) return this.opening;
    const url = this.settings.wsEndpoint;
    if (!url) {
      return Promise.reject(new ChainRpcError('invalid_request', 'subscriptions need RpcConfig.wsEndpoint', { issues: [{ path: '/wsEndpoint', message: 'is required for subscriptions' }] }));
    }
    if (this.state !== 'reconnecting') this.setState('connecting');
    this.opening = this.connect(url);
    return this.opening;
  }

  private async connect(url: string): Promise<RpcSocket> {
    try {
      const socket = await RpcSocket.open({
        url,
        headers: this.settings.headers,
        timeoutMs: this.settings.timeoutMs,
        onNotification: (method, params) => deliverNotification(method, params, { handleOf: (nodeId) => this.registry.byNode(nodeId), reportError: (e, h) => this.reportError(e, h) }),
        onUnexpectedClose: (reason) => this.onUnexpectedClose(reason),
        onProtocolError: (error) => this.reportError(error),
      });
      this.opening = undefined;
      if (this.closed) {
        socket.close();
        throw new ChainRpcError('closed', 'the client is closed');
      }
      this.socket = socket;
      if (this.state !== 'reconnecting') this.setState('open');
      return socket;
    } catch (err) {
      this.opening = undefined;
      if (this.state === 'connecting') this.setState('idle');
      throw err;
    }
  }

  private onUnexpectedClose(reason: ChainRpcError): void {
    this.socket = undefined;
    this.registry.forgetNodeIds();
    if (this.closed || this.reconnecting) return;
    if (!this.registry.hasActive()) {
      this.setState('idle');
      return;
    }
    if (!this.settings.reconnect) {
      this.registry.endAll(new ChainRpcError('closed', `${reason.message}; reconnecting is off`));
      this.setState('idle');
      return;
    }
    this.reconnecting = true;
    this.setState('reconnecting');
    this.scheduleReconnect(1);
  }

  private scheduleReconnect(attempt: number): void {
    const reconnect = this.settings.reconnect;
    if (this.closed || !reconnect) return;
    const delay = Math.min(reconnect.maxDelayMs, reconnect.initialDelayMs * reconnect.factor ** (attempt - 1));
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.reconnectNow(attempt);
    }, delay);
  }

  private async reconnectNow(attempt: number): Promise<void> {
    if (this.closed || !this.settings.reconnect) return;
    let socket: RpcSocket | undefined;
    try {
      socket = await this.openSocket();
      await this.resubscribeAll(socket);
      this.reconnecting = false;
      this.setState('open');
      this.settings.onReconnect?.({ attempts: attempt, subscriptions: this.registry.active().length });
    } catch (err) {
      this.reconnectFailed(attempt, err, socket);
    }
  }

  /** Re-opens every active subscription not yet on `socket` (a subscribe() may have raced the reconnect). */
  private async resubscribeAll(socket: RpcSocket): Promise<void> {
    const todo = this.registry.active().filter((h) => h.socket !== socket);
    await Promise.all(
      todo.map((handle) =>
        subscribeOnNode(socket, handle, this.registry).catch((err: unknown) => {
          // The node refused this subscription now: end it alone. Transport trouble fails the round.
          if (err instanceof ChainRpcError && (err.kind === 'rpc' || err.kind === 'invalid_response')) {
            this.registry.end(handle, err);
            return;
          }
          throw err;
        }),
      ),
    );
    if (!socket.isOpen) throw new ChainRpcError('closed', 'the WebSocket closed while re-subscribing');
  }

  /** A reconnect round failed: try again later, or stop when nothing is left to re-open or the attempts ran out. */
  private reconnectFailed(attempt: number, err: unknown, socket: RpcSocket | undefined): void {
    if (this.closed) return;
    if (socket?.isOpen) socket.close(); // e.g. a timed-out re-subscribe: start over on a fresh socket
    if (this.socket === socket) this.socket = undefined;
    this.registry.forgetNodeIds();
    if (!this.registry.hasActive()) {
      this.stopReconnecting();
      return;
    }
    if (attempt >= (this.settings.reconnect?.maxAttempts ?? 0)) {
      this.reconnecting = false;
      const why = err instanceof Error ? err.message : String(err);
      this.registry.endAll(new ChainRpcError('closed', `gave up reconnecting after ${attempt} attempts: ${why}`, { cause: err }));
      this.setState('idle');
      return;
    }
    this.scheduleReconnect(attempt + 1);
  }

  /** Ends a reconnect loop (nothing left to re-open, or the client closed): the connection is idle. */
  private stopReconnecting(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    if (!this.reconnecting) return;
    this.reconnecting = false;
    if (!this.closed) this.setState('idle');
  }
}
