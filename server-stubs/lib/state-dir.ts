/**
 * The folder where `npm start` and `npm run dev` keep every service's state across restarts
 * (`STUB_STATE_DIR`, CONVENTIONS §6): one file per service, `<slug>.json`, holding
 * `{"format": 1, "service", "savedAt", "state": {collections, cells}}`, and `_clock.json`, where the
 * stub clock stood. Slugs start with a letter, so the folder's own files (`_…`) never meet a service's.
 *
 * Files are written whole and atomically (temp file, fsync, rename), so a process killed at any
 * instant leaves either the previous file or the new one. A file that cannot be used is moved aside,
 * never deleted: it may hold the only copy of someone's test data.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';

/** The version of the files' layout; a file of another version is moved aside, not guessed at. */
export const stateFormat = 1;

/** `STUB_STATE_DIR` as `npm start` and `npm run dev` read it: a folder, or undefined for `off` (memory only). */
export function stateDirFromEnv(root: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const setting = env.STUB_STATE_DIR?.trim();
  if (setting === 'off') return undefined;
  return path.resolve(root, setting || '.stub-state');
}

/** Another live server keeps its state in the folder: both writing would lose one's changes. */
export class StateDirInUse extends Error {}

/** Why a file was moved aside: the word goes into its new name. */
export type SetAside = 'unreadable' | 'foreign-format' | 'rejected';

interface LockRecord {
  pid: number;
  /** the process's start time as /proc tells it, so a pid reused after a SIGKILL is not taken for the old server */
  started?: string;
  host: string;
}

/** Folders this process holds: a second server started in the same process is refused too. */
const heldHere = new Set<string>();

export class StateDir {
  /** slug → the state JSON the file holds (read or written last): an unchanged state is not written again */
  private readonly onDisk = new Map<string, string>();
  private clockOnDisk: string | undefined;
  private released = false;

  private constructor(
    readonly dir: string,
    private readonly log: (line: string) => void,
  ) {}

  /** Creates the folder if needed and takes it for this process; throws {@link StateDirInUse} while a live server holds it. */
  static open(dir: string, log: (line: string) => void): StateDir {
    const resolved = path.resolve(dir);
    mkdirSync(resolved, { recursive: true });
    takeLock(resolved);
    return new StateDir(resolved, log);
  }

  private file(slug: string): string {
    return path.join(this.dir, `${slug}.json`);
  }

  /**
   * What was kept for a service (its `{collections, cells}`), or undefined when nothing was: no
   * file, or one that could not be used, which is then moved aside and named in the log.
   */
  read(slug: string): unknown {
    const file = this.file(slug);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      this.setAside(slug, 'unreadable', (error as Error).message);
      return undefined;
    }
    let kept: unknown;
    try {
      kept = JSON.parse(text);
    } catch (error) {
      this.setAside(slug, 'unreadable', `not JSON (${(error as Error).message})`);
      return undefined;
    }
    const record = kept as { format?: unknown; service?: unknown; state?: unknown } | null;
    if (record === null || typeof record !== 'object' || Array.isArray(record)) {
      this.setAside(slug, 'unreadable', 'not a state file (an object with "format" and "state")');
      return undefined;
    }
    if (record.format !== stateFormat) {
      this.setAside(slug, 'foreign-format', `format ${JSON.stringify(record.format ?? null)}, this server reads format ${stateFormat}`);
      return undefined;
    }
    if (record.service !== slug) {
      this.setAside(slug, 'foreign-format', `it holds the state of ${JSON.stringify(record.service ?? null)}, not of ${slug}`);
      return undefined;
    }
    this.onDisk.set(slug, JSON.stringify(record.state));
    return record.state;
  }

  /**
   * Moves a service's file out of the way and says so in one log line; the service then starts
   * from its seeds.
   */
  setAside(slug: string, why: SetAside, problem: string): void {
    const aside = this.moveAside(slug, why);
    if (aside) this.log(`state: ${slug}.json moved aside to ${aside} (${problem}); ${slug} starts from its seeds`);
  }

  /** Renames a service's file beside it (`<slug>.json.<why>-<time>`), if there is one; answers the new name. */
  moveAside(slug: string, why: SetAside): string | undefined {
    const file = this.file(slug);
    this.onDisk.delete(slug);
    if (!existsSync(file)) return undefined;
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    let aside = `${file}.${why}-${stamp}`;
    for (let n = 2; existsSync(aside); n += 1) aside = `${file}.${why}-${stamp}-${n}`;
    renameSync(file, aside);
    return aside;
  }

  /** Writes a service's state unless the file already holds exactly it; true when it wrote. */
  async write(slug: string, state: unknown): Promise<boolean> {
    const json = JSON.stringify(state);
    if (this.onDisk.get(slug) === json) return false;
    const file = `{"format":${stateFormat},"service":${JSON.stringify(slug)},"savedAt":${JSON.stringify(new Date().toISOString())},"state":${json}}\n`;
    await writeFileAtomic(this.file(slug), file);
    this.onDisk.set(slug, json);
    return true;
  }

  /**
   * Removes what was kept for services other than `slugs` (reset: a service not serving now must not
   * come back with its old state when it does); files moved aside stay.
   */
  removeAllBut(slugs: string[]): void {
    const keep = new Set(slugs.map((slug) => `${slug}.json`));
    for (const name of readdirSync(this.dir)) {
      if (!/^[a-z][a-z0-9-]*\.json$/.test(name) || keep.has(name)) continue;
      unlinkSync(path.join(this.dir, name));
      this.onDisk.delete(name.slice(0, -'.json'.length));
    }
  }

  /** Where the stub clock stood when state was last kept (epoch ms), if it was kept. */
  readClock(): number | undefined {
    try {
      const kept = JSON.parse(readFileSync(path.join(this.dir, '_clock.json'), 'utf8')) as { format?: unknown; now?: unknown };
      const at = kept.format === stateFormat && typeof kept.now === 'string' ? Date.parse(kept.now) : NaN;
      return Number.isFinite(at) ? at : undefined;
    } catch {
      return undefined;
    }
  }

  async writeClock(now: number): Promise<void> {
    const json = `{"format":${stateFormat},"now":${JSON.stringify(new Date(now).toISOString())}}\n`;
    if (this.clockOnDisk === json) return;
    await writeFileAtomic(path.join(this.dir, '_clock.json'), json);
    this.clockOnDisk = json;
  }

  /** Gives the folder up for the next server (after the last write). */
  release(): void {
    if (this.released) return;
    this.released = true;
    heldHere.delete(this.dir);
    try {
      unlinkSync(lockFile(this.dir));
    } catch {
      // already gone: nothing to give up
    }
  }
}

const lockFile = (dir: string) => path.join(dir, '_server.lock');

/** Linux's start time of a process (field 22 of /proc/<pid>/stat), where /proc exists. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields after the last `)` are fixed.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The server that holds a lock, when it still runs; undefined for a lock left by a process that died. */
function liveHolder(dir: string, record: LockRecord): LockRecord | undefined {
  if (record.host !== os.hostname()) return record;
  if (record.pid === process.pid) return heldHere.has(dir) ? record : undefined;
  if (!isAlive(record.pid)) return undefined;
  const started = startTimeOf(record.pid);
  return record.started !== undefined && started !== undefined && started !== record.started ? undefined : record;
}

/**
 * A lock file naming the holding process, created exclusively. Only a live holder counts: a lock
 * left by a killed server (its pid gone, or reused by another process) is taken over.
 */
function takeLock(dir: string): void {
  const file = lockFile(dir);
  const mine: LockRecord = { pid: process.pid, started: startTimeOf(process.pid), host: os.hostname() };
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      writeFileSync(file, `${JSON.stringify(mine)}\n`, { flag: 'wx' });
      heldHere.add(dir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let record: LockRecord | undefined;
    try {
      record = JSON.parse(readFileSync(file, 'utf8')) as LockRecord;
    } catch {
      // Half-written by a process killed while taking it, or removed meanwhile: not a live holder.
    }
    const holder = record && typeof record.pid === 'number' ? liveHolder(dir, record) : undefined;
    if (holder) {
      // A holder on another host cannot be checked from here: if it is gone, removing the lock file frees the folder.
      const elsewhere = holder.host === os.hostname() ? '' : ` (if it no longer runs, remove ${file})`;
      throw new StateDirInUse(`${dir} is in use by another stub server (pid ${holder.pid} on ${holder.host})${elsewhere}; stop it, or give this one its own folder with STUB_STATE_DIR=<folder> (or STUB_STATE_DIR=off)`);
    }
    try {
      unlinkSync(file);
    } catch {
      // taken over by another starting server meanwhile: the next attempt sees its lock
    }
  }
  throw new StateDirInUse(`${dir} could not be locked: other stub servers keep starting on it`);
}
