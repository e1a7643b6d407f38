import type { Collection, StateStore } from '../../lib/store.js';
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
  /** by user: what is left once the user was first charged (credits do not expire or refill: nothing published says they do) */
  private readonly balances: Collection<{ balance: number }>;

  constructor(state: StateStore) {
    this.balances = state.collection('validation.balances');
  }

  balance(userId: string, plan: Plan): number {
    return this.balances.get(userId)?.balance ?? validationCredits[plan];
  }

  /** Debits `credits` when the balance covers them; otherwise changes nothing. */
  charge(userId: string, plan: Plan, credits: number): Charge {
    const balance = this.balance(userId, plan);
    if (balance < credits) return { charged: false, balance };
    this.balances.set(userId, { balance: balance - credits });
    return { charged: true, balanceAfter: balance - credits };
  }

  /** Gives back a charge whose work could not be done. */
  refund(userId: string, plan: Plan, credits: number): number {
    const balance = this.balance(userId, plan) + credits;
    this.balances.set(userId, { balance });
    return balance;
  }
}
