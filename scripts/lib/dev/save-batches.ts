/**
 * Saves arrive in bursts (an editor writes, renames, touches): they are gathered, then worked
 * through one batch at a time, so a build never runs twice at once.
 */
import path from 'node:path';

export interface SaveBatches {
  /** a file was saved (created, changed, removed) */
  saved(file: string): void;
  /** resolves when every save seen so far is worked through */
  settled(): Promise<void>;
  /** drops the batch being gathered (a batch under way is not waited for) */
  stop(): void;
}

export function batchSaves(work: (changed: string[]) => Promise<void>, log: (line: string) => void): SaveBatches {
  const pending = new Set<string>();
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const workPending = () => {
    const changed = [...pending];
    pending.clear();
    return work(changed);
  };
  return {
    saved: (file) => {
      pending.add(path.resolve(file));
      clearTimeout(timer);
      timer = setTimeout(() => {
        running = running.then(workPending).catch((error: unknown) => log(`dev: ${(error as Error).message}`));
      }, 40);
    },
    settled: async () => {
      // A save may still be inside the gathering window: wait it out, then for the work it started.
      while (timer && pending.size > 0) await new Promise((r) => setTimeout(r, 10));
      await running;
    },
    stop: () => clearTimeout(timer),
  };
}
