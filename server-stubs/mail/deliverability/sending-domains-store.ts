import type { Clock } from '../../lib/clock.js';

/** Sending domains per user and their verification. (Being built: issue 13, sending domains.) */
export class SendingDomainsStore {
  constructor(private clock: Clock) {
    this.reset();
  }

  reset(): void {}

  /** Re-checks the DNS of pending domains that fell due; `POST /_stub/clock` waits for it. */
  async runDue(): Promise<void> {}
}
