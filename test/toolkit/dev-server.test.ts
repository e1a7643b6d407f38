/**
 * `npm run dev` reloads what was saved: a stub edit loads that service again, a contract edit runs the
 * build and serves the new contract. A reloaded service keeps its state: a project created before is
 * still there after, served by a new instance. The tests wait on the dev server's own report of the
 * reload, not on time.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { planFor } from '../../scripts/lib/dev/plan.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { startDevServer, type DevServer } from '../../scripts/dev.js';
import { copyToolkit, type ProjectCopy } from '../helpers/project-copy.js';

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
    [[at('server-stubs', 'lib', 'platform', 'service-slots.ts')], { build: false, reload: [], restartNeeded: ['server-stubs/lib/platform/service-slots.ts'] }],
  ])('%s', (changed, expected) => {
    const plan = planFor(defaultRoot, changed, services);
    expect({ ...plan, reload: [...plan.reload].sort() }).toEqual(expected);
  });
});

/**
 * The dev server runs on a copy of the toolkit with the seo service (its contract, schemas, stub,
 * bundle): its saves never touch the tracked tree other test files read. With the build's state, the
 * first build does only what the project's would (nothing, after a build): what a save rebuilds is
 * what these tests are about.
 */
describe('npm run dev (stubs only)', () => {
  let project: ProjectCopy;
  let dev: DevServer;
  let base = '';
  const lines: string[] = [];
  const waiting = new Set<{ pattern: RegExp; resolve: () => void }>();
  const log = (line: string) => {
    lines.push(line);
    for (const w of waiting) if (w.pattern.test(line)) waiting.delete(w), w.resolve();
  };
  /** Resolves at the next log line matching `pattern` (after the call). */
  const nextLine = (pattern: RegExp) => new Promise<void>((resolve) => waiting.add({ pattern, resolve }));

  beforeAll(async () => {
    project = copyToolkit({ services: ['seo'], parts: ['package.json', 'server-stubs/lib', 'server-stubs/seo', 'clients/event-stream'], buildState: true });
    dev = await startDevServer({ root: project.root, port: 0, host: '127.0.0.1', mock: false, log, stateDir: undefined });
    base = `http://127.0.0.1:${dev.platform.port}/seo`;
  }, 300_000);
  afterAll(async () => {
    await dev?.close();
    project?.remove();
  });

  async function createProject(): Promise<string> {
    const res = await fetch(`${base}/projects`, { method: 'POST', headers: auth, body: JSON.stringify({ name: `dev ${Date.now()}` }) });
    expect(res.status).toBe(201);
    return ((await res.json()) as { project: { id: string } }).project.id;
  }
  const projectStatus = async (id: string) => (await fetch(`${base}/projects/${id}`, { headers: auth })).status;

  /** Saves `file` (relative to the copy) with `contents`; resolves when the dev server says seo is served again. */
  async function save(file: string, contents: string) {
    const reloaded = nextLine(/^reload {3}seo\b.*serving$/);
    writeFileSync(path.join(project.root, file), contents);
    await reloaded;
    await dev.settled();
  }

  const seoInstance = () => dev.platform.instances.find((i) => i.slug === 'seo')!.instance;

  test('saving a stub file serves that service again, a new instance keeping its state', async () => {
    const id = await createProject();
    const before = seoInstance();
    const file = path.join('server-stubs', 'seo', 'app.ts');
    await save(file, readFileSync(path.join(project.root, file), 'utf8'));
    expect(seoInstance(), 'a new instance serves').not.toBe(before);
    expect(await projectStatus(id)).toBe(200);
    expect(dev.platform.broken).toEqual([]);
  }, 300_000);

  test('saving a contract rebuilds it and serves the seo stub again', async () => {
    const id = await createProject();
    const file = path.join('openapi', 'seo', 'openapi.yaml');
    // A comment changes the file (the build runs) and nothing of the bundle.
    const before = seoInstance();
    await save(file, `${readFileSync(path.join(project.root, file), 'utf8')}# saved by the dev-server test\n`);
    expect(seoInstance(), 'a new instance serves').not.toBe(before);
    expect(await projectStatus(id)).toBe(200);
    expect(lines.filter((line) => line.startsWith('build failed'))).toEqual([]);
  }, 300_000);
});
