/**
 * The compiled JavaScript `npm start` runs (.cache/js/): sources transpiled, every other file a
 * symlink to its original, only what changed done again, and a module run from the mirror reading
 * its neighbours as from the sources.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
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
    expect(await compileRuntime(root)).toEqual({ compiled: true, files: 2, problems: [] });
    const out = compiledDir(root);
    expect(lstatSync(path.join(out, 'server-stubs/demo/data.json')).isSymbolicLink()).toBe(true);
    expect(readFileSync(path.join(out, 'server-stubs/demo/app.js'), 'utf8')).not.toContain(': string');
    expect(execFileSync(process.execPath, [path.join(out, 'server-stubs/demo/app.js')]).toString().trim()).toBe('hello!');
  });

  test('nothing changed: nothing is done; a changed source is transpiled alone; an added file rebuilds', async () => {
    expect(await compileRuntime(root)).toEqual({ compiled: false, files: 0, problems: [] });
    write('server-stubs/demo/greet.ts', "export const greet = (name: string): string => `${name}?`;\n");
    const later = new Date(Date.now() + 5_000);
    utimesSync(path.join(root, 'server-stubs/demo/greet.ts'), later, later);
    expect(await compileRuntime(root)).toEqual({ compiled: true, files: 1, problems: [] });
    expect(execFileSync(process.execPath, [path.join(compiledDir(root), 'server-stubs/demo/app.js')]).toString().trim()).toBe('hello?');
    write('server-stubs/demo/extra.ts', 'export const extra = 1;\n');
    expect(await compileRuntime(root)).toEqual({ compiled: true, files: 3, problems: [] });
  });

  test('a file that does not compile is reported at its line and left out; the others are transpiled, and it is tried again next time', async () => {
    write('generated/odd/types.gen.ts', 'export type Links-Self = string;\n');
    write('server-stubs/demo/greet.ts', "export const greet = (name: string): string => `${name}.`;\n");
    const first = await compileRuntime(root);
    expect(first.problems).toHaveLength(1);
    expect(first.problems[0]).toMatch(/^generated\/odd\/types\.gen\.ts:1:\d+  error  /);
    expect(existsSync(path.join(compiledDir(root), 'generated/odd/types.gen.js'))).toBe(false);
    expect(execFileSync(process.execPath, [path.join(compiledDir(root), 'server-stubs/demo/app.js')]).toString().trim()).toBe('hello.');
    expect((await compileRuntime(root)).problems).toHaveLength(1);
    rmSync(path.join(root, 'generated'), { recursive: true });
  });
});

/** A temporary project with the launcher, the project's packages and an empty server-stubs/: the caller removes it. */
function launcherToolkit(): string {
  const toolkit = mkdtempSync(path.join(os.tmpdir(), 'contracts-launch-'));
  cpSync(path.join(defaultRoot, 'scripts/launch.mjs'), path.join(toolkit, 'scripts/launch.mjs'));
  writeFileSync(path.join(toolkit, 'package.json'), '{"type":"module"}');
  symlinkSync(path.join(defaultRoot, 'node_modules'), path.join(toolkit, 'node_modules'), 'dir');
  mkdirSync(path.join(toolkit, 'server-stubs'));
  return toolkit;
}

describe('scripts/launch.mjs', () => {
  test('runs a script from the compiled mirror while its sources are as compiled, from the sources through tsx once one changes', async () => {
    const toolkit = launcherToolkit();
    try {
      writeFileSync(path.join(toolkit, 'scripts/where.ts'), "const from: string = import.meta.url;\nconsole.log(from, process.argv.slice(2).join(' '));\n");
      const launch = () => execFileSync(process.execPath, ['scripts/launch.mjs', 'where', '--force'], { cwd: toolkit }).toString().trim();
      // Nothing compiled yet: the sources.
      expect(launch()).toBe(`file://${toolkit}/scripts/where.ts --force`);
      await compileRuntime(toolkit);
      expect(launch()).toBe(`file://${toolkit}/.cache/js/scripts/where.js --force`);
      // A source of the server the scripts may import changed since: the sources again.
      writeFileSync(path.join(toolkit, 'server-stubs/added.ts'), 'export const added = 1;\n');
      expect(launch()).toBe(`file://${toolkit}/scripts/where.ts --force`);
      expect(() => execFileSync(process.execPath, ['scripts/launch.mjs', 'nope'], { cwd: toolkit, stdio: 'pipe' })).toThrow(/no scripts\/nope\.ts/);
    } finally {
      rmSync(toolkit, { recursive: true, force: true });
    }
  });

  test('--build-first (npm start, npm run mock): the build in a process of its own without the Node flags, then the module in this process with them; a failed build ends it with its code and message', () => {
    const toolkit = launcherToolkit();
    try {
      const report = (name: string) => `console.log('${name}', process.pid, JSON.stringify(process.execArgv), process.argv.slice(2).join(' '));\n`;
      writeFileSync(path.join(toolkit, 'scripts/build.ts'), `${report('build')}if (process.env.BUILD_FAILS) { console.error('build failed: a reason'); process.exit(3); }\n`);
      writeFileSync(path.join(toolkit, 'server-stubs/serve.ts'), report('serve'));
      const launch = (env: Record<string, string> = {}) =>
        spawnSync(process.execPath, ['--heap-growing-percent=50', 'scripts/launch.mjs', '--build-first', 'server-stubs/serve', '--an-arg'], { cwd: toolkit, env: { ...process.env, ...env }, encoding: 'utf8' });

      const served = launch();
      expect(served.status, served.stderr).toBe(0);
      const [build, serve] = served.stdout.trim().split('\n').map((line) => line.split(' '));
      expect(build).toEqual(['build', expect.any(String), '[]', '']);
      expect(serve).toEqual(['serve', expect.any(String), '["--heap-growing-percent=50"]', '--an-arg']);
      expect(serve![1], 'the build ran in a process of its own').not.toBe(build![1]);

      const failed = launch({ BUILD_FAILS: '1' });
      expect(failed.status).toBe(3);
      expect(failed.stderr).toContain('build failed: a reason');
      expect(failed.stdout).not.toContain('serve');
    } finally {
      rmSync(toolkit, { recursive: true, force: true });
    }
  });
});
