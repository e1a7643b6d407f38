/**
 * Keeps the services' state of one stub server: a new instance of a service (at start, a lazy load,
 * a dev reload) starts from what its predecessor had, and with a state folder every change reaches
 * disk within a second. What a file holds and how it is written is `state-dir.ts`'s business.
 */
import type { StubClock } from './clock.js';
import type { StubInstance } from './service.js';
import { StateDir } from './state-dir.js';

type ServiceState = NonNullable<StubInstance['state']>;

export interface StateKeeperOptions {
  /** the state folder (`STUB_STATE_DIR`); without it state lives in memory and only dev reloads carry it */
  dir?: string;
  clock: StubClock;
  log?: (line: string) => void;
}

/**
 * Changes are gathered this long before they are written: a burst of requests costs one write per
 * service, and a change reaches disk inside the one second a SIGKILL may lose (the rest of the
 * second is for serializing and writing). Each flush serializes every touched service's whole
 * state, so a longer delay costs less under load (bench/RESULTS.md, kept state).
 */
const flushDelayMs = 750;

export class StateKeeper {
  /** slug → the state of the instance serving it */
  private readonly running = new Map<string, ServiceState>();
  /** the last state of a service that stopped serving (an edit that does not load), for the instance that comes after it */
  private readonly retired = new Map<string, unknown>();
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** the controls acted (the clock may have moved): the clock is kept with the next flush even if no state changed */
  private clockMoved = false;

  private constructor(
    private readonly clock: StubClock,
    private readonly log: (line: string) => void,
    private readonly dir: StateDir | undefined,
  ) {}

  /**
   * Takes the folder (throws `StateDirInUse` while another live server has it) and moves the clock
   * up to where it stood when state was last kept, so no kept time lies ahead of the clock.
   */
  static open(options: StateKeeperOptions): StateKeeper {
    const log = options.log ?? ((line: string) => console.log(line));
    const dir = options.dir === undefined ? undefined : StateDir.open(options.dir, log);
    const keptClock = dir?.readClock();
    if (keptClock !== undefined && keptClock > options.clock.now()) options.clock.set(keptClock);
    return new StateKeeper(options.clock, log, dir);
  }

  /** The folder state is kept in, if any. */
  get folder(): string | undefined {
    return this.dir?.dir;
  }

  /**
   * A new instance of a service is about to serve: it takes the state of the instance it replaces,
   * else what was kept for the service. State it refuses is named in one log line (a file is moved
   * aside) and the instance keeps its seeds.
   */
  adopt(slug: string, instance: StubInstance, previous?: StubInstance): void {
    this.running.delete(slug);
    const state = instance.state;
    if (!state) return;
    const carried = previous?.state ? previous.state.snapshot() : this.retired.get(slug);
    this.retired.delete(slug);
    if (carried !== undefined) {
      try {
        state.restore(carried);
      } catch (error) {
        const aside = this.dir?.moveAside(slug, 'rejected');
        this.log(`state: the new ${slug} refuses the state the previous one had (${(error as Error).message}); ${slug} starts from its seeds${aside ? ` (what was kept is moved aside to ${aside})` : ''}`);
        this.dirty.add(slug);
      }
    } else if (this.dir) {
      const kept = this.dir.read(slug);
      if (kept !== undefined) {
        try {
          state.restore(kept);
        } catch (error) {
          this.dir.setAside(slug, 'rejected', `${slug} refuses it: ${(error as Error).message}`);
        }
      }
    }
    this.running.set(slug, state);
    this.schedule();
  }

  /** A service stops serving without a successor yet: its state waits for the next instance. */
  retire(slug: string, instance: StubInstance): void {
    if (this.running.get(slug) !== instance.state || !instance.state) return;
    this.running.delete(slug);
    this.retired.set(slug, instance.state.snapshot());
  }

  /** A request to the service finished, or a control acted on it: its state may have changed. */
  touched(slug: string): void {
    if (!this.dir || !this.running.has(slug)) return;
    this.dirty.add(slug);
    this.schedule();
  }

  /** The state of every service may have changed (the clock moved, and work fell due). */
  touchedAll(): void {
    for (const slug of this.running.keys()) this.touched(slug);
  }

  /** The services were put back to their seeds: what was kept of them goes too. */
  async cleared(): Promise<void> {
    this.retired.clear();
    if (!this.dir) return;
    this.dir.removeAllBut([...this.running.keys()]);
    await this.keepNow();
  }

  /** Writes what changed now, and resolves when it is on disk (the controls answer after it). */
  async keepNow(): Promise<void> {
    this.clockMoved = true;
    for (const slug of this.running.keys()) this.dirty.add(slug);
    await this.flush();
  }

  /** Writes what is left and gives the folder up. */
  async close(): Promise<void> {
    if (!this.dir) return;
    await this.keepNow();
    this.dir.release();
  }

  private schedule(): void {
    if (!this.dir || this.timer || this.dirty.size === 0) return;
    this.timer = setTimeout(() => void this.flush(), flushDelayMs);
    this.timer.unref();
  }

  /** One write at a time: a flush asked for while one runs follows it. */
  private flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const dir = this.dir;
    if (!dir) return Promise.resolve();
    this.writing = this.writing.then(async () => {
      const slugs = [...this.dirty];
      this.dirty.clear();
      let wrote = this.clockMoved;
      this.clockMoved = false;
      for (const slug of slugs) {
        const state = this.running.get(slug);
        try {
          if (state && (await dir.write(slug, state.snapshot()))) wrote = true;
        } catch (error) {
          this.log(`state: ${slug} could not be kept in ${dir.dir}: ${(error as Error).message}`);
        }
      }
      // The clock is kept with the data it dates: a flush that wrote nothing leaves it.
      if (wrote) await dir.writeClock(this.clock.now()).catch((error: unknown) => this.log(`state: the clock could not be kept in ${dir.dir}: ${(error as Error).message}`));
    });
    return this.writing;
  }
}
