import type { Clock } from '../../lib/clock.js';

/** Webhook endpoints (Form B, and Form A of the dashboard), their delivery queue and attempt log. (Being built: issue 15.) */
export class WebhooksStore {
  constructor(private clock: Clock) {
    this.reset();
  }

  reset(): void {}

  /** Delivers what fell due on the stub clock (retries); `POST /_stub/clock` waits for it. */
  async runDue(): Promise<void> {}
}
