import type { operationDefaults, operations } from '../../generated/social/types.gen.js';
import type { Principal } from '../lib/auth.js';
import { handlersFor, type HandlerMap } from '../lib/handlers.js';
import type { PostGenerator } from './generator.js';
import type { SocialStore } from './store.js';

/** A social API key belongs to a workspace, on a plan; workspaces never see each other's data. */
export interface SocialPrincipal extends Principal {
  workspaceId: string;
  plan: 'pro' | 'free';
  /** the name the workspace's connected accounts go by */
  handle: string;
}

export type SocialHandlers = HandlerMap<operations, SocialPrincipal, operationDefaults>;

/** Each handler module's map, checked against the contract as it is written (`handlersFor`). */
export const socialHandlers = handlersFor<operations, SocialPrincipal, operationDefaults>();

export interface SocialDeps {
  store: SocialStore;
  generator: PostGenerator;
}
