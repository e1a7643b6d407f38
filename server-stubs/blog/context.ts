import type { operationDefaults, operations } from '../../generated/blog/types.gen.js';
import type { Principal } from '../lib/auth.js';
import { handlersFor, type HandlerMap } from '../lib/handlers.js';
import type { BlogStore } from './store.js';

/** A blog API key belongs to one account; accounts never see each other's drafts, articles or series. */
export interface BlogPrincipal extends Principal {
  accountId: string;
}

export type BlogHandlers = HandlerMap<operations, BlogPrincipal, operationDefaults>;

/** Each handler module's map, checked against the contract as it is written (`handlersFor`). */
export const blogHandlers = handlersFor<operations, BlogPrincipal, operationDefaults>();

export interface BlogDeps {
  store: BlogStore;
}
