import type { operationDefaults, operations } from '../../generated/seo/types.gen.js';
import type { Principal } from '../lib/auth.js';
import { handlersFor, type HandlerMap } from '../lib/handlers.js';
import type { Resolver } from '../lib/net-guard.js';
import type { CrawlTiming } from './crawl.js';
import type { SeoStore } from './store.js';

/** A seo API key belongs to an organization; organizations never see each other's data. */
export interface SeoPrincipal extends Principal {
  orgId: string;
}

export type SeoHandlers = HandlerMap<operations, SeoPrincipal, operationDefaults>;

/** Each handler module's map, checked against the contract as it is written (`handlersFor`). */
export const seoHandlers = handlersFor<operations, SeoPrincipal, operationDefaults>();

/** The audit stream's timings (published: ping 15 s, poll about 1.5 s, ceiling 10 min). */
export interface StreamTiming {
  pingMs: number;
  pollMs: number;
  ceilingMs: number;
}

export interface SeoDeps {
  store: SeoStore;
  resolver: Resolver;
  crawl: CrawlTiming;
  stream: StreamTiming;
}
