import type { RequestHandler } from 'express';
import type { Principal } from './auth.js';
import type { Clock } from './clock.js';
import { loadContract } from './contract.js';
import { createServiceRouter, type ServiceRouterOptions } from './service-router.js';
import { passedThrough, type RouterSwitches, type StubEnvironment, type StubService } from './service.js';
import type { StateStore } from './store.js';

export interface StubAppParts<Ops, P extends Principal, Defaults, S extends StateStore | undefined, R extends void | Promise<void>> extends Omit<ServiceRouterOptions<Ops, P, Defaults>, 'clock' | keyof ReturnType<typeof passedThrough>> {
  /** the service's state: a reset puts it back to its seeds; `/_stub/state` and `STUB_STATE_DIR` export and keep it */
  state?: S;
  /** what a reset puts back beyond the state and the rate windows (a provider's switch, a platform's jobs) */
  reset?: () => R;
}

/** What every stub app is, however it routes: a middleware at its base path, a reset, and its state. */
export interface StubAppCore<S extends StateStore | undefined, R extends void | Promise<void>> {
  router: RequestHandler;
  basePath: string;
  /** the service's state: a reset puts it back to its seeds; `/_stub/state` and `STUB_STATE_DIR` export and keep it */
  state?: S;
  /** what a reset puts back beyond the state */
  reset?: () => R;
}

/**
 * One stub service's app: its router (from the contract, mounted at the contract's base path), a
 * reset that puts the state back to its seeds and clears the rate windows and whatever else the
 * service names, and the state for `/_stub/state` when it keeps one.
 */
export function createStubApp<Ops, P extends Principal, Defaults, S extends StateStore | undefined = undefined, R extends void | Promise<void> = void>(
  options: StubEnvironment & RouterSwitches & { clock: Clock },
  parts: StubAppParts<Ops, P, Defaults, S, R>,
) {
  const { state, reset: resetMore, ...routerOptions } = parts;
  const { router, contract, limiter, unimplemented } = createServiceRouter<Ops, P, Defaults>({ ...routerOptions, clock: options.clock, ...passedThrough(options) });
  const app = stubAppAround<S, R>({
    router,
    basePath: contract.basePath,
    state,
    reset: () => {
      limiter.reset();
      return resetMore?.() as R;
    },
  });
  return { ...app, limiter, unimplemented };
}

/**
 * The app of a service that routes itself, for a protocol an OpenAPI contract cannot describe
 * (chain-rpc: JSON-RPC 2.0 on one path and a WebSocket, described by an OpenRPC document): the same
 * reset and state as {@link createStubApp}'s, around the service's own router.
 */
export function stubAppAround<S extends StateStore | undefined = undefined, R extends void | Promise<void> = void>(core: StubAppCore<S, R>) {
  const { router, basePath, state, reset: resetMore } = core;
  // A service's own reset may wait (coder's jobs): the app's waits with it, else it is synchronous.
  const reset = (): R | undefined => {
    state?.reset();
    return resetMore?.();
  };
  return { router, basePath, reset, state: state as S };
}

/**
 * A service's descriptor (the default export of its `app.ts`). Its base path is the contract's
 * (`servers`), read when first asked for, so discovering a service does not load its contract; a
 * service without an OpenAPI contract reads it from its own document's `servers`.
 */
export function stubService<Options>(
  descriptor: Omit<StubService<Options>, 'basePath'>,
  basePathOf: () => string = () => loadContract(descriptor.slug).basePath,
): StubService<Options> {
  return {
    ...descriptor,
    get basePath() {
      return basePathOf();
    },
  };
}
