import type { Fail } from '../lib/handlers.js';
import { gatedItems, meteredItems, plan, plansWithMore, TRIAL_DAYS, type GatedFeature, type MeteredFeature } from './plans.js';
import { iso, nextMonthStart, type Account, type BlogStore } from './store.js';

export interface Usage {
  used: number;
  limit: number | null;
  remaining: number | null;
  resets_at: string | null;
}

/** Usage of a metered item now; unlimited is `limit: null, remaining: null` (DECISIONS blog-2). */
export function usageOf(store: BlogStore, account: Account, feature: MeteredFeature): Usage {
  const used = store.used(account, feature);
  const limit = plan(store.effectivePlan(account)).allowances[feature];
  return {
    used,
    limit,
    remaining: limit === null ? null : Math.max(0, limit - used),
    resets_at: meteredItems[feature].period === 'month' ? iso(nextMonthStart(store.now())) : null,
  };
}

export function trialOffer(store: BlogStore, account: Account) {
  return { available: account.plan === 'free' && account.trial === undefined, days: TRIAL_DAYS, plan_name: 'Pro' as const, requires_card: false as const };
}

/** The published `upgrade` object of a plan-limit error. */
function upgradeOffer(store: BlogStore, account: Account, feature: MeteredFeature | GatedFeature, usage: Usage) {
  const current = plan(store.effectivePlan(account));
  return {
    feature,
    feature_label: feature === 'team_members' ? gatedItems[feature].label : meteredItems[feature].label,
    usage,
    current_plan: { slug: current.slug, name: current.name },
    plans: plansWithMore(current, feature).map((p) => ({ slug: p.slug, name: p.name, price: p.price, url: `https://blog.example/pricing?plan=${p.slug}` })),
    trial: trialOffer(store, account),
  };
}

/**
 * Refuses a metered call whose allowance is spent (429 `plan_limit_exceeded`, no Retry-After: waiting a
 * minute does not clear it); otherwise answers how to count the call once it has succeeded.
 */
export function admit(store: BlogStore, account: Account, feature: MeteredFeature, fail: Fail<429>) {
  const usage = usageOf(store, account, feature);
  if (usage.remaining === 0) {
    const current = plan(store.effectivePlan(account));
    const when = usage.resets_at ? `; they reset on ${usage.resets_at}` : '';
    fail(429, 'plan_limit_exceeded', `The ${current.name} plan's ${usage.limit} ${meteredItems[feature].label.toLowerCase()}${usage.resets_at ? ' this month' : ''} are spent${when}`, {
      upgrade: upgradeOffer(store, account, feature, usage),
    });
  }
  return {
    /** Counts the call (monthly items; a subscriber counts by existing) and gives the usage headers. */
    commit(counted = true): Record<string, string> {
      if (counted && feature !== 'newsletter_subscribers') store.count(account, feature);
      return usageHeaders(store, account, feature);
    },
  };
}

export function usageHeaders(store: BlogStore, account: Account, feature: MeteredFeature): Record<string, string> {
  const usage = usageOf(store, account, feature);
  return {
    'x-service-usage-feature': feature,
    'x-service-usage-used': String(usage.used),
    'x-service-usage-limit': usage.limit === null ? 'unlimited' : String(usage.limit),
    'x-service-usage-remaining': usage.remaining === null ? 'unlimited' : String(usage.remaining),
    // DECISIONS blog-4: all six on every metered success. A total that does not reset (subscribers)
    // names the start of the next calendar month (UTC) too, like the monthly allowances.
    'x-service-usage-resets': usage.resets_at ?? iso(nextMonthStart(store.now())),
    'x-service-plan': store.effectivePlan(account),
  };
}

/** Refuses a feature the plan does not have: 402 with the plan-limit body. */
export function requireFeature(store: BlogStore, account: Account, feature: GatedFeature, fail: Fail<402>): void {
  const current = plan(store.effectivePlan(account));
  if (current.features[feature]) return;
  fail(402, 'plan_limit_exceeded', `${gatedItems[feature].label} are not on the ${current.name} plan; they come with ${plansWithMore(current, feature).map((p) => p.name).join(' or ')}`, {
    upgrade: upgradeOffer(store, account, feature, { used: 0, limit: 0, remaining: 0, resets_at: null }),
  });
}
