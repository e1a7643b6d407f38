/**
 * A copy of part of the project in a temporary folder, for tests that edit contracts or stubs: the
 * tracked tree is never written while other test files read it. The copy resolves packages through
 * a link to the project's node_modules.
 */
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultRoot } from '../../server-stubs/lib/root.js';

export interface ProjectCopy {
  root: string;
  remove(): void;
}

/** Copies `parts` (paths relative to the project root: files or folders) into a new temporary root. */
export function copyProject(parts: string[]): ProjectCopy {
  const root = mkdtempSync(path.join(os.tmpdir(), 'contracts-project-'));
  for (const part of parts) cpSync(path.join(defaultRoot, part), path.join(root, part), { recursive: true });
  symlinkSync(path.join(defaultRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
