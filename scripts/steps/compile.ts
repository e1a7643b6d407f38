/**
 * The JavaScript that `npm start` runs: every TypeScript file of the toolkit's runtime folders
 * transpiled by esbuild (one file each, no bundling, so module boundaries, `import.meta.url` and
 * lazy imports behave as in the sources) into a mirror, `.cache/js/`, where every other file (a
 * bundle, a corpus, a template) is a symlink to the original. Paths a module computes from its own
 * location therefore land on the same files as from the sources. Transpiling at start with tsx cost
 * every start its time; this runs once per change (only what changed), and a no-op build
 * only compares the folders' file list, sizes and times with the last compile.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { listFiles } from '../lib/project.js';

/** What runs at start, and what it reads beside itself. */
export const RUNTIME_FOLDERS = ['server-stubs', 'scripts', 'mock', 'clients', 'generated', 'schemas', 'openapi'];

export const compiledDir = (root: string) => path.join(root, '.cache', 'js');

interface Manifest {
  /** each TypeScript source, relative, with `size:mtime` when it was transpiled */
  sources: Record<string, string>;
  /** every other file, relative: symlinked, so a change of its content needs nothing */
  others: string[];
}

const stamp = (file: string) => {
  const s = statSync(file);
  return `${s.size}:${s.mtimeMs}`;
};

/**
 * Compiles what changed since the last compile: a changed source is transpiled again in place; a
 * file added or removed rebuilds the mirror beside and swaps it in, so a server starting meanwhile
 * reads the old mirror or the new one, never half of one. Returns how many sources it transpiled.
 */
export async function compileRuntime(root: string): Promise<{ compiled: boolean; files: number; problems: string[] }> {
  // The HTML docs are rewritten by every build and read by no server (they render from the bundles).
  const docs = path.join(root, 'generated', 'docs') + path.sep;
  const files = RUNTIME_FOLDERS.flatMap((folder) => listFiles(path.join(root, folder))).filter((f) => !f.startsWith(docs));
  const isSource = (f: string) => f.endsWith('.ts') && !f.endsWith('.d.ts');
  const rel = (f: string) => path.relative(root, f);
  const current: Manifest = {
    sources: Object.fromEntries(files.filter(isSource).map((f) => [rel(f), stamp(f)])),
    others: files.filter((f) => !isSource(f)).map(rel),
  };
  const out = compiledDir(root);
  const manifestFile = path.join(out, '.manifest.json');
  const previous = existsSync(manifestFile) ? (JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest) : undefined;
  const sameFiles =
    previous !== undefined &&
    previous.others.join('\n') === current.others.join('\n') &&
    Object.keys(previous.sources).join('\n') === Object.keys(current.sources).join('\n');
  const { build } = await import('esbuild');
  const problems: string[] = [];
  // Locations are relative to the working directory esbuild is given: the root, wherever this runs from.
  const transpileOnce = (entries: string[], outdir: string) =>
    build({ entryPoints: entries.map((f) => path.join(root, f)), outdir, outbase: root, absWorkingDir: root, format: 'esm', platform: 'node', target: 'node20', sourcemap: 'linked', logLevel: 'silent' });
  /**
   * One file that does not compile (a generated file of a document the generators misread, a stub
   * saved half-written) must not stop the others: its problems are reported at file:line, it is left
   * out (whatever imports it fails to load and its service answers 503), and the rest is transpiled.
   */
  const transpile = async (entries: string[], outdir: string) => {
    try {
      await transpileOnce(entries, outdir);
    } catch (error) {
      const errors = (error as { errors?: Array<{ text: string; location?: { file: string; line: number; column: number } | null }> }).errors ?? [];
      const fileOf = (file: string) => rel(path.resolve(root, file));
      const failed = new Set(errors.flatMap((e) => (e.location ? [fileOf(e.location.file)] : [])));
      if (failed.size === 0) throw error;
      // Not recorded as compiled: the next build tries it again, and reports it again while it fails.
      for (const file of failed) delete current.sources[file];
      for (const e of errors) problems.push(e.location ? `${fileOf(e.location.file)}:${e.location.line}:${e.location.column + 1}  error  ${e.text}` : `error  ${e.text}`);
      const rest = entries.filter((f) => !failed.has(f));
      if (rest.length > 0) await transpileOnce(rest, outdir);
    }
  };

  if (sameFiles) {
    const changed = Object.keys(current.sources).filter((f) => previous.sources[f] !== current.sources[f]);
    if (changed.length === 0) return { compiled: false, files: 0, problems };
    await transpile(changed, out);
    writeFileSync(manifestFile, JSON.stringify(current));
    return { compiled: true, files: changed.length, problems };
  }

  const next = `${out}.next-${process.pid}`;
  rmSync(next, { recursive: true, force: true });
  await transpile(Object.keys(current.sources), next);
  for (const file of current.others) {
    const link = path.join(next, file);
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(path.join(root, file), link);
  }
  writeFileSync(path.join(next, '.manifest.json'), JSON.stringify(current));
  const old = `${out}.old-${process.pid}`;
  if (existsSync(out)) renameSync(out, old);
  renameSync(next, out);
  rmSync(old, { recursive: true, force: true });
  return { compiled: true, files: Object.keys(current.sources).length, problems };
}
