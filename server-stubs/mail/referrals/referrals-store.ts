import type { Clock } from '../../lib/clock.js';

/** Referral codes, referrals and milestone claims per user. (Being built: issue 15.) */
export class ReferralsStore {
  constructor(private clock: Clock) {
    this.reset();
  }

  reset(): void {}
}
