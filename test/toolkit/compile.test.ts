/**
 * The compiled JavaScript `npm start` runs (.cache/js/): sources transpiled, every other file a
 * symlink to its original, only what changed done again, and a module run from the mirror reading
 * its neighbours as from the sources.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { compiledDir, compileRuntime } from '../../scripts/steps/compile.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'contracts-compile-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const write = (rel: string, text: string) => {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
};

describe('compileRuntime', () => {
  test('transpiles sources, links the other files, and the result runs reading its neighbours', async () => {
    write('server-stubs/demo/data.json', '{"greeting":"hello"}');
    write('server-stubs/demo/greet.ts', "export const greet = (name: string): string => `${name}!`;\n");
    write('server-stubs/demo/app.ts', [
      "import { readFileSync } from 'node:fs';",
      "import { greet } from './greet.js';",
      "const data = JSON.parse(readFileSync(new URL('./data.json', import.meta.url), 'utf8')) as { greeting: string };",
      'console.log(greet(data.greeting));',
    ].join('\n'));
    write('package.json', '{"type":"module"}');
    expect(await compileRuntime(root)).toEqual({ compiled: true, files: 2 });
    const out = compiledDir(root);
    expect(lstatSync(path.join(out, 'server-stubs/demo/data.json')).isSymbolicLink()).toBe(true);
    expect(readFileSync(path.join(out, 'server-stubs/demo/app.js'), 'utf8')).not.toContain(': string');
    expect(execFileSync(process.execPath, [path.join(out, 'server-stubs/demo/app.js')]).toString().trim()).toBe('hello!');
  });

  test('nothing changed: nothing is done; a changed source is transpiled alone; an added file rebuilds', async () => {
    expect(await compileRuntime(root)).toEqual({ compiled: false, files: 0 });
    write('server-stubs/demo/greet.ts', "export const greet = (name: string): string => `${name}?`;\n");
    const later = new Date(Date.now() + 5_000);
    utimesSync(path.join(root, 'server-stubs/demo/greet.ts'), later, later);
    expect(await compileRuntime(root)).toEqual({ compiled: true, files: 1 });
    expect(execFileSync(process.execPath, [path.join(compiledDir(root), 'server-stubs/demo/app.js')]).toString().trim()).toBe('hello?');
    write('server-stubs/demo/extra.ts', 'export const extra = 1;\n');
    expect(await compileRuntime(root)).toEqual({ compiled: true, files: 3 });
  });
});
