/**
 * Time as the stubs see it. Rules that depend on time (rate windows, codes that expire, monthly
 * resets, crawl progress) read it from here, so tests and `POST /_stub/clock` move time instead of
 * waiting.
 */
export interface Clock {
  now(): number; // epoch milliseconds
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that can be moved forward: the system's plus an offset, or one that moves only when told. */
export interface StubClock extends Clock {
  readonly manual: boolean;
  advance(ms: number): void;
  /** Moves to an instant; never backwards (the stubs' schedules assume time only grows). */
  set(epochMs: number): void;
}

/** A move the clock refuses: backwards, or past the last instant an ISO 8601 date-time can name. */
export class ClockMoveRefused extends Error {}

const latest = Date.parse('9999-12-31T23:59:59.999Z');

export function createStubClock(options: { manual?: boolean; start?: number } = {}): StubClock {
  const manual = options.manual ?? false;
  let base = options.start ?? Date.now();
  let offset = 0;
  // A system clock moved to the very end keeps running: it stops there rather than leave the range.
  const now = () => Math.min(latest, manual ? base : Date.now() + offset);
  return {
    manual,
    now,
    advance(ms) {
      if (!(ms >= 0)) throw new ClockMoveRefused('the clock only moves forward');
      if (now() + ms > latest) throw new ClockMoveRefused('the clock cannot move past 9999-12-31T23:59:59.999Z');
      if (manual) base += ms;
      else offset += ms;
    },
    set(epochMs) {
      const current = now();
      if (epochMs < current) throw new ClockMoveRefused(`${new Date(epochMs).toISOString()} is before the stub clock's ${new Date(current).toISOString()}`);
      this.advance(epochMs - current);
    },
  };
}

/** `STUB_CLOCK=manual` (CONVENTIONS §6): every stub's clock moves only when told. */
export function stubClockFromEnv(env: NodeJS.ProcessEnv = process.env): StubClock {
  return createStubClock({ manual: env.STUB_CLOCK === 'manual' });
}

/** A clock for tests: stands still at `start` until advanced. */
export function createManualClock(start = Date.parse('2026-01-15T09:30:00Z')): StubClock {
  return createStubClock({ manual: true, start });
}
