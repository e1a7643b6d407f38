import type { operationDefaults, operations } from '../../generated/blog/types.gen.js';
import { bearerKeys } from '../lib/auth.js';
import { systemClock, type Clock } from '../lib/clock.js';
import type { RouterSwitches, StubCredential, StubEnvironment } from '../lib/service.js';
import { createStubApp, stubService } from '../lib/stub-app.js';
import type { StateStore } from '../lib/store.js';
import type { BlogHandlers, BlogPrincipal } from './context.js';
import { blogErrors } from './errors.js';
import { assistantHandlers } from './handlers/assistant.js';
import { automationHandlers } from './handlers/automation.js';
import { newsletterHandlers } from './handlers/newsletter.js';
import { planHandlers } from './handlers/plan.js';
import { searchHandlers } from './handlers/search.js';
import { teamHandlers } from './handlers/team.js';
import { BlogStore, seededAccounts } from './store.js';

export interface BlogAppOptions extends StubEnvironment, RouterSwitches {
  clock?: Clock;
}

/**
 * Seeded keys (CONVENTIONS §6): one account per plan. Business comes first, so tools that take the
 * first seed (the conformance examples, the scenario, the fuzzer) can write without spending a cap.
 */
export const blogCredentials = seededAccounts.map((a) => ({
  label: `API key (${a.plan} plan)`,
  scheme: 'bearerAuth',
  value: a.key,
  tenant: a.id,
})) satisfies ReadonlyArray<StubCredential & { tenant: string }>;

const principals = new Map<string, BlogPrincipal>(seededAccounts.map((a) => [a.key, { id: a.key, accountId: a.id }]));

export function createBlogApp(options: BlogAppOptions = {}) {
  const clock = options.clock ?? systemClock;
  const store = new BlogStore(clock);
  const deps = { store };
  const handlers = {
    ...searchHandlers(),
    ...planHandlers(deps),
    ...automationHandlers(deps),
    ...assistantHandlers(deps),
    ...newsletterHandlers(deps),
    ...teamHandlers(deps),
  } satisfies BlogHandlers;
  const app = createStubApp<operations, BlogPrincipal, operationDefaults, StateStore>({ ...options, clock }, {
    slug: 'blog',
    handlers,
    // Keys are bound to this product: another product's key is just an unknown key here (401).
    security: { bearerAuth: bearerKeys((token) => principals.get(token)) },
    errors: blogErrors,
    state: store.state,
  });
  return { ...app, store };
}

export default stubService<BlogAppOptions>({
  slug: 'blog',
  title: 'Blog',
  credentials: blogCredentials,
  errors: blogErrors,
  create: (options) => createBlogApp(options),
});
