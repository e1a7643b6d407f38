import type { components } from '../../../generated/mail/types.gen.js';
import { ApiError } from '../../lib/errors.js';
import type { Plan } from './store.js';

/**
 * The ONE place that decides what a plan permits: feature gates and quotas. Every mail part asks
 * here, so a plan rule changes in one line. Quota numbers are designed (the document publishes
 * none but the key, validation-credit and monitored-domain numbers of DECISIONS mail-1); the
 * contract marks `PlanLimits.quotas` provisional.
 */
export type PlanLimits = components['schemas']['PlanLimitsResponse']['data'];
export type Feature = keyof PlanLimits['features'];
export type Quotas = PlanLimits['quotas'];

const rank: Record<Plan, number> = { free: 0, pro: 1, max: 2 };

/** The lowest plan that includes each gated feature (document: "Plans"). */
export const featurePlan = {
  whatsapp: 'max',
  push: 'max',
  dedicated_ips: 'max',
  workspaces: 'max',
  validation: 'pro',
  ab_tests: 'pro',
  ai_subject_lines: 'pro',
} as const satisfies Record<Feature, Exclude<Plan, 'free'>>;

export const planQuotas: Record<Plan, Quotas> = {
  free: { emails_per_month: 3_000, contacts: 1_000, api_keys: 2, monitored_domains: 1 },
  pro: { emails_per_month: 100_000, contacts: 50_000, api_keys: 5, monitored_domains: 5 },
  max: { emails_per_month: 1_000_000, contacts: null, api_keys: 20, monitored_domains: 25 },
};

/** Validation credits a user starts with (DECISIONS mail-1). */
export const validationCredits: Record<Plan, number> = { free: 0, pro: 10, max: 1000 };

export const planNames: Record<Plan, string> = { free: 'Free', pro: 'Pro', max: 'Max' };

export function hasFeature(plan: Plan, feature: Feature): boolean {
  return rank[plan] >= rank[featurePlan[feature]];
}

export function features(plan: Plan): PlanLimits['features'] {
  const flags = {} as PlanLimits['features'];
  for (const feature of Object.keys(featurePlan) as Feature[]) flags[feature] = hasFeature(plan, feature);
  return flags;
}

/** Throws the published 403 (with `feature` and `required_plan`) when the plan lacks the feature. */
export function requireFeature(plan: Plan, feature: Feature): void {
  if (hasFeature(plan, feature)) return;
  const required = featurePlan[feature];
  throw new ApiError(403, undefined, `This feature requires the ${planNames[required]} plan`, { feature, required_plan: required });
}

/** Whether one more of a quota-counted thing fits: `used` is the current count. */
export function withinQuota(plan: Plan, quota: keyof Quotas, used: number): boolean {
  const limit = planQuotas[plan][quota];
  return limit === null || used < limit;
}
