import type { Clock } from '../../lib/clock.js';
import type { Plan } from '../identity/store.js';
import { validationCredits } from '../identity/plans.js';

/** What a charge did: spent (and the balance after), or refused with the balance left untouched. */
export type Charge = { charged: true; balanceAfter: number } | { charged: false; balance: number };

/**
 * Validation credits per user. Until its first charge a user's balance is its plan's `validationCredits[plan]`
 * (DECISIONS mail-1) and is only ever debited here; a plan change later does not refill it (the
 * document publishes no top-up). Charges are synchronous, so two concurrent requests can never
 * both spend the last credit.
 */
export class ValidationLedger {
  private balances = new Map<string, number>();

  /** Credits do not expire or refill (nothing published says they do); the clock is there for when they will. */
  constructor(_clock: Clock) {
    this.reset();
  }

  reset(): void {
    this.balances.clear();
  }

  balance(userId: string, plan: Plan): number {
    return this.balances.get(userId) ?? validationCredits[plan];
  }

  /** Debits `credits` when the balance covers them; otherwise changes nothing. */
  charge(userId: string, plan: Plan, credits: number): Charge {
    const balance = this.balance(userId, plan);
    if (balance < credits) return { charged: false, balance };
    this.balances.set(userId, balance - credits);
    return { charged: true, balanceAfter: balance - credits };
  }

  /** Gives back a charge whose work could not be done. */
  refund(userId: string, plan: Plan, credits: number): number {
    const balance = this.balance(userId, plan) + credits;
    this.balances.set(userId, balance);
    return balance;
  }
}
