/**
 * `node scripts/launch.mjs <script> [args]`: runs scripts/<script>.ts from the compiled mirror
 * (.cache/js/, which `npm run build` transpiles for `npm start`) when every TypeScript source a
 * script can load is as it was when compiled, else from the sources through tsx. Through tsx's
 * module hooks, loading Redocly and openapi-typescript cost a build about half a second more.
 *
 * Plain JavaScript: it must run before anything can be compiled.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where the scripts' code comes from (generated/ is types and data, read as files). */
const CODE_FOLDERS = ['scripts', 'server-stubs', 'mock', 'clients'];
const [script, ...args] = process.argv.slice(2);
if (!script || !existsSync(path.join(root, 'scripts', `${script}.ts`))) {
  console.error(`usage: node scripts/launch.mjs <script> [args]: no scripts/${script ?? ''}.ts`);
  process.exit(2);
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
const entry = compiled ? path.join(root, '.cache', 'js', 'scripts', `${script}.js`) : path.join(root, 'scripts', `${script}.ts`);
if (!compiled) {
  const { register } = await import('tsx/esm/api');
  register();
}
// As if the script had been started itself.
process.argv = [process.argv[0], entry, ...args];
await import(pathToFileURL(entry).href);
