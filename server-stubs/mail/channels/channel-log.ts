import type { Clock } from '../../lib/clock.js';

/** WhatsApp and push messages the channel adapters recorded. (Being built: issue 14, channels.) */
export class ChannelLog {
  constructor(private clock: Clock) {
    this.reset();
  }

  reset(): void {}
}
