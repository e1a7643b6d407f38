/**
 * Time as the stubs see it. Rules that depend on time (rate windows, codes that expire, monthly
 * resets, crawl progress) read it from here, so tests move time instead of waiting.
 */
export interface Clock {
  now(): number; // epoch milliseconds
}

export const systemClock: Clock = { now: () => Date.now() };

export interface ManualClock extends Clock {
  advance(ms: number): void;
  set(epochMs: number): void;
}

export function createManualClock(start = Date.parse('2026-01-15T09:30:00Z')): ManualClock {
  let current = start;
  return {
    now: () => current,
    advance: (ms) => {
      current += ms;
    },
    set: (epochMs) => {
      current = epochMs;
    },
  };
}
