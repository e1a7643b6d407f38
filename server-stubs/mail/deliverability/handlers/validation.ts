import { mailHandlers, type MailDeps } from '../../context.js';
import { requireFeature } from '../../identity/plans.js';
import type { Plan } from '../../identity/store.js';
import { validateAddresses, type Validated } from '../validation/validate.js';

/** Published metering: one credit covers a batch of up to 100 addresses. */
const addressesPerCredit = 100;
const creditsFor = (addresses: number) => Math.ceil(addresses / addressesPerCredit);

/**
 * E-mail validation: `GET /v1/validate` (balance) and `POST /v1/validate` (one address or a batch,
 * metered in credits). The plan is checked before the credits, so a Free user (no credits) hears
 * that validation needs Pro rather than that it is out of credits.
 */
export function validationHandlers({ identity, validation, dns, clock }: MailDeps) {
  const gatedPlan = (userId: string): Plan => {
    const plan = identity.user(userId)?.plan ?? 'free';
    requireFeature(plan, 'validation');
    return plan;
  };

  return mailHandlers({
    getValidationBalance: ({ principal }) => {
      const plan = gatedPlan(principal.userId);
      return { status: 200, body: { success: true, credits: { balance: validation.balance(principal.userId, plan) } } };
    },

    validateEmails: async ({ principal, body, fail }) => {
      const userId = principal.userId;
      const plan = gatedPlan(userId);
      // The contract lets exactly one of `email` (a string) and `emails` (strings) through.
      const single = typeof body.email === 'string';
      const addresses = (single ? [body.email] : body.emails) as string[];
      const required = creditsFor(addresses.length);
      // Charged before the work, in one synchronous step, so concurrent requests cannot overspend.
      const charge = validation.charge(userId, plan, required);
      if (!charge.charged) {
        return fail(402, undefined, `Insufficient credits: ${required} required, balance ${charge.balance}`, { credits_required: required, balance: charge.balance });
      }
      const started = clock.now();
      let validated: Validated[];
      try {
        validated = await validateAddresses(addresses, dns, clock);
      } catch (error) {
        validation.refund(userId, plan, required);
        throw error;
      }
      const credits = { used: required, balance_after: charge.balanceAfter };
      if (single) return { status: 200, body: { success: true, data: validated[0]!.result, credits } };
      const count = (kind: Validated['class']) => validated.filter((v) => v.class === kind).length;
      const summary = { total: validated.length, valid: count('valid'), invalid: count('invalid'), risky: count('risky'), unknown: count('unknown'), duration_ms: Math.max(0, clock.now() - started) };
      return { status: 200, body: { success: true, summary, results: validated.map((v) => v.result), credits } };
    },
  });
}
