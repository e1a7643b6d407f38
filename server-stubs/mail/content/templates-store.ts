import type { Clock } from '../../lib/clock.js';

/** Templates per user. (Being built: issue 14, templates.) */
export class TemplatesStore {
  constructor(private clock: Clock) {
    this.reset();
  }

  reset(): void {}
}
