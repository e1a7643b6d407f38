import type { Clock } from '../../lib/clock.js';

/** What the provider webhooks recorded: email events, bounces, feedback reports seen. (Being built: issue 15.) */
export class ProviderLog {
  constructor(private clock: Clock) {
    this.reset();
  }

  reset(): void {}
}
