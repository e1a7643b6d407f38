/**
 * The JavaScript that `npm start` runs: every TypeScript file of the toolkit's runtime folders
 * transpiled by esbuild (one file each, no bundling, so module boundaries, `import.meta.url` and
 * lazy imports behave as in the sources) into a mirror, `.cache/js/`, where every other file (a
 * bundle, a corpus, a template) is a symlink to the original. Paths a module computes from its own
 * location therefore land on the same files as from the sources. Transpiling at start with tsx cost
 * every start about half a second; this runs once per change, and a no-op build only compares the
 * folders' file list, sizes and times with the last compile.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { listFiles } from '../lib/project.js';

/** What runs at start, and what it reads beside itself. */
export const RUNTIME_FOLDERS = ['server-stubs', 'scripts', 'mock', 'clients', 'generated', 'schemas', 'openapi'];

export const compiledDir = (root: string) => path.join(root, '.cache', 'js');

function fingerprint(root: string, files: string[]): string {
  return files.map((f) => {
    const s = statSync(f);
    return `${path.relative(root, f)}:${s.size}:${s.mtimeMs}`;
  }).join('\n');
}

/** Compiles when a file changed since the last compile; returns whether it did, and the time it took. */
export async function compileRuntime(root: string): Promise<{ compiled: boolean; files: number }> {
  // The HTML docs are rewritten by every build and read by no server (they render from the bundles).
  const docs = path.join(root, 'generated', 'docs') + path.sep;
  const files = RUNTIME_FOLDERS.flatMap((folder) => listFiles(path.join(root, folder))).filter((f) => !f.startsWith(docs));
  const out = compiledDir(root);
  const manifest = path.join(out, '.fingerprint');
  const current = fingerprint(root, files);
  if (existsSync(manifest) && readFileSync(manifest, 'utf8') === current) return { compiled: false, files: files.length };

  // Written beside, then swapped in: a server starting meanwhile reads the old mirror or the new one, never half of one.
  const next = `${out}.next-${process.pid}`;
  rmSync(next, { recursive: true, force: true });
  const sources = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  const { build } = await import('esbuild');
  await build({ entryPoints: sources, outdir: next, outbase: root, format: 'esm', platform: 'node', target: 'node20', sourcemap: 'linked', logLevel: 'error' });
  for (const file of files.filter((f) => !sources.includes(f))) {
    const link = path.join(next, path.relative(root, file));
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(file, link);
  }
  writeFileSync(manifest.replace(out, next), current);
  const old = `${out}.old-${process.pid}`;
  if (existsSync(out)) renameSync(out, old);
  renameSync(next, out);
  rmSync(old, { recursive: true, force: true });
  return { compiled: true, files: sources.length };
}
