/**
 * `npm run dev` reloads what was saved: a stub edit loads that service again, a contract edit runs the
 * build and serves the new contract. A reloaded service keeps its state: a project created before is
 * still there after (the reload itself is seen in dev's log).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { planFor } from '../../scripts/lib/dev/plan.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { startDevServer, type DevServer } from '../../scripts/dev.js';

const auth = { Authorization: 'Bearer seo_test_key', 'Content-Type': 'application/json' };

describe('what a save asks for', () => {
  const services = ['mail', 'seo'];
  const at = (...parts: string[]) => path.join(defaultRoot, ...parts);
  test.each([
    [[at('openapi', 'seo', 'paths', 'projects.yaml')], { build: true, reload: [], restartNeeded: [] }],
    [[at('schemas', 'mail', 'Contact.json')], { build: true, reload: [], restartNeeded: [] }],
    [[at('server-stubs', 'seo', 'handlers', 'projects.ts')], { build: false, reload: ['seo'], restartNeeded: [] }],
    [[at('server-stubs', 'lib', 'errors.ts')], { build: false, reload: ['mail', 'seo'], restartNeeded: [] }],
    [[at('server-stubs', 'server.ts')], { build: false, reload: [], restartNeeded: ['server-stubs/server.ts'] }],
  ])('%s', (changed, expected) => {
    const plan = planFor(defaultRoot, changed, services);
    expect({ ...plan, reload: [...plan.reload].sort() }).toEqual(expected);
  });
});

describe('npm run dev (stubs only)', () => {
  let dev: DevServer;
  let base = '';
  const log: string[] = [];
  const seoReloads = () => log.filter((line) => /^reload {3}seo\b.*serving$/.test(line)).length;
  beforeAll(async () => {
    dev = await startDevServer({ port: 0, host: '127.0.0.1', mock: false, log: (line) => log.push(line), stateDir: undefined });
    base = `http://127.0.0.1:${dev.platform.port}/seo`;
  }, 120_000);
  afterAll(() => dev?.close());

  async function createProject(): Promise<string> {
    const res = await fetch(`${base}/projects`, { method: 'POST', headers: auth, body: JSON.stringify({ name: `dev ${Date.now()}` }) });
    expect(res.status).toBe(201);
    return ((await res.json()) as { project: { id: string } }).project.id;
  }
  const projectStatus = async (id: string) => (await fetch(`${base}/projects/${id}`, { headers: auth })).status;

  /** Saves `file` with `contents`, waits until the reload it causes is served. */
  async function save(file: string, contents: string, reloaded: () => Promise<boolean>) {
    writeFileSync(file, contents);
    for (const end = Date.now() + 60_000; Date.now() < end; ) {
      await dev.settled();
      if (await reloaded()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${path.relative(defaultRoot, file)}: no reload in 60 s`);
  }

  test('saving a stub file serves that service again, with the state it had', async () => {
    const id = await createProject();
    const file = path.join(defaultRoot, 'server-stubs', 'seo', 'app.ts');
    const original = readFileSync(file, 'utf8');
    const before = dev.platform.instances.find((i) => i.slug === 'seo')!.instance;
    const reloads = seoReloads();
    await save(file, original, async () => seoReloads() > reloads);
    expect(dev.platform.instances.find((i) => i.slug === 'seo')!.instance, 'a new instance serves').not.toBe(before);
    expect(await projectStatus(id)).toBe(200);
    expect(dev.platform.broken).toEqual([]);
  }, 90_000);

  test('saving a contract rebuilds it and serves the seo stub again, with the state it had', async () => {
    const id = await createProject();
    const file = path.join(defaultRoot, 'openapi', 'seo', 'openapi.yaml');
    const original = readFileSync(file, 'utf8');
    const reloads = seoReloads();
    try {
      // A comment changes the file (the build runs) and nothing of the bundle: no drift is left behind.
      await save(file, `${original}# saved by the dev-server test\n`, async () => seoReloads() > reloads);
      expect(await projectStatus(id)).toBe(200);
    } finally {
      writeFileSync(file, original);
      await new Promise((r) => setTimeout(r, 100));
      await dev.settled();
    }
  }, 90_000);
});
