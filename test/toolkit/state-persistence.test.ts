/**
 * Kept stub state (STUB_STATE_DIR, CONVENTIONS §6): a restart starts from what was kept, a reset
 * clears it, a file that cannot be used is moved aside (never deleted) and the service starts from
 * its seeds, one folder serves one live server, the manual clock is kept with the data, and a dev
 * reload carries a service's state to its new instance. Each test keeps its state in a folder of
 * its own.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createManualClock } from '../../server-stubs/lib/clock.js';
import type { StubService } from '../../server-stubs/lib/service.js';
import { StateRejected } from '../../server-stubs/lib/store.js';
import seoService from '../../server-stubs/seo/app.js';
import { startPlatformServer, type PlatformOptions, type PlatformServer } from '../../server-stubs/server.js';

const seoKey = { authorization: 'Bearer seo_test_key', 'content-type': 'application/json' };
const folders: string[] = [];
const running: PlatformServer[] = [];

function folder(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'stub-state-'));
  folders.push(dir);
  return dir;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.close()));
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function serve(stateDir: string | undefined, options: PlatformOptions = {}) {
  const lines: string[] = [];
  const platform = await startPlatformServer(0, '127.0.0.1', { services: [seoService], stateDir, log: (line) => lines.push(line), ...options });
  running.push(platform);
  const origin = `http://127.0.0.1:${platform.port}`;
  return { platform, origin, lines };
}

/** Stops a server as `npm start` does on SIGTERM. */
async function stop(platform: PlatformServer) {
  running.splice(running.indexOf(platform), 1);
  await platform.close();
}

async function createProject(origin: string, name: string): Promise<string> {
  const res = await fetch(`${origin}/seo/projects`, { method: 'POST', headers: seoKey, body: JSON.stringify({ name }) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { project: { id: string } }).project.id;
}

async function project(origin: string, id: string): Promise<{ status: number; name?: string }> {
  const res = await fetch(`${origin}/seo/projects/${id}`, { headers: seoKey });
  const body = (await res.json()) as { project?: { name: string } };
  return { status: res.status, name: body.project?.name };
}

async function projectNames(origin: string): Promise<string[]> {
  const res = await fetch(`${origin}/seo/projects`, { headers: seoKey });
  expect(res.status).toBe(200);
  return ((await res.json()) as { projects: Array<{ name: string }> }).projects.map((p) => p.name);
}

/** Polls a condition (a file being written in the background); no fixed wait. */
async function until(condition: () => boolean, what: string, limitMs = 20_000) {
  for (const end = Date.now() + limitMs; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) if (condition()) return;
  throw new Error(`not ${what} after ${limitMs} ms`);
}

const kept = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'seo.json'), 'utf8')) as { format: number; service: string; savedAt: string; state: { collections: Record<string, unknown[]> } };

describe('a restart', () => {
  test('starts from what the server before it kept, in one versioned file per service', async () => {
    const dir = folder();
    const first = await serve(dir);
    const id = await createProject(first.origin, 'kept across restarts');
    await stop(first.platform);

    const file = kept(dir);
    expect(file).toMatchObject({ format: 1, service: 'seo', state: { collections: { projects: expect.any(Array) } } });
    expect(Date.parse(file.savedAt)).not.toBeNaN();
    expect(JSON.stringify(file.state)).toContain(id);
    expect(existsSync(path.join(dir, '_server.lock')), 'a stopped server gives the folder up').toBe(false);

    const second = await serve(dir);
    expect(await project(second.origin, id)).toEqual({ status: 200, name: 'kept across restarts' });
    expect(second.lines).toEqual([]);
  });

  test('in memory (no folder) starts from the seeds', async () => {
    const first = await serve(undefined);
    const id = await createProject(first.origin, 'forgotten');
    await stop(first.platform);
    const second = await serve(undefined);
    expect((await project(second.origin, id)).status).toBe(404);
  });

  test('keeps where a manual clock stood, so no kept time lies ahead of the clock', async () => {
    const dir = folder();
    const start = Date.parse('2026-01-15T09:30:00Z');
    const first = await serve(dir, { clock: createManualClock(start) });
    const moved = await fetch(`${first.origin}/_stub/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"advanceSeconds": 86400}' });
    expect(moved.status).toBe(200);
    await stop(first.platform);
    const second = await serve(dir, { clock: createManualClock(start) });
    expect(await (await fetch(`${second.origin}/_stub/clock`)).json()).toEqual({ now: '2026-01-16T09:30:00.000Z', manual: true });
  });
});

describe('POST /_stub/reset', () => {
  test('clears what was kept: the file holds the seeds before the answer, and a restart starts from them', async () => {
    const dir = folder();
    // What a service not running now kept would bring its old state back when it runs again.
    writeFileSync(path.join(dir, 'elsewhere.json'), JSON.stringify({ format: 1, service: 'elsewhere', state: { collections: {}, cells: {} } }));
    const first = await serve(dir);
    const id = await createProject(first.origin, 'reset away');
    await until(() => existsSync(path.join(dir, 'seo.json')) && JSON.stringify(kept(dir).state).includes(id), 'the project is kept');
    const reset = await fetch(`${first.origin}/_stub/reset`, { method: 'POST' });
    expect(reset.status).toBe(200);
    expect(JSON.stringify(kept(dir).state)).not.toContain(id);
    expect(existsSync(path.join(dir, 'elsewhere.json'))).toBe(false);
    await stop(first.platform);
    const second = await serve(dir);
    expect((await project(second.origin, id)).status).toBe(404);
    expect(await projectNames(second.origin)).toEqual(['My project']);
  });
});

describe('a kept file that cannot be used', () => {
  test.each([
    ['cannot be parsed', '{"format": 1, "service": "seo", "state": {', /^seo\.json\.unreadable-/, /not JSON/],
    ['belongs to another format version', JSON.stringify({ format: 2, service: 'seo', state: { collections: {}, cells: {} } }), /^seo\.json\.foreign-format-/, /format 2, this server reads format 1/],
    ['belongs to another service', JSON.stringify({ format: 1, service: 'mail', state: { collections: {}, cells: {} } }), /^seo\.json\.foreign-format-/, /"mail", not of seo/],
    ['is refused by the service', JSON.stringify({ format: 1, service: 'seo', state: { collections: { pages: [] }, cells: {} } }), /^seo\.json\.rejected-/, /unknown collection "pages"/],
  ])('%s: it is moved aside, named in one log line, and the service starts from its seeds', async (_case, contents, asideName, problem) => {
    const dir = folder();
    writeFileSync(path.join(dir, 'seo.json'), contents);
    const { origin, lines } = await serve(dir);

    expect(await projectNames(origin)).toEqual(['My project']);
    const aside = readdirSync(dir).filter((name) => asideName.test(name));
    expect(aside).toHaveLength(1);
    expect(readFileSync(path.join(dir, aside[0]!), 'utf8'), 'kept as it was, never deleted').toBe(contents);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(path.join(dir, aside[0]!));
    expect(lines[0]).toMatch(problem);
    expect(lines[0]).toMatch(/seo starts from its seeds/);
  });
});

describe('one folder, one server', () => {
  test('a second server on the same folder refuses to start, with a one-line message', async () => {
    const dir = folder();
    const first = await serve(dir);
    await expect(startPlatformServer(0, '127.0.0.1', { services: [seoService], stateDir: dir })).rejects.toThrow(/^\S+ is in use by another stub server \(pid \d+ on .+\); stop it, or give this one its own folder with STUB_STATE_DIR=/);
    // The first one is untouched and keeps its folder.
    const id = await createProject(first.origin, 'still serving');
    await stop(first.platform);
    expect(JSON.stringify(kept(dir).state)).toContain(id);
  });

  test("a lock whose holder is gone does not block: one naming this process's pid (a container restarted), one of a pid no process has", async () => {
    for (const pid of [process.pid, 2 ** 22 + 1]) {
      const dir = folder();
      writeFileSync(path.join(dir, '_server.lock'), JSON.stringify({ pid, host: os.hostname() }));
      const { platform } = await serve(dir);
      expect(JSON.parse(readFileSync(path.join(dir, '_server.lock'), 'utf8')).pid).toBe(process.pid);
      await stop(platform);
    }
  });

  test('a lock held on another host cannot be checked: refused, saying how to free the folder', async () => {
    const dir = folder();
    writeFileSync(path.join(dir, '_server.lock'), JSON.stringify({ pid: 4242, host: 'build-agent-7' }));
    await expect(serve(dir)).rejects.toThrow(`is in use by another stub server (pid 4242 on build-agent-7) (if it no longer runs, remove ${path.join(dir, '_server.lock')})`);
  });

  test('npm start on a folder another server holds exits with code 1 and the message', async () => {
    const dir = folder();
    await serve(dir);
    const child = spawn(process.execPath, ['--import', 'tsx', 'server-stubs/server.ts'], { env: { ...process.env, PORT: '0', STUB_STATE_DIR: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([expect.stringMatching(/^npm start: .+ is in use by another stub server/)]);
  }, 60_000);
});

describe('a dev reload (replace)', () => {
  test('keeps the state of the service it reloads, also in memory', async () => {
    const { platform, origin } = await serve(undefined);
    const id = await createProject(origin, 'survives a reload');
    const before = platform.instances.find((i) => i.slug === 'seo')!.instance;
    await platform.replace(seoService);
    expect(platform.instances.find((i) => i.slug === 'seo')!.instance, 'a new instance serves').not.toBe(before);
    expect(await project(origin, id)).toEqual({ status: 200, name: 'survives a reload' });
  });

  test('keeps it across an edit that did not load (the service answered 503 meanwhile)', async () => {
    const { platform, origin } = await serve(undefined);
    const id = await createProject(origin, 'survives a broken edit');
    await platform.markBroken({ slug: 'seo', basePath: '/seo', error: 'SyntaxError in handlers/projects.ts' });
    expect((await fetch(`${origin}/seo/projects/${id}`, { headers: seoKey })).status).toBe(503);
    await platform.replace(seoService);
    expect(await project(origin, id)).toEqual({ status: 200, name: 'survives a broken edit' });
  });

  test('new code that refuses the state starts from its seeds, said in one log line, and the kept file is moved aside', async () => {
    const dir = folder();
    const { platform, origin, lines } = await serve(dir);
    const id = await createProject(origin, 'refused by the new code');
    await until(() => existsSync(path.join(dir, 'seo.json')), 'the state is kept');
    const refusing: StubService = {
      ...seoService,
      create: async (options) => {
        const instance = await seoService.create(options);
        const state = instance.state!;
        return {
          ...instance,
          state: {
            snapshot: () => state.snapshot(),
            restore: () => {
              throw new StateRejected('unknown collection "projects" (known: sites)');
            },
          },
        };
      },
    };
    await platform.replace(refusing);
    expect((await project(origin, id)).status).toBe(404);
    expect(await projectNames(origin)).toEqual(['My project']);
    expect(lines).toEqual([expect.stringMatching(/^state: the new seo refuses the state the previous one had \(unknown collection "projects" \(known: sites\)\); seo starts from its seeds \(what was kept is moved aside to .+\)$/)]);
    const aside = readdirSync(dir).filter((name) => name.startsWith('seo.json.rejected-'));
    expect(aside).toHaveLength(1);
    expect(lines[0]).toContain(path.join(dir, aside[0]!));
  });
});

describe('PUT /_stub/state with a folder', () => {
  test('what was loaded is kept before the answer', async () => {
    const dir = folder();
    const { origin } = await serve(dir);
    const id = await createProject(origin, 'imported');
    const exported = await (await fetch(`${origin}/_stub/state?service=seo`)).text();
    await fetch(`${origin}/_stub/reset`, { method: 'POST' });
    expect(JSON.stringify(kept(dir).state)).not.toContain(id);
    const loaded = await fetch(`${origin}/_stub/state`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: exported });
    expect(loaded.status).toBe(200);
    expect(JSON.stringify(kept(dir).state)).toContain(id);
  });
});
