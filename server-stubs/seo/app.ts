import type { operationDefaults, operations } from '../../generated/seo/types.gen.js';
import { bearerKeys } from '../lib/auth.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { resolverFromEnv, type Resolver } from '../lib/net-guard.js';
import type { RouterSwitches, StubCredential, StubEnvironment } from '../lib/service.js';
import { createStubApp, stubService } from '../lib/stub-app.js';
import type { StateStore } from '../lib/store.js';
import type { SeoHandlers, SeoPrincipal, StreamTiming } from './context.js';
import { defaultCrawlTiming, type CrawlTiming } from './crawl.js';
import { seoErrors } from './errors.js';
import { projectHandlers } from './handlers/projects.js';
import { rankTrackingHandlers } from './handlers/rank-tracking.js';
import { siteAuditHandlers } from './handlers/site-audit.js';
import { SeoStore } from './store.js';

export interface SeoAppOptions extends StubEnvironment, RouterSwitches {
  clock?: Clock;
  resolver?: Resolver;
  crawl?: Partial<CrawlTiming>;
  stream?: Partial<StreamTiming>;
}

/** Seeded keys (CONVENTIONS §6): each is an organization of its own. */
export const seoCredentials = [
  { label: 'API key (organization 1)', scheme: 'bearerAuth', value: 'seo_test_key', tenant: 'org_seo_1' },
  { label: 'API key (organization 2)', scheme: 'bearerAuth', value: 'seo_test_key_2', tenant: 'org_seo_2' },
] as const satisfies ReadonlyArray<StubCredential & { tenant: string }>;

const principals = new Map<string, SeoPrincipal>(seoCredentials.map((c) => [c.value, { id: c.value, orgId: c.tenant }]));

export function createSeoApp(options: SeoAppOptions = {}) {
  const clock = options.clock ?? systemClock;
  const store = new SeoStore(clock);
  const deps = {
    store,
    resolver: options.resolver ?? resolverFromEnv(),
    crawl: { ...defaultCrawlTiming, ...options.crawl },
    stream: { pingMs: 15_000, pollMs: 1_500, ceilingMs: 600_000, ...options.stream },
  };
  const handlers = {
    ...projectHandlers(deps),
    ...rankTrackingHandlers(deps),
    ...siteAuditHandlers(deps),
  } satisfies SeoHandlers;
  const app = createStubApp<operations, SeoPrincipal, operationDefaults, StateStore>({ ...options, clock }, {
    slug: 'seo',
    handlers,
    security: { bearerAuth: bearerKeys((token) => principals.get(token)) },
    errors: seoErrors,
    state: store.state,
  });
  return { ...app, store };
}

export default stubService<SeoAppOptions>({
  slug: 'seo',
  title: 'Search optimization',
  credentials: seoCredentials,
  errors: seoErrors,
  create: (options) => createSeoApp(options),
});
