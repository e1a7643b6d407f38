/**
 * A result kept under node_modules/.cache/<name>/, keyed by the content of everything it was
 * computed from (never by a path or a time), so that a hit is the same answer by construction. A
 * fresh `npm ci` starts without it; within one `npm test`, the checks of the temporary copies
 * (whose node_modules is a link to the repository's) reuse what `npm run check` computed.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';

export const contentKey = (parts: Array<string | Buffer>): string => {
  const hash = createHash('sha256');
  // Each part's length first: ["ab", "c"] and ["a", "bc"] are different keys.
  for (const part of parts) hash.update(`${Buffer.byteLength(part)}:`).update(part);
  return hash.digest('hex');
};

/** `compute()`'s JSON result for these inputs, from the cache or computed and kept. */
export async function cachedByContent<T>(root: string, name: string, inputs: Array<string | Buffer>, compute: () => Promise<T>): Promise<T> {
  const dir = path.join(root, 'node_modules', '.cache', name);
  const file = path.join(dir, `${contentKey(inputs)}.json`);
  if (existsSync(file)) {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as T;
    } catch {
      // A file cut short by a crash elsewhere: computed again and rewritten below.
    }
  }
  const result = await compute();
  mkdirSync(dir, { recursive: true });
  // Atomic: two test workers may write the same entry at once, and a reader never sees half of one.
  await writeFileAtomic(file, JSON.stringify(result));
  return result;
}
