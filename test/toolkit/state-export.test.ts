/**
 * `GET /_stub/state` exports the services' state and `PUT /_stub/state` loads such an export
 * (CONVENTIONS §6): a scenario's data saved once, every test started from it. A bad import is a 400
 * naming the service and the problem, and changes nothing, across services.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { systemClock } from '../../server-stubs/lib/clock.js';
import type { StubService } from '../../server-stubs/lib/service.js';
import { StateStore } from '../../server-stubs/lib/store.js';
import seoService from '../../server-stubs/seo/app.js';
import { startPlatformServer, type PlatformServer } from '../../server-stubs/server.js';

const seoKey = { authorization: 'Bearer seo_test_key', 'content-type': 'application/json' };
const asJson = { 'content-type': 'application/json' };

/** A second service with state (its notes listed at GET /notes), to see imports across services. */
const notesService: StubService = {
  slug: 'notes',
  basePath: '/notes',
  title: 'Notes',
  credentials: [],
  create: (options) => {
    const state = new StateStore(options?.clock ?? systemClock);
    const notes = state.collection<{ text: string }>('notes');
    state.seed(() => notes.set('n1', { text: 'seeded' }));
    return { router: (_req, res) => void res.json(notes.values()), state, reset: () => state.reset() };
  },
};

/** A service that keeps no state. */
const plainService: StubService = { slug: 'plain', basePath: '/plain', title: 'Plain', credentials: [], create: () => ({ router: (_req, res) => void res.json({}) }) };

const running: PlatformServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.close()));
});

async function serve() {
  const platform = await startPlatformServer(0, '127.0.0.1', { services: [seoService, notesService, plainService] });
  running.push(platform);
  return `http://127.0.0.1:${platform.port}`;
}

async function call(url: string, init: RequestInit = {}) {
  const res = await fetch(url, init);
  const text = await res.text();
  expect(res.headers.get('content-type') ?? '', `${url} answers JSON`).toMatch(/^application\/json/);
  return { status: res.status, body: JSON.parse(text) };
}

async function createProject(origin: string, name: string): Promise<string> {
  const res = await call(`${origin}/seo/projects`, { method: 'POST', headers: seoKey, body: JSON.stringify({ name }) });
  expect(res.status).toBe(201);
  return res.body.project.id;
}

const projectStatus = async (origin: string, id: string) => (await fetch(`${origin}/seo/projects/${id}`, { headers: seoKey })).status;
const importState = (origin: string, body: unknown) => call(`${origin}/_stub/state`, { method: 'PUT', headers: asJson, body: typeof body === 'string' ? body : JSON.stringify(body) });

describe('GET /_stub/state', () => {
  test("answers every service's state that keeps one, versioned; ?service= one of them", async () => {
    const origin = await serve();
    const id = await createProject(origin, 'exported');
    const all = await call(`${origin}/_stub/state`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ format: 1, exportedAt: expect.any(String) });
    expect(Object.keys(all.body.services).sort()).toEqual(['notes', 'seo']);
    expect(all.body.services.notes).toEqual({ collections: { notes: [['n1', { text: 'seeded' }]] }, cells: {} });
    expect(JSON.stringify(all.body.services.seo.collections.projects)).toContain(id);

    const one = await call(`${origin}/_stub/state?service=seo`);
    expect(one.status).toBe(200);
    expect(Object.keys(one.body.services)).toEqual(['seo']);
    expect(one.body.services.seo).toEqual(all.body.services.seo);
  });

  test('an unknown slug, or a service that keeps no state, is a 404 in the controls\' error body', async () => {
    const origin = await serve();
    expect(await call(`${origin}/_stub/state?service=nope`)).toEqual({ status: 404, body: { error: 'No service "nope" (services with state: seo, notes)' } });
    expect(await call(`${origin}/_stub/state?service=plain`)).toEqual({ status: 404, body: { error: 'The plain stub keeps no state (services with state: seo, notes)' } });
  });
});

describe('PUT /_stub/state', () => {
  test('an export loaded into another server gives it the same data; services it does not name are untouched', async () => {
    const first = await serve();
    const id = await createProject(first, 'a scenario');
    const exported = await call(`${first}/_stub/state?service=seo`);

    const second = await serve();
    const note = await call(`${second}/_stub/state?service=notes`);
    expect(await importState(second, exported.body)).toEqual({ status: 200, body: { loaded: ['seo'] } });
    expect(await projectStatus(second, id)).toBe(200);
    expect((await call(`${second}/_stub/state?service=seo`)).body.services).toEqual(exported.body.services);
    expect((await call(`${second}/_stub/state?service=notes`)).body.services).toEqual(note.body.services);
  });

  test('loading an export puts a server back to it: what was made after it is gone', async () => {
    const origin = await serve();
    const kept = await createProject(origin, 'in the scenario');
    const exported = await call(`${origin}/_stub/state`);
    const later = await createProject(origin, 'after the export');
    expect(await importState(origin, exported.body)).toEqual({ status: 200, body: { loaded: ['seo', 'notes'] } });
    expect(await projectStatus(origin, kept)).toBe(200);
    expect(await projectStatus(origin, later)).toBe(404);
  });

  test('takes an export of many megabytes', async () => {
    const origin = await serve();
    const notes = Array.from({ length: 40_000 }, (_, i) => [`n${i}`, { text: `note ${i} `.padEnd(200, '.') }]);
    const body = JSON.stringify({ format: 1, services: { notes: { collections: { notes }, cells: {} } } });
    expect(body.length).toBeGreaterThan(8_000_000);
    expect(await importState(origin, body)).toEqual({ status: 200, body: { loaded: ['notes'] } });
    const listed = (await call(`${origin}/notes`)).body as unknown[];
    expect(listed).toHaveLength(40_000);
  });

  test.each([
    ['another format version', { format: 2, services: {} }, /format/],
    ['an unknown service', { format: 1, services: { nope: { collections: {}, cells: {} } } }, /^nope: no such service \(services with state: seo, notes\)$/],
    ['a service that keeps no state', { format: 1, services: { plain: { collections: {}, cells: {} } } }, /^plain: this service keeps no state/],
    ['a state the service refuses', { format: 1, services: { notes: { collections: { pages: [] }, cells: {} } } }, /^notes: unknown collection "pages" \(known: notes\)$/],
    ['a row that is not an object', { format: 1, services: { notes: { collections: { notes: [['n1', 'text']] }, cells: {} } } }, /notes/],
    ['no services', { format: 1 }, /services/],
    ['not JSON', '{"format": 1, "services": {', /JSON/i],
  ])('%s is a 400 naming the problem', async (_case, body, problem) => {
    const origin = await serve();
    const before = await call(`${origin}/_stub/state`);
    const answer = await importState(origin, body);
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body)).toEqual(['error']);
    expect(answer.body.error).toMatch(problem);
    expect((await call(`${origin}/_stub/state`)).body.services).toEqual(before.body.services);
  });

  test('all or nothing: one service refusing its part leaves the others as they were', async () => {
    const origin = await serve();
    const exported = await call(`${origin}/_stub/state`);
    const later = await createProject(origin, 'made after the export');
    const answer = await importState(origin, { format: 1, services: { seo: exported.body.services.seo, notes: { collections: { pages: [] }, cells: {} } } });
    expect(answer).toEqual({ status: 400, body: { error: 'notes: unknown collection "pages" (known: notes)' } });
    // Loaded first, seo would have lost the project: it was put back.
    expect(await projectStatus(origin, later)).toBe(200);
    expect((await call(`${origin}/notes`)).body).toEqual([{ text: 'seeded' }]);
  });
});
