import type { operations } from '../../../generated/reach/types.gen.js';
import { reachHandlers, type ReachDeps } from '../context.js';
import { nextPeriodStartOf, periodStartOf, pricing } from '../store.js';

/** Where single sign-on may return to (designed): the app's own origin, or a path on it. */
export const REGISTERED_ORIGIN = 'https://app.reach.example';

/** The absolute return address, or undefined when `returnUrl` is off the registered domain. */
function registeredReturn(returnUrl: string): string | undefined {
  if (returnUrl.startsWith('/') && !returnUrl.startsWith('//') && !returnUrl.includes('\\')) return `${REGISTERED_ORIGIN}${returnUrl}`;
  if (!URL.canParse(returnUrl)) return undefined;
  const url = new URL(returnUrl);
  return url.origin === REGISTERED_ORIGIN && !url.username && !url.password ? url.href : undefined;
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

export function billingHandlers({ store }: ReachDeps) {
  return reachHandlers({
    getUsage: ({ principal }) => {
      const account = store.account(principal.accountId);
      return {
        status: 200,
        body: {
          success: true as const,
          leadsUsed: store.searchesThisMonth(account),
          leadsLimit: account.plan === 'free' ? pricing.freeSearchesPerMonth : null,
          periodStart: iso(periodStartOf(store.now())),
        },
      };
    },

    getSubscription: ({ principal, query: typed, fail }) => {
      // `query?:` (every parameter optional) is typed empty by the framework: the contract's type is taken.
      const query = typed as unknown as NonNullable<operations['getSubscription']['parameters']['query']>;
      let portalUrl: string | null = null;
      if (query.returnUrl !== undefined) {
        const back = registeredReturn(query.returnUrl) ?? fail(400, undefined, 'Invalid returnUrl');
        portalUrl = `https://billing.reach.example/portal?return=${encodeURIComponent(back)}`;
      }
      const account = store.account(principal.accountId);
      return {
        status: 200,
        body: { success: true as const, plan: account.plan, status: 'active' as const, renewsAt: iso(nextPeriodStartOf(store.now())), credits: account.wallet, portalUrl },
      };
    },
  });
}
