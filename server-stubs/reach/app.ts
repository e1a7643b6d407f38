import type { operationDefaults, operations } from '../../generated/reach/types.gen.js';
import { bearerKeys, fail, type SecurityHandler } from '../lib/auth.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { ApiError } from '../lib/errors.js';
import type { RouterSwitches, StubCredential, StubEnvironment } from '../lib/service.js';
import { createStubApp, stubService } from '../lib/stub-app.js';
import type { StateStore } from '../lib/store.js';
import type { ReachHandlers, ReachPrincipal, Scope } from './context.js';
import { reachErrors } from './errors.js';
import { autopilotHandlers } from './handlers/autopilot.js';
import { billingHandlers } from './handlers/billing.js';
import { dealHandlers } from './handlers/deals.js';
import { leadListHandlers } from './handlers/lead-lists.js';
import { leadSearchHandlers } from './handlers/lead-search.js';
import { leadHandlers } from './handlers/leads.js';
import { settleDueJobs } from './jobs.js';
import { switchableProvider, type LeadProvider } from './provider.js';
import { ReachStore, type Plan } from './store.js';

export interface ReachAppOptions extends StubEnvironment, RouterSwitches {
  clock?: Clock;
  /** a provider client in place of the fixture dataset, or `'down'` (also `REACH_PROVIDER=down`): 502 where it is needed */
  provider?: LeadProvider | 'down';
  /** the paid seed's starting wallet (10,000 credits) */
  paidWalletCredits?: number;
}

const ALL_SCOPES: readonly Scope[] = ['leads:search', 'leads:verify', 'leads:score', 'leads:read', 'deals:read', 'deals:write'];

const accounts: ReadonlyArray<{ id: string; plan: Plan }> = [
  { id: 'acct_reach_free', plan: 'free' },
  { id: 'acct_reach_paid', plan: 'growth' },
  { id: 'acct_reach_other', plan: 'free' },
];

/**
 * Seeded keys (CONVENTIONS §6, DECISIONS reach-4). `msr_test_other` is another account's key that
 * writes but cannot read (designed), so every scope-gated route has a seed it refuses with 403.
 */
const keys: ReadonlyArray<{ key: string; label: string; accountId: string; scopes: readonly Scope[] }> = [
  { key: 'msr_test_key', label: 'API key (free plan, every scope)', accountId: 'acct_reach_free', scopes: ALL_SCOPES },
  { key: 'msr_test_readonly', label: 'API key (free plan, leads:read deals:read)', accountId: 'acct_reach_free', scopes: ['leads:read', 'deals:read'] },
  { key: 'mrk_test_key', label: 'API key (paid plan with a credit wallet, every scope)', accountId: 'acct_reach_paid', scopes: ALL_SCOPES },
  { key: 'msr_test_other', label: 'API key (another account; leads:search leads:verify leads:score deals:write)', accountId: 'acct_reach_other', scopes: ['leads:search', 'leads:verify', 'leads:score', 'deals:write'] },
];

export const reachCredentials = keys.map((k) => ({ label: k.label, scheme: 'bearerAuth', value: k.key, tenant: k.accountId })) satisfies ReadonlyArray<
  StubCredential & { tenant: string }
>;

const principals = new Map<string, ReachPrincipal>(keys.map((k) => [k.key, { id: k.key, accountId: k.accountId, scopes: k.scopes }]));

/** Bearer keys, then the operation's scopes (the roles of its security requirement): 403 naming the first one missing. */
function scopedKeys(): SecurityHandler {
  const authenticate = bearerKeys((token) => principals.get(token));
  return async (req, scopes) => {
    await authenticate(req, scopes);
    const principal = req.principal as ReachPrincipal;
    const missing = scopes.find((s) => !principal.scopes.includes(s as Scope));
    if (missing) fail(req, new ApiError(403, undefined, `Insufficient scope: this route needs ${missing}`, { requiredScope: missing }));
    return true;
  };
}

export function createReachApp(options: ReachAppOptions = {}) {
  const clock = options.clock ?? systemClock;
  const store = new ReachStore(clock, accounts, options.paidWalletCredits);
  const startsDown = options.provider === 'down' || (options.provider === undefined && process.env.REACH_PROVIDER === 'down');
  const provider = switchableProvider(typeof options.provider === 'object' ? options.provider : undefined, startsDown);
  const deps = { store, provider };
  const handlers = {
    ...leadSearchHandlers(deps),
    ...leadHandlers(deps),
    ...leadListHandlers(deps),
    ...dealHandlers(deps),
    ...autopilotHandlers(deps),
    ...billingHandlers(deps),
  } satisfies ReachHandlers;
  const app = createStubApp<operations, ReachPrincipal, operationDefaults, StateStore>({ ...options, clock }, {
    slug: 'reach',
    handlers,
    security: { bearerAuth: scopedKeys() },
    errors: reachErrors,
    state: store.state,
    reset: () => {
      provider.down = startsDown;
    },
  });
  return { ...app, store, provider, runDue: () => settleDueJobs(store, provider) };
}

export default stubService<ReachAppOptions>({
  slug: 'reach',
  title: 'Lead outreach',
  credentials: reachCredentials,
  errors: reachErrors,
  create: (options) => createReachApp(options),
});
