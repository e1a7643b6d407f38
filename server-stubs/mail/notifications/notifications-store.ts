import type { Clock } from '../../lib/clock.js';

/** In-app notifications per user. (Being built: issue 15.) */
export class NotificationsStore {
  constructor(private clock: Clock) {
    this.reset();
  }

  reset(): void {}
}
