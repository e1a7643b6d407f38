import { bearerKeys } from '../lib/auth.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { createResolver, type Resolver } from '../lib/net-guard.js';
import { createServiceRouter } from '../lib/service-router.js';
import type { StubService } from '../lib/service.js';
import type { SeoHandlers, SeoPrincipal, StreamTiming } from './context.js';
import { defaultCrawlTiming, type CrawlTiming } from './crawl.js';
import { seoErrors } from './errors.js';
import { projectHandlers } from './handlers/projects.js';
import { rankTrackingHandlers } from './handlers/rank-tracking.js';
import { siteAuditHandlers } from './handlers/site-audit.js';
import { SeoStore } from './store.js';

export interface SeoAppOptions {
  clock?: Clock;
  resolver?: Resolver;
  crawl?: Partial<CrawlTiming>;
  stream?: Partial<StreamTiming>;
  validateResponses?: boolean;
  validateRequests?: boolean;
  rateLimits?: boolean;
}

/** Seeded keys: each is an organization of its own. */
export const seoKeys: Record<string, SeoPrincipal> = {
  seo_test_key: { id: 'seo_test_key', orgId: 'org_seo_1' },
  seo_test_key_2: { id: 'seo_test_key_2', orgId: 'org_seo_2' },
};

export function createSeoApp(options: SeoAppOptions = {}) {
  const clock = options.clock ?? systemClock;
  const store = new SeoStore(clock);
  const deps = {
    store,
    resolver: options.resolver ?? createResolver(),
    crawl: { ...defaultCrawlTiming, ...options.crawl },
    stream: { pingMs: 15_000, pollMs: 1_500, ceilingMs: 600_000, ...options.stream },
  };
  const handlers = {
    ...projectHandlers(deps),
    ...rankTrackingHandlers(deps),
    ...siteAuditHandlers(deps),
  } satisfies SeoHandlers;
  const { router, contract, limiter } = createServiceRouter({
    slug: 'seo',
    handlers,
    security: { bearerAuth: bearerKeys((token) => seoKeys[token]) },
    errors: seoErrors,
    clock,
    validateRequests: options.validateRequests,
    validateResponses: options.validateResponses,
    rateLimits: options.rateLimits,
  });
  return { router, store, limiter, basePath: contract.basePath };
}

const service: StubService<SeoAppOptions> = {
  slug: 'seo',
  basePath: '/seo',
  title: 'Search optimization',
  credentials: [
    { label: 'API key (organization 1)', value: 'Authorization: Bearer seo_test_key' },
    { label: 'API key (organization 2)', value: 'Authorization: Bearer seo_test_key_2' },
  ],
  create: (options) => createSeoApp(options),
};

export default service;
