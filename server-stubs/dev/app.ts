import { randomBytes } from 'node:crypto';
import type { operationDefaults, operations } from '../../generated/dev/types.gen.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { localRetriever, type Retriever } from '../lib/retrieval.js';
import type { RouterSwitches, StubCredential, StubEnvironment } from '../lib/service.js';
import { createStubApp, stubService } from '../lib/stub-app.js';
import { devKeys } from './auth.js';
import type { DevHandlers, DevPrincipal } from './context.js';
import { devErrors } from './errors.js';
import { searchHandlers } from './handlers/search.js';

export interface DevAppOptions extends StubEnvironment, RouterSwitches {
  clock?: Clock;
  /** where sources come from; the embedded corpus unless given */
  retriever?: Retriever;
  /** 'off' answers every search 503; `DEV_RETRIEVAL=off` under `npm start` */
  retrieval?: 'on' | 'off';
}

/** Seeded keys (CONVENTIONS §6, DECISIONS dev-3). */
export const devCredentials = [
  { label: 'API key', scheme: 'bearerAuth', value: 'dev_test_key', tenant: 'dev_tenant_1' },
  { label: 'API key (revoked)', scheme: 'bearerAuth', value: 'dev_test_revoked', valid: false },
] as const satisfies ReadonlyArray<StubCredential>;

const newSearchId = () => `search_${randomBytes(12).toString('hex')}`;

export function retrievalSwitch(options: DevAppOptions, env: NodeJS.ProcessEnv = process.env): 'on' | 'off' {
  return options.retrieval ?? (env.DEV_RETRIEVAL === 'off' ? 'off' : 'on');
}

export function createDevApp(options: DevAppOptions = {}) {
  const clock = options.clock ?? systemClock;
  const retriever = retrievalSwitch(options) === 'off' ? undefined : (options.retriever ?? localRetriever());
  const handlers = { ...searchHandlers({ retriever, newId: newSearchId }) } satisfies DevHandlers;
  // Nothing is stored: a reset only clears the rate windows.
  return createStubApp<operations, DevPrincipal, operationDefaults>({ ...options, clock }, {
    slug: 'dev',
    handlers,
    security: { bearerAuth: devKeys(devCredentials) },
    errors: devErrors,
  });
}

export default stubService<DevAppOptions>({
  slug: 'dev',
  title: 'Grounded search',
  credentials: devCredentials,
  errors: devErrors,
  create: (options) => createDevApp(options),
});
