import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';

/** What recipients did with delivered messages: when each was first opened and first clicked (the counters count messages once). */
export class EngagementLog {
  private readonly clock: Clock;
  /** by message id: when it was first opened and first clicked */
  private readonly firsts: Collection<{ openedAt?: number; clickedAt?: number }>;

  constructor(state: StateStore) {
    this.clock = state.clock;
    this.firsts = state.collection('engagement.messages');
  }

  recordOpen(messageId: string): void {
    const firsts = this.firsts.get(messageId) ?? this.firsts.set(messageId, {});
    firsts.openedAt ??= this.clock.now();
  }

  recordClick(messageId: string): void {
    const firsts = this.firsts.get(messageId) ?? this.firsts.set(messageId, {});
    firsts.clickedAt ??= this.clock.now();
    // A click shows the message was opened, even when its images were blocked.
    this.recordOpen(messageId);
  }

  /** When the message was first opened, or undefined. */
  openedAt(messageId: string): number | undefined {
    return this.firsts.get(messageId)?.openedAt;
  }

  clickedAt(messageId: string): number | undefined {
    return this.firsts.get(messageId)?.clickedAt;
  }
}
