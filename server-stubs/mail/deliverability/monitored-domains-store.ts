import type { Clock } from '../../lib/clock.js';

/** DMARC-monitored domains per user. (Being built: issue 13, DMARC monitoring.) */
export class MonitoredDomainsStore {
  constructor(private clock: Clock) {
    this.reset();
  }

  reset(): void {}

  count(_userId: string): number {
    return 0;
  }
}
