import { blogHandlers, type BlogDeps } from '../context.js';
import { trialOffer, usageOf } from '../metering.js';
import { meteredItems, plan, plans, planSummary, TRIAL_DAYS, type MeteredFeature } from '../plans.js';
import { iso, type Account, type BlogStore } from '../store.js';

const DAY_MS = 86_400_000;

/** What `GET /v1/plan` answers: the plan in effect, usage per metered item, features, the trial. */
export function planStatus(store: BlogStore, account: Account) {
  const current = plan(store.effectivePlan(account));
  const features = Object.keys(meteredItems) as MeteredFeature[];
  return {
    plan: planSummary(current),
    usage: features.map((feature) => ({
      feature,
      feature_label: meteredItems[feature].label,
      period: meteredItems[feature].period,
      ...usageOf(store, account, feature),
    })),
    features: current.features,
    feature_matrix: { free: plans[0]!.features, pro: plans[1]!.features, business: plans[2]!.features },
    trial: {
      ...trialOffer(store, account),
      active: store.trialActive(account),
      started_at: account.trial ? iso(account.trial.startedAtMs) : null,
      ends_at: account.trial ? iso(account.trial.endsAtMs) : null,
    },
  };
}

export function planHandlers({ store }: BlogDeps) {
  return blogHandlers({
    getPlan: ({ principal }) => ({ status: 200, body: planStatus(store, store.account(principal.accountId)) }),

    startTrial: ({ principal, fail }) => {
      const account = store.account(principal.accountId);
      // DECISIONS blog-2: once per account, and only from Free.
      if (account.trial) {
        fail(409, 'trial_unavailable', `The Pro trial was already used on this account (started ${iso(account.trial.startedAtMs)})`);
      }
      if (account.plan !== 'free') {
        fail(409, 'trial_unavailable', `The account is on the ${plan(account.plan).name} plan; the Pro trial is for Free accounts`);
      }
      const now = store.now();
      account.trial = { startedAtMs: now, endsAtMs: now + TRIAL_DAYS * DAY_MS };
      return { status: 201, body: planStatus(store, account) };
    },
  });
}
