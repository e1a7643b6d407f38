import type { Clock } from '../../lib/clock.js';

/** Validation credits per user. (Being built: issue 13, e-mail validation.) */
export class ValidationLedger {
  constructor(private clock: Clock) {
    this.reset();
  }

  reset(): void {}
}
