/**
 * SIGTERM (what a process manager, an IDE's stop button or `kill` sends) and SIGINT to `npm start`,
 * `npm run mock` or `npm run dev` stop every process they started: the server, the build, the watcher. Before, the shell between npm and node died alone and left the stubs serving.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';

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

async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(1_000) });
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => Promise<boolean> | boolean, what: string, child: ChildProcess | undefined, output: () => string, limitMs = 90_000) {
  for (const end = Date.now() + limitMs; Date.now() < end; ) {
    if (await condition()) return;
    if (child && child.exitCode !== null) throw new Error(`exited (${child.exitCode}) before ${what}:\n${output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`not ${what} after ${limitMs} ms:\n${output()}`);
}

describe.each([
  { script: 'start', signal: 'SIGTERM' as const, ports: ['PORT'], probe: (p: number[]) => `http://127.0.0.1:${p[0]}/_stub/clock` },
  { script: 'mock', signal: 'SIGTERM' as const, ports: ['PORT'], probe: (p: number[]) => `http://127.0.0.1:${p[0]}/seo/projects` },
  { script: 'dev', signal: 'SIGINT' as const, ports: ['PORT', 'MOCK_PORT'], probe: (p: number[]) => `http://127.0.0.1:${p[1]}/seo/projects` },
])('npm run $script', ({ script, signal, ports, probe }) => {
  test(`${signal} to npm stops every process it started, and the ports close`, async () => {
    const numbers = await Promise.all(ports.map(() => freePort()));
    const env = { ...process.env, ...Object.fromEntries(ports.map((name, i) => [name, String(numbers[i])])) };
    const npm = spawn('npm', ['run', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    npm.stdout.on('data', (d) => (output += d));
    npm.stderr.on('data', (d) => (output += d));
    const urls = numbers.map((port) => `http://127.0.0.1:${port}/`);
    try {
      await until(() => answers(probe(numbers)), 'serving', npm, () => output);
      const tree = descendants(npm.pid!);
      expect(tree.length, 'npm runs the server below it').toBeGreaterThan(0);

      npm.kill(signal);
      await until(() => tree.every((pid) => !alive(pid)), 'stopped (every process of the tree)', undefined, () => output, 15_000).catch((error: Error) => {
        throw new Error(`${error.message}\nstill running: ${tree.filter(alive).join(', ')}`);
      });
      for (const url of urls) expect(await answers(url), `${url} still answers`).toBe(false);
    } finally {
      for (const pid of [npm.pid!, ...descendants(npm.pid!)]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 150_000);
});
