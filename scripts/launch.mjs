/**
 * `node scripts/launch.mjs <script> [args]`: runs scripts/<script>.ts from the compiled mirror
 * (.cache/js/, which `npm run build` transpiles for `npm start`) when every TypeScript source a
 * script can load is as it was when compiled, else from the sources through tsx. Through tsx's
 * module hooks, loading Redocly and openapi-typescript cost a build about half a second more.
 * A name with a slash is a module of the project by its path (`server-stubs/server`).
 *
 * `--build-first` (`npm start`, `npm run mock`): `npm run build` first, in a child process, and the
 * script in this one once it has succeeded. A signal that comes during the build is passed to the
 * build and then stops this process the same way, so whoever signals `npm start` stops the build
 * too; a failed build ends this process with its exit code.
 *
 * Plain JavaScript: it must run before anything can be compiled.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where the scripts' code comes from (generated/ is types and data, read as files). */
const CODE_FOLDERS = ['scripts', 'server-stubs', 'mock', 'clients'];
const BUILD_FIRST = '--build-first';
const buildFirst = process.argv[2] === BUILD_FIRST;
const [script, ...args] = process.argv.slice(buildFirst ? 3 : 2);
const modulePath = script?.includes('/') ? script : `scripts/${script ?? ''}`;
if (!script || !existsSync(path.join(root, `${modulePath}.ts`))) {
  console.error(`usage: node scripts/launch.mjs [${BUILD_FIRST}] <script> [args]: no ${modulePath}.ts`);
  process.exit(2);
}

/**
 * Runs `node scripts/launch.mjs build` as `npm run build` runs it (its own process, without this
 * one's Node flags, its output straight to ours) and resolves with how it ended. npm signals only
 * its own child, this process: SIGINT and SIGTERM are passed on, and a signal received counts as
 * the build's end even if the build finished anyway.
 */
function runBuild() {
  return new Promise((resolve) => {
    const build = spawn(process.execPath, [fileURLToPath(import.meta.url), 'build'], { stdio: 'inherit' });
    let received;
    const forward = (signal) => {
      received = signal;
      build.kill(signal);
    };
    const settle = (outcome) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(outcome);
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    build.once('error', (error) => settle({ code: 1, signal: received, error }));
    build.once('exit', (code, signal) => settle({ code: code ?? 1, signal: received ?? signal ?? undefined }));
  });
}

if (buildFirst) {
  const built = await runBuild();
  if (built.error) console.error(`could not start the build: ${built.error.message}`);
  if (built.signal) {
    // With no listener left, the signal's default action ends this process as it ended the build.
    process.kill(process.pid, built.signal);
    process.exit(128 + constants.signals[built.signal]);
  }
  if (built.code !== 0) process.exit(built.code);
}

function typescriptSources(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return typescriptSources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The compile's manifest stamps each source `size:mtime` (scripts/steps/compile.ts); any difference means stale. */
function compiledIsCurrent() {
  const manifest = path.join(root, '.cache', 'js', '.manifest.json');
  if (!existsSync(manifest)) return false;
  const compiled = JSON.parse(readFileSync(manifest, 'utf8')).sources ?? {};
  const current = CODE_FOLDERS.flatMap((folder) => typescriptSources(path.join(root, folder)));
  const compiledCode = Object.keys(compiled).filter((rel) => CODE_FOLDERS.some((folder) => rel.startsWith(`${folder}/`)));
  if (compiledCode.length !== current.length) return false;
  return current.every((file) => {
    const stat = statSync(file);
    return compiled[path.relative(root, file)] === `${stat.size}:${stat.mtimeMs}`;
  });
}

const compiled = compiledIsCurrent();
const entry = compiled ? path.join(root, '.cache', 'js', `${modulePath}.js`) : path.join(root, `${modulePath}.ts`);
if (!compiled) {
  const { register } = await import('tsx/esm/api');
  register();
}
// As if the script had been started itself.
process.argv = [process.argv[0], entry, ...args];
await import(pathToFileURL(entry).href);
