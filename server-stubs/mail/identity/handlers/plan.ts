import { randomBytes } from 'node:crypto';
import { mailHandlers, type MailDeps } from '../../context.js';
import { features, planQuotas } from '../plans.js';

/** The current calendar month (UTC): the period monthly quotas count in. */
function monthOf(epochMs: number) {
  const now = new Date(epochMs);
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString() };
}

/** Plan limits, subscription and checkout: what `plans.ts` decides, as the API shows it. */
export function planHandlers({ identity, clock, usage }: MailDeps) {
  return mailHandlers({
    getPlanLimits: ({ principal }) => {
      const user = identity.user(principal.userId)!;
      const period = monthOf(clock.now());
      const counted = usage?.(user.id) ?? {};
      return {
        status: 200,
        body: {
          success: true,
          data: {
            plan: user.plan,
            quotas: planQuotas[user.plan],
            usage: {
              emails_this_month: counted.emails_this_month ?? 0,
              contacts: counted.contacts ?? 0,
              api_keys: identity.activeKeys(user.id, 'dashboard').length,
              monitored_domains: counted.monitored_domains ?? 0,
              period_start: period.start,
              period_end: period.end,
            },
            features: features(user.plan),
          },
        },
      };
    },

    getSubscription: ({ principal }) => {
      const user = identity.user(principal.userId)!;
      const paid = user.plan !== 'free';
      return {
        status: 200,
        body: { success: true, data: { plan: user.plan, status: 'active', current_period_end: paid ? monthOf(clock.now()).end : null, cancel_at_period_end: false } },
      };
    },

    // Nothing is charged: the stub answers a hosted-payment-page address and changes no plan.
    createCheckoutSession: ({ body }) => {
      const session = `cs_${randomBytes(12).toString('hex')}`;
      return { status: 201, body: { success: true, data: { checkout_url: `https://checkout.payments.example/c/${session}?plan=${body.plan}` } } };
    },
  });
}
