import type { Clock } from '../../lib/clock.js';

/** Aliases, dedicated IPs and inbound routes per user. (Being built: issue 14.) */
export class InfrastructureStore {
  constructor(private clock: Clock) {
    this.reset();
  }

  reset(): void {}
}
