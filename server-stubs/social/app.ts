import type { operationDefaults, operations } from '../../generated/social/types.gen.js';
import { bearerKeys } from '../lib/auth.js';
import { systemClock, type Clock } from '../lib/clock.js';
import type { RouterSwitches, StubCredential, StubEnvironment } from '../lib/service.js';
import { createStubApp, stubService } from '../lib/stub-app.js';
import type { StateStore } from '../lib/store.js';
import type { SocialHandlers, SocialPrincipal } from './context.js';
import { socialErrors } from './errors.js';
import { templateGenerator, type PostGenerator } from './generator.js';
import { accountHandlers } from './handlers/accounts.js';
import { generationHandlers } from './handlers/generation.js';
import { postHandlers } from './handlers/posts.js';
import { statsHandlers } from './handlers/stats.js';
import { SocialStore } from './store.js';

export interface SocialAppOptions extends StubEnvironment, RouterSwitches {
  clock?: Clock;
  /** writes the variants of `POST /api/generate`; a deterministic local writer by default */
  generator?: PostGenerator;
}

/** Seeded keys (CONVENTIONS §6, DECISIONS social-1): each is a workspace of its own, on its plan. */
export const socialCredentials = [
  { label: 'API key (workspace on the Pro plan)', scheme: 'bearerAuth', value: 'social_test_key', tenant: 'ws_social_pro' },
  { label: 'API key (workspace on the free tier)', scheme: 'bearerAuth', value: 'social_test_free', tenant: 'ws_social_free' },
] as const satisfies ReadonlyArray<StubCredential & { tenant: string }>;

const workspaces: Record<string, Pick<SocialPrincipal, 'workspaceId' | 'plan' | 'handle'>> = {
  social_test_key: { workspaceId: 'ws_social_pro', plan: 'pro', handle: 'northwind' },
  social_test_free: { workspaceId: 'ws_social_free', plan: 'free', handle: 'sideproject' },
};

const principals = new Map<string, SocialPrincipal>(socialCredentials.map((c) => [c.value, { id: c.value, ...workspaces[c.value]! }]));

export function createSocialApp(options: SocialAppOptions = {}) {
  const clock = options.clock ?? systemClock;
  const store = new SocialStore(clock);
  const deps = { store, generator: options.generator ?? templateGenerator };
  const handlers = {
    ...generationHandlers(deps),
    ...postHandlers(deps),
    ...accountHandlers(deps),
    ...statsHandlers(deps),
  } satisfies SocialHandlers;
  const app = createStubApp<operations, SocialPrincipal, operationDefaults, StateStore>({ ...options, clock }, {
    slug: 'social',
    handlers,
    security: { bearerAuth: bearerKeys((token) => principals.get(token)) },
    errors: socialErrors,
    state: store.state,
  });
  return { ...app, store };
}

export default stubService<SocialAppOptions>({
  slug: 'social',
  title: 'Social posting',
  credentials: socialCredentials,
  errors: socialErrors,
  create: (options) => createSocialApp(options),
});
