import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** What the last build made from what: lets a build skip units whose inputs and outputs are unchanged. */
export interface UnitState {
  hash: string;
  /** inputs recorded by the bundler, relative to the root, so the next build hashes the same set */
  inputs: string[];
  /** output path relative to the root -> sha256 of its contents */
  outputs: Record<string, string>;
}

export type BuildState = Record<string, UnitState>;

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Hash of a list of files: names and contents, so a rename counts as a change too. */
export function hashFiles(root: string, files: string[], extra = ''): string {
  const hash = createHash('sha256').update(extra);
  for (const file of [...new Set(files)].sort()) {
    const rel = path.relative(root, file);
    hash.update(`\0${rel}\0`);
    hash.update(existsSync(file) ? readFileSync(file) : '<missing>');
  }
  return hash.digest('hex');
}

export function readState(file: string): BuildState {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as BuildState;
  } catch {
    return {};
  }
}

export function writeState(file: string, state: BuildState): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`);
}

/** True when every recorded output still exists with the contents the build wrote. */
export function outputsIntact(root: string, unit: UnitState): boolean {
  return Object.entries(unit.outputs).every(([rel, digest]) => {
    const file = path.join(root, rel);
    return existsSync(file) && sha256(readFileSync(file)) === digest;
  });
}
