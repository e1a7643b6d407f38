import type { operationDefaults, operations } from '../../generated/dev/types.gen.js';
import type { Principal } from '../lib/auth.js';
import { handlersFor, type HandlerMap } from '../lib/handlers.js';
import type { Retriever } from '../lib/retrieval.js';

/** A dev key; each key is its own tenant (there is nothing stored to share or leak). */
export interface DevPrincipal extends Principal {
  tenant: string;
}

export type DevHandlers = HandlerMap<operations, DevPrincipal, operationDefaults>;

/** Each handler module's map, checked against the contract as it is written (`handlersFor`). */
export const devHandlers = handlersFor<operations, DevPrincipal, operationDefaults>();

export type DevModel = 'dev-pro' | 'dev-flash';

export interface DevDeps {
  /** undefined when retrieval is switched off: every search answers 503 */
  retriever: Retriever | undefined;
  newId: () => string;
}
