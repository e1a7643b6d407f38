/**
 * SIGTERM (what a process manager, an IDE's stop button or `kill` sends) and SIGINT to `npm start`,
 * `npm run mock` or `npm run dev` stop every process they started: the server, the build, the watcher. Before, the shell between npm and node died alone and left the stubs serving.
 * A signal while `npm start` or `npm run mock` builds stops the build, and no server starts: before,
 * the shell died alone there too and the build ran on to its end, holding the output open. (Those
 * cases signal the command npm runs, started without npm: npm passes both signals on, above.)
 *
 * They run in a copy of the project: each builds first, and a build writes generated/ and .cache/,
 * which `npm run check` and the type check read while the tests run beside them (npm test).
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, constants, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import { descendantsOf } from '../../scripts/lib/process-tree.js';
import { copyToolkit, type ProjectCopy } from '../helpers/project-copy.js';
import { ended, lineMatching, outputOf, type Spawned } from '../helpers/spawned.js';

let project: ProjectCopy;
beforeAll(() => {
  // One service and the development controls: what stops a process tree does not depend on how many
  // services it serves, and each more service is a contract more for every server and Prism to load.
  // With the build's state, the copy's build does only what the project's would (nothing, after a
  // build); a fresh clone has none, and builds every unit here as `npm start` there would.
  project = copyToolkit({
    services: ['seo', 'stub-controls'],
    parts: ['package.json', 'tsconfig.json', 'server-stubs/server.ts', 'server-stubs/lib', 'server-stubs/seo', 'mock', 'clients'],
    buildState: true,
  });
});
afterAll(() => project?.remove());

const descendants = descendantsOf;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url);
    return true;
  } catch {
    return false;
  }
}

/** The processes of the tree are reaped by their parents (or init) a moment after they end: checked until then. */
async function reaped(tree: number[], limitMs = 60_000) {
  for (const end = Date.now() + limitMs; tree.some(alive); ) {
    if (Date.now() > end) throw new Error(`still running ${limitMs} ms after their output closed: ${tree.filter(alive).join(', ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Each is started on port 0 and reads back, from the line it prints when it serves, the port it got.
describe.each([
  { script: 'start', signal: 'SIGTERM' as const, ports: ['PORT'], serving: /Listening on http:\/\/localhost:(\d+)/, probe: (p: number[]) => `http://127.0.0.1:${p[0]}/_stub/clock` },
  { script: 'mock', signal: 'SIGTERM' as const, ports: ['PORT'], serving: /Prism mocks of \d+ services on http:\/\/localhost:(\d+)/, probe: (p: number[]) => `http://127.0.0.1:${p[0]}/seo/projects` },
  {
    script: 'dev',
    signal: 'SIGINT' as const,
    ports: ['PORT', 'MOCK_PORT'],
    serving: /^dev: stubs on http:\/\/localhost:(\d+), mock on http:\/\/localhost:(\d+)/,
    probe: (p: number[]) => `http://127.0.0.1:${p[1]}/seo/projects`,
  },
])('npm run $script', ({ script, signal, ports, serving, probe }) => {
  test(`${signal} to npm stops every process it started, and the ports close`, async () => {
    const env = { ...process.env, STUB_STATE_DIR: 'off', ...Object.fromEntries(ports.map((name) => [name, '0'])) };
    const npm = spawn('npm', ['run', script], { cwd: project.root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = outputOf(npm);
    try {
      const numbers = (await lineMatching(npm, serving, output)).slice(1).map(Number);
      expect(numbers.every((port) => port > 0), `ports printed: ${numbers.join(', ')}`).toBe(true);
      expect(await answers(probe(numbers)), `${probe(numbers)} answers once the ports are printed`).toBe(true);
      const tree = descendants(npm.pid!);
      expect(tree.length, 'npm runs the server below it').toBeGreaterThan(0);

      npm.kill(signal);
      await ended(npm);
      await reaped(tree);
      for (const port of numbers) expect(await answers(`http://127.0.0.1:${port}/`), `port ${port} still answers`).toBe(false);
    } finally {
      for (const pid of [npm.pid!, ...descendants(npm.pid!)]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 300_000);
});

/** Whether `pid` is a build: `node …/launch.mjs build`, as `npm run build` starts it. */
function isBuild(pid: number): boolean {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return args[args.findIndex((arg) => arg.endsWith('launch.mjs')) + 1] === 'build';
  } catch {
    return false;
  }
}

/**
 * Holds a build on `fifo`, a file among the build's inputs: opening a FIFO to write waits for a reader,
 * so `reading` resolves once the build has opened it to read, and the build's read then waits for as
 * long as this end stays open without a byte. `release` ends the hold (the reader, if any, gets the end
 * of the file), also when nothing ever opened it.
 */
function hold(fifo: string) {
  const writer = open(fifo, 'w');
  // Awaited by `release` whatever happens; until then a failed open must not count as unhandled.
  writer.catch(() => {});
  let released: Promise<void> | undefined;
  return {
    reading: writer.then(() => undefined),
    release: () =>
      (released ??= (async () => {
        // A read end of our own lets a pending open through, whenever the build's never came.
        const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
        try {
          await (await writer.catch(() => undefined))?.close();
        } finally {
          closeSync(reader);
        }
      })()),
  };
}

/**
 * The command npm runs for `script` (package.json's line, in a shell as npm runs it), started without
 * npm: that npm passes SIGTERM and SIGINT on to it is what the cases above prove, and npm's own
 * start-up would be most of what these cost beside the build.
 */
function spawnScript(script: string, env: NodeJS.ProcessEnv): Spawned {
  const scripts = (JSON.parse(readFileSync(path.join(project.root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const command = scripts[script];
  if (!command) throw new Error(`package.json has no ${script} script`);
  return spawn('sh', ['-c', command], { cwd: project.root, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * The build is held, not raced: it hashes every file of scripts/ first (each is an input of every
 * unit), and reading a FIFO there blocks until the test lets it go, which it does only once the
 * command has exited. The build is certainly running when the signal comes (it has opened the FIFO),
 * and only a build that stopped lets the command exit. Not a TypeScript file, the FIFO leaves the
 * compiled mirror current, so the build runs as `npm start`'s does once built. (With the old scripts,
 * npm exited on SIGTERM and left the build running; on SIGINT the shell waited for the build, and npm
 * with it.)
 */
describe.each([
  { script: 'start', signal: 'SIGTERM' as const, serving: /Listening on http:\/\/localhost:/ },
  { script: 'start', signal: 'SIGINT' as const, serving: /Listening on http:\/\/localhost:/ },
  { script: 'mock', signal: 'SIGTERM' as const, serving: /Prism mocks of \d+ services/ },
  { script: 'mock', signal: 'SIGINT' as const, serving: /Prism mocks of \d+ services/ },
])('npm run $script, signalled while it builds', ({ script, signal, serving }) => {
  test(`${signal} to the command npm runs stops the build, and no server starts`, async () => {
    const fifo = path.join(project.root, 'scripts', 'held-build.fifo');
    execFileSync('mkfifo', [fifo]);
    const held = hold(fifo);
    const command = spawnScript(script, { ...process.env, STUB_STATE_DIR: 'off', PORT: '0' });
    const output = outputOf(command);
    let tree: number[] = [];
    let stopped = false;
    // Also after a failure or a timeout (the command waiting on a held build): the next case builds in this copy.
    onTestFinished(async () => {
      const left = stopped ? [] : tree.filter(alive);
      for (const pid of [command.pid!, ...descendants(command.pid!), ...left]) if (alive(pid)) process.kill(pid, 'SIGKILL');
      await held.release();
      rmSync(fifo, { force: true });
    });

    const exitedFirst = once(command, 'exit').then(() => Promise.reject(new Error(`exited before its build read ${fifo}:\n${output()}`)));
    exitedFirst.catch(() => {});
    await Promise.race([held.reading, exitedFirst]);
    tree = descendants(command.pid!);
    const build = tree.find(isBuild);
    expect(build, `a build runs below the command: ${tree.join(', ')}`).toBeDefined();

    const exited = once(command, 'exit');
    command.kill(signal);
    await exited;
    expect(alive(build!), `the build (${build}) still runs after the command has exited:\n${output()}`).toBe(false);
    // Were anything still waiting to go on once the build is done, it would now.
    await held.release();
    await ended(command);
    await reaped(tree);
    stopped = true;
    expect(output()).not.toMatch(serving);
  }, 300_000);
});
