import type { Clock } from '../../lib/clock.js';

/** What recipients did with delivered messages: when each was first opened and first clicked (the counters count messages once). */
export class EngagementLog {
  private opened = new Map<string, number>();
  private clicked = new Map<string, number>();

  constructor(private clock: Clock) {}

  reset(): void {
    this.opened.clear();
    this.clicked.clear();
  }

  recordOpen(messageId: string): void {
    if (!this.opened.has(messageId)) this.opened.set(messageId, this.clock.now());
  }

  recordClick(messageId: string): void {
    if (!this.clicked.has(messageId)) this.clicked.set(messageId, this.clock.now());
    // A click shows the message was opened, even when its images were blocked.
    this.recordOpen(messageId);
  }

  /** When the message was first opened, or undefined. */
  openedAt(messageId: string): number | undefined {
    return this.opened.get(messageId);
  }

  clickedAt(messageId: string): number | undefined {
    return this.clicked.get(messageId);
  }
}
