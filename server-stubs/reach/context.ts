import type { operationDefaults, operations } from '../../generated/reach/types.gen.js';
import type { Principal } from '../lib/auth.js';
import { handlersFor, type HandlerMap } from '../lib/handlers.js';
import type { SwitchableProvider } from './provider.js';
import type { ReachStore } from './store.js';

export type Scope = 'leads:search' | 'leads:verify' | 'leads:score' | 'leads:read' | 'deals:read' | 'deals:write';

/** A reach key belongs to an account; keys of one account share its data, plan and wallet. */
export interface ReachPrincipal extends Principal {
  accountId: string;
  scopes: readonly Scope[];
}

export type ReachHandlers = HandlerMap<operations, ReachPrincipal, operationDefaults>;

/** Each handler module's map, checked against the contract as it is written (`handlersFor`). */
export const reachHandlers = handlersFor<operations, ReachPrincipal, operationDefaults>();

export interface ReachDeps {
  store: ReachStore;
  provider: SwitchableProvider;
}
