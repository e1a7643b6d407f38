import type { operationDefaults, operations } from '../../generated/coder/types.gen.js';
import type { Principal } from '../lib/auth.js';
import type { Clock } from '../lib/clock.js';
import { handlersFor, type HandlerMap } from '../lib/handlers.js';
import type { Retriever } from '../lib/retrieval.js';
import type { ChatRouter } from './router.js';
import type { SessionsStore } from './sessions-store.js';
import type { VendorUpstream } from './upstream.js';

/**
 * Who calls the gateway: `owner` is the SHA-256 of the bearer token (DECISIONS coder-2), or null
 * when the deployment has no keys configured (then any token passes and sessions are unowned).
 * `token` is kept because `claude-*` requests forward it upstream as the vendor key.
 */
export interface CoderPrincipal extends Principal {
  owner: string | null;
  token: string;
  /** false for a token accepted only to be forwarded upstream (a `claude-*` message with a vendor key) */
  gatewayKey: boolean;
}

export type CoderHandlers = HandlerMap<operations, CoderPrincipal, operationDefaults>;

/** Each handler module's map, checked against the contract as it is written (`handlersFor`). */
export const coderHandlers = handlersFor<operations, CoderPrincipal, operationDefaults>();

/** The test switches of DECISIONS coder-8, as app options (and environment variables of `npm start`). */
export interface CoderSwitches {
  /** accepted keys; an empty list accepts any token (sessions unowned) */
  keys: string[];
  /** the session store is initialised (off: list 200 empty, create and get 503) */
  sessionStore: boolean;
  /** the model router is initialised (off: routed models 503) */
  router: boolean;
  /** base URL `claude-*` requests are forwarded to; unset: 502 naming the setting */
  upstreamUrl: string | undefined;
  /** how long an upstream call may take before 504 */
  upstreamTimeoutMs: number;
  /** model ids forwarded upstream start so (DECISIONS coder-1) */
  vendorPrefix: string;
}

export interface CoderDeps {
  clock: Clock;
  switches: CoderSwitches;
  sessions: SessionsStore;
  router: ChatRouter;
  upstream: VendorUpstream;
  retriever: Retriever;
}
