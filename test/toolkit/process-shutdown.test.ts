/**
 * SIGTERM (what a process manager, an IDE's stop button or `kill` sends) and SIGINT to `npm start`,
 * `npm run mock` or `npm run dev` stop every process they started: the server, the build, the watcher. Before, the shell between npm and node died alone and left the stubs serving.
 *
 * They run in a copy of the project: each builds first, and a build writes generated/ and .cache/,
 * which `npm run check` and the type check read while the tests run beside them (npm test).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { copyToolkit, type ProjectCopy } from '../helpers/project-copy.js';
import { ended, lineMatching, outputOf } from '../helpers/spawned.js';

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

/** The pids below `pid`, read from /proc (the children of the children, and so on). */
function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces and parentheses: the fields after the last `)` are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, p] of parentOf) if (p === parent) found.push(child), walk(child);
  };
  walk(pid);
  return found;
}

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
