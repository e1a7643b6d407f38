import type { Lead } from '../../../generated/schemas/reach/types.gen.js';
import type { Fail } from '../../lib/handlers.js';
import { ProviderUnavailable } from '../provider.js';
import { plans, type Account, type Plan, type ReachStore } from '../store.js';

/** A provider call; the provider being unreachable or refusing is the route's 502. */
export async function viaProvider<T>(fail: Fail<502>, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProviderUnavailable) fail(502, undefined, error.message);
    throw error;
  }
}

/** The account's leads by id, in the order asked; an unknown or another account's lead is a 404. */
export function requireLeads(store: ReachStore, fail: Fail<404>, accountId: string, ids: readonly string[]): Lead[] {
  return ids.map((id) => store.lead(accountId, id) ?? fail(404, undefined, `Lead ${id} not found`));
}

/** Takes `cost` credits from the wallet, or fails with the published credit-limit 429. */
export function charge(store: ReachStore, fail: Fail<429>, account: Account, cost: number, what: string): void {
  if (account.wallet < cost) {
    const message =
      account.plan === 'free'
        ? `${what} draws credits from a wallet, which the free plan does not have; upgrade to buy credits`
        : `Not enough credits: ${what} costs ${cost}, the wallet holds ${account.wallet}`;
    fail(429, undefined, message, { balance: account.wallet, freeRemaining: store.freeRemaining(account), upgrade: true });
  }
  account.wallet -= cost;
}

/** Features a plan may lack, by the id the upgrade offer names (designed) and its label. */
const features = { campaign_sync: { label: 'Campaign sync', on: ['growth'] as Plan[] } };

/**
 * The `upgrade` of the generic upgrade body (DECISIONS reach-3), for a feature the plan lacks: no
 * use, no allowance, no reset; the plans that have it, cheapest first; no trial (designed).
 */
export function upgradeOffer(plan: Plan, feature: keyof typeof features) {
  const offering = features[feature].on.map((slug) => ({ slug, ...plans[slug] })).sort((a, b) => a.price - b.price);
  return {
    feature,
    feature_label: features[feature].label,
    usage: { used: 0, limit: 0, remaining: 0, resets_at: null },
    current_plan: { slug: plan, name: plans[plan].name },
    plans: offering,
    trial: { available: false, days: 0, plan_name: plans.growth.name, requires_card: true },
  };
}
