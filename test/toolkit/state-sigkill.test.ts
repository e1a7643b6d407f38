/**
 * A stub server killed with SIGKILL (no chance to flush or give its folder up) loses at most the
 * last second: what it had kept is there after a restart, and the lock it left does not block the
 * next server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';

const seoKey = { authorization: 'Bearer seo_test_key', 'content-type': 'application/json' };
const children: ChildProcess[] = [];
let dir = '';

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `npm start`'s server as its own process on the folder; resolves with its origin once it listens. */
async function startServer(stateDir: string): Promise<{ child: ChildProcess; origin: string; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server-stubs/server.ts'], { env: { ...process.env, PORT: '0', STUB_STATE_DIR: stateDir }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stderr!.on('data', (d) => (output += d));
  const origin = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      output += d;
      const m = /Listening on (http:\/\/localhost:\d+)/.exec(output);
      if (m) resolve(m[1]!.replace('localhost', '127.0.0.1'));
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening:\n${output}`)));
  });
  return { child, origin, output: () => output };
}

/** Polls a condition (the server writes in the background); no fixed wait. */
async function until(condition: () => boolean, what: string, limitMs = 30_000) {
  for (const end = Date.now() + limitMs; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) if (condition()) return;
  throw new Error(`not ${what} after ${limitMs} ms`);
}

const keptFile = () => path.join(dir, 'seo.json');
const keeps = (text: string) => () => existsSync(keptFile()) && readFileSync(keptFile(), 'utf8').includes(text);

describe('SIGKILL', () => {
  test('what was kept before the kill is there after a restart, and the lock left behind does not block it', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'stub-state-'));
    const first = await startServer(dir);
    const created = await fetch(`${first.origin}/seo/projects`, { method: 'POST', headers: seoKey, body: JSON.stringify({ name: 'before the kill' }) });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { project: { id: string } }).project.id;
    await until(keeps(id), 'the new project kept');

    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;
    expect(existsSync(path.join(dir, '_server.lock')), 'a killed server leaves its lock').toBe(true);

    const second = await startServer(dir);
    const read = await fetch(`${second.origin}/seo/projects/${id}`, { headers: seoKey });
    expect(read.status, second.output()).toBe(200);
    expect(((await read.json()) as { project: { name: string } }).project.name).toBe('before the kill');

    const stopped = new Promise((resolve) => second.child.once('exit', resolve));
    second.child.kill('SIGTERM');
    expect(await stopped).toBe(0);
    expect(existsSync(path.join(dir, '_server.lock')), 'a stopped server gives the folder up').toBe(false);
  }, 120_000);
});
