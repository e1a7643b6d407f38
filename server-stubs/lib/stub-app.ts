import type { Principal } from './auth.js';
import type { Clock } from './clock.js';
import { loadContract } from './contract.js';
import { createServiceRouter, type ServiceRouterOptions } from './service-router.js';
import { passedThrough, type RouterSwitches, type StubEnvironment, type StubInstance, type StubService } from './service.js';

/** A service's store as the app factory sees it: a reset clears it; the state it keeps, if any, is exported. */
export interface ResettableStore {
  clear(): void;
  readonly state?: StubInstance['state'];
}

export interface StubAppParts<Ops, P extends Principal, Defaults, S extends ResettableStore | undefined>
  extends Omit<ServiceRouterOptions<Ops, P, Defaults>, 'clock' | keyof ReturnType<typeof passedThrough>> {
  store?: S;
  /** what a reset puts back beyond the store and the rate windows (a provider's switch, a platform's jobs) */
  reset?: () => void | Promise<void>;
}

/**
 * One stub service's app: its router (from the contract, mounted at the contract's base path), a
 * reset that clears the store, the rate windows and whatever else the service names, and the
 * store's state for `/_stub/state` when it keeps one.
 */
export function createStubApp<Ops, P extends Principal, Defaults, S extends ResettableStore | undefined = undefined>(
  options: StubEnvironment & RouterSwitches & { clock: Clock },
  parts: StubAppParts<Ops, P, Defaults, S>,
) {
  const { store, reset: resetMore, ...routerOptions } = parts;
  const { router, contract, limiter, unimplemented } = createServiceRouter<Ops, P, Defaults>({ ...routerOptions, clock: options.clock, ...passedThrough(options) });
  const reset = () => {
    store?.clear();
    limiter.reset();
    return resetMore?.();
  };
  return { router, limiter, basePath: contract.basePath, unimplemented, reset, store: store as S, ...(store?.state && { state: store.state }) };
}

/**
 * A service's descriptor (the default export of its `app.ts`). Its base path is the contract's
 * (`servers`), read when first asked for, so discovering a service does not load its contract.
 */
export function stubService<Options>(descriptor: Omit<StubService<Options>, 'basePath'>): StubService<Options> {
  return {
    ...descriptor,
    get basePath() {
      return loadContract(descriptor.slug).basePath;
    },
  };
}
