import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createManualClock } from '../../server-stubs/lib/clock.js';
import { limits } from '../../server-stubs/seo/store.js';
import { listOperations, responsesOf, valueAt } from '../../server-stubs/lib/openapi/document.js';
import {
  addKeywords,
  contract,
  expectError,
  KEY_2,
  newConfig,
  newProject,
  outcome,
  raw,
  readStream,
  startCrawl,
  startSeo,
  UNKNOWN_ID,
  type SeoStub,
} from './support.js';

// One app for the file (rate limits are covered in auth-and-limits.test.ts); tests that need an
// organization without projects start their own.
let shared: SeoStub;
let seo: SeoStub;
beforeAll(async () => {
  shared = await startSeo({ clock: createManualClock(), rateLimits: false });
});
afterAll(() => shared.close());
beforeEach(() => {
  seo = shared;
});

const listOf = async (key?: string) => {
  const { data, response } = await seo.client(key).GET('/projects');
  expect(response.status).toBe(200);
  expect(contract.responseErrors('/projects', 'get', 200, data)).toEqual([]);
  return data!.projects;
};

describe('GET /projects (fresh organizations)', () => {
  beforeEach(async () => {
    seo = await startSeo({ clock: createManualClock() });
  });
  afterEach(() => seo.close());

  test('an organization with no project gets one created, once', async () => {
    const first = await listOf();
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ name: limits.defaultProjectName, domain: null });
    const second = await listOf();
    expect(second).toEqual(first);
  });

  test('after every project is archived, listing creates a new one', async () => {
    const [original] = await listOf();
    const made = await newProject(seo.client(), 'second');
    for (const id of [original!.id, made]) {
      const { data, response } = await seo.client().DELETE('/projects/{projectId}', { params: { path: { projectId: id } } });
      expect(response.status).toBe(200);
      expect(data).toEqual({ success: true });
    }
    const after = await listOf();
    expect(after).toHaveLength(1);
    expect(after[0]!.id).not.toBe(original!.id);
    expect(after[0]!.id).not.toBe(made);
    expect(after[0]).toMatchObject({ name: limits.defaultProjectName, domain: null });
  });

  test('an organization that has projects gets no default one', async () => {
    const id = await newProject(seo.client(), 'Mine', 'shop.example');
    const list = await listOf();
    expect(list).toEqual([{ id, name: 'Mine', domain: 'shop.example' }]);
  });
});

describe('POST /projects', () => {
  test('201 with the trimmed name and the domain (null when omitted)', async () => {
    const a = await seo.client().POST('/projects', { body: { name: '  Storefront  ', domain: 'example.com' } });
    expect(a.response.status).toBe(201);
    expect(contract.responseErrors('/projects', 'post', 201, a.data)).toEqual([]);
    expect(a.data!.project).toMatchObject({ name: 'Storefront', domain: 'example.com' });
    const b = await seo.client().POST('/projects', { body: { name: 'No domain' } });
    expect(b.data!.project.domain).toBeNull();
    expect(a.data!.project.id).not.toBe(b.data!.project.id);
    const get = await seo.client().GET('/projects/{projectId}', { params: { path: { projectId: a.data!.project.id } } });
    expect(get.data).toEqual(a.data);
  });

  test.each([
    ['missing name', { domain: 'example.com' }],
    ['empty name', { name: '' }],
    ['whitespace-only name', { name: '   \t ' }],
    ['name of the wrong type', { name: 42 }],
  ])('400 VALIDATION_ERROR for %s, nothing created', async (_case, body) => {
    const before = seo.app.store.projects.size;
    const res = await raw(seo.baseUrl, 'POST', '/projects', { body });
    expectError(res, 400, 'VALIDATION_ERROR', { path: '/projects', method: 'post' });
    expect(seo.app.store.projects.size).toBe(before);
  });

  test('an unknown key is ignored, not refused (DECISIONS G-1)', async () => {
    const res = await raw(seo.baseUrl, 'POST', '/projects', { body: '{"name": "ok", "owner": "someone", "__proto__": {"admin": true}}' });
    expect(res.status).toBe(201);
    expect((res.body as { project: Record<string, unknown> }).project).toEqual({ id: expect.any(String), name: 'ok', domain: null });
  });

  test('400 VALIDATION_ERROR for invalid JSON', async () => {
    const res = await raw(seo.baseUrl, 'POST', '/projects', { body: '{"name": "broken",' });
    expectError(res, 400, 'VALIDATION_ERROR', { path: '/projects', method: 'post' });
  });

  test('400 VALIDATION_ERROR for a body that is not JSON (text/plain)', async () => {
    const res = await raw(seo.baseUrl, 'POST', '/projects', { headers: { 'Content-Type': 'text/plain' } });
    const res2 = await fetch(`${seo.baseUrl}/projects`, {
      method: 'POST',
      headers: { Authorization: 'Bearer seo_test_key', 'Content-Type': 'text/plain' },
      body: 'name=plain',
    });
    const body2 = await res2.json();
    expectError(res, 400, 'VALIDATION_ERROR', { path: '/projects', method: 'post' });
    expectError({ status: res2.status, body: body2 }, 400, 'VALIDATION_ERROR', { path: '/projects', method: 'post' });
  });
});

describe('GET /projects/{projectId}', () => {
  test('404 NOT_FOUND for an unknown project; 400 for a malformed id', async () => {
    const unknown = await seo.client().GET('/projects/{projectId}', { params: { path: { projectId: UNKNOWN_ID } } });
    expectError(outcome(unknown), 404, 'NOT_FOUND', { path: '/projects/{projectId}', method: 'get' });
    const malformed = await raw(seo.baseUrl, 'GET', '/projects/not-a-uuid');
    expectError(malformed, 400, 'VALIDATION_ERROR', { path: '/projects/{projectId}', method: 'get' });
  });
});

describe('PATCH /projects/{projectId}', () => {
  const patch = (projectId: string, body: Record<string, unknown>) =>
    raw(seo.baseUrl, 'PATCH', `/projects/${projectId}`, { body });

  test('trims name, keeps omitted keys, null clears domain', async () => {
    const id = await newProject(seo.client(), 'Original', 'example.com');
    const renamed = await seo.client().PATCH('/projects/{projectId}', { params: { path: { projectId: id } }, body: { name: '  Renamed ' } });
    expect(renamed.response.status).toBe(200);
    expect(contract.responseErrors('/projects/{projectId}', 'patch', 200, renamed.data)).toEqual([]);
    expect(renamed.data!.project).toEqual({ id, name: 'Renamed', domain: 'example.com' });

    const moved = await seo.client().PATCH('/projects/{projectId}', { params: { path: { projectId: id } }, body: { domain: 'shop.example' } });
    expect(moved.data!.project).toEqual({ id, name: 'Renamed', domain: 'shop.example' });

    const cleared = await seo.client().PATCH('/projects/{projectId}', { params: { path: { projectId: id } }, body: { domain: null } });
    expect(cleared.data!.project).toEqual({ id, name: 'Renamed', domain: null });

    const read = await seo.client().GET('/projects/{projectId}', { params: { path: { projectId: id } } });
    expect(read.data!.project).toEqual({ id, name: 'Renamed', domain: null });
  });

  test.each([
    ['an empty body', {}],
    ['a whitespace-only name', { name: '   ' }],
    ['an empty name', { name: '' }],
    ['a name of null', { name: null }],
    ['only an unknown key', { owner: 'x' }],
  ])('400 VALIDATION_ERROR for %s, project unchanged', async (_case, body) => {
    const id = await newProject(seo.client(), 'Keep me', 'example.com');
    const res = await patch(id, body);
    expectError(res, 400, 'VALIDATION_ERROR', { path: '/projects/{projectId}', method: 'patch' });
    const read = await seo.client().GET('/projects/{projectId}', { params: { path: { projectId: id } } });
    expect(read.data!.project).toEqual({ id, name: 'Keep me', domain: 'example.com' });
  });

  test('invalid JSON gives 400', async () => {
    const id = await newProject(seo.client());
    const res = await raw(seo.baseUrl, 'PATCH', `/projects/${id}`, { body: '{name:' });
    expectError(res, 400, 'VALIDATION_ERROR', { path: '/projects/{projectId}', method: 'patch' });
  });

  test('404 for an unknown project', async () => {
    const res = await seo.client().PATCH('/projects/{projectId}', { params: { path: { projectId: UNKNOWN_ID } }, body: { name: 'x' } });
    expectError(outcome(res), 404, 'NOT_FOUND', { path: '/projects/{projectId}', method: 'patch' });
  });
});

describe('DELETE /projects/{projectId} archives', () => {
  test('gone from list and get; PATCH and DELETE 404; its rows stay in the store', async () => {
    const client = seo.client();
    const id = await newProject(client, 'To archive', 'www.example.com');
    const keep = await newProject(client, 'Keep');
    const configId = await newConfig(client, id);
    const added = await addKeywords(client, id, configId, ['alpha', 'beta']);
    expect(added.status).toBe(201);
    const crawl = await startCrawl(client, id, 'https://www.example.com/');
    expect(crawl.status).toBe(202);

    const del = await client.DELETE('/projects/{projectId}', { params: { path: { projectId: id } } });
    expect(del.response.status).toBe(200);
    expect(contract.responseErrors('/projects/{projectId}', 'delete', 200, del.data)).toEqual([]);
    expect(del.data).toEqual({ success: true });

    const listed = (await listOf()).map((p) => p.id);
    expect(listed).toContain(keep);
    expect(listed).not.toContain(id);
    const get = await client.GET('/projects/{projectId}', { params: { path: { projectId: id } } });
    expectError(outcome(get), 404, 'NOT_FOUND', { path: '/projects/{projectId}', method: 'get' });
    const again = await client.DELETE('/projects/{projectId}', { params: { path: { projectId: id } } });
    expectError(outcome(again), 404, 'NOT_FOUND', { path: '/projects/{projectId}', method: 'delete' });
    const patch = await client.PATCH('/projects/{projectId}', { params: { path: { projectId: id } }, body: { name: 'x' } });
    expectError(outcome(patch), 404, 'NOT_FOUND', { path: '/projects/{projectId}', method: 'patch' });

    // reads through the archived project are 404 too
    const configs = await client.GET('/rank-tracking/configs', { params: { query: { projectId: id } } });
    expectError(outcome(configs), 404, 'NOT_FOUND', { path: '/rank-tracking/configs', method: 'get' });
    const status = await client.GET('/crawl/{jobId}/status', { params: { path: { jobId: crawl.data!.jobId }, query: { projectId: id } } });
    expectError(outcome(status), 404, 'NOT_FOUND', { path: '/crawl/{jobId}/status', method: 'get' });

    // archived, not removed: audits, keywords and tracking history remain
    const store = seo.app.store;
    expect(store.projects.get(id)).toBeDefined();
    expect(store.audits.get(crawl.data!.jobId)?.projectId).toBe(id);
    expect(store.configs.get(configId)).toBeDefined();
    expect(store.keywordsOf(configId).map((k) => k.keyword).sort()).toEqual(['alpha', 'beta']);
    expect(store.runs.get(configId)?.length).toBeGreaterThan(0);
  });
});

describe('an archived project is 404 on every route (DECISIONS seo-3)', () => {
  test('every operation that names a project answers 404 NOT_FOUND for an archived one; the list leaves it out', async () => {
    const client = seo.client();
    const projectId = await newProject(client, 'Archived everywhere', 'www.example.com');
    const configId = await newConfig(client, projectId);
    expect((await addKeywords(client, projectId, configId, ['gamma'])).status).toBe(201);
    const jobId = (await startCrawl(client, projectId, 'https://www.example.com/')).data!.jobId;
    expect((await client.DELETE('/projects/{projectId}', { params: { path: { projectId } } })).response.status).toBe(200);

    const path = { params: { path: { projectId } } };
    const ids = { projectId, configId };
    const calls: Record<string, { where: { path: string; method: string }; call: () => Promise<{ status: number; body: unknown }> }> = {
      getProject: { where: { path: '/projects/{projectId}', method: 'get' }, call: async () => outcome(await client.GET('/projects/{projectId}', path)) },
      updateProject: { where: { path: '/projects/{projectId}', method: 'patch' }, call: async () => outcome(await client.PATCH('/projects/{projectId}', { ...path, body: { name: 'x' } })) },
      deleteProject: { where: { path: '/projects/{projectId}', method: 'delete' }, call: async () => outcome(await client.DELETE('/projects/{projectId}', path)) },
      listRankTrackingConfigs: { where: { path: '/rank-tracking/configs', method: 'get' }, call: async () => outcome(await client.GET('/rank-tracking/configs', { params: { query: { projectId } } })) },
      createRankTrackingConfig: {
        where: { path: '/rank-tracking/configs', method: 'post' },
        call: async () => outcome(await client.POST('/rank-tracking/configs', { body: { projectId, domain: 'example.org', serpDepth: 20 } })),
      },
      updateRankTrackingConfig: { where: { path: '/rank-tracking/configs', method: 'patch' }, call: async () => outcome(await client.PATCH('/rank-tracking/configs', { body: { ...ids, serpDepth: 30 } })) },
      deleteRankTrackingConfig: { where: { path: '/rank-tracking/configs', method: 'delete' }, call: async () => outcome(await client.DELETE('/rank-tracking/configs', { body: ids })) },
      listTrackedKeywords: { where: { path: '/rank-tracking/keywords', method: 'get' }, call: async () => outcome(await client.GET('/rank-tracking/keywords', { params: { query: ids } })) },
      addTrackedKeywords: { where: { path: '/rank-tracking/keywords', method: 'post' }, call: async () => outcome(await client.POST('/rank-tracking/keywords', { body: { ...ids, keywords: ['delta'] } })) },
      removeTrackedKeywords: {
        where: { path: '/rank-tracking/keywords', method: 'delete' },
        call: async () => outcome(await client.DELETE('/rank-tracking/keywords', { body: { ...ids, keywordIds: [UNKNOWN_ID] } })),
      },
      getLatestRankTrackingRun: { where: { path: '/rank-tracking/runs', method: 'get' }, call: async () => outcome(await client.GET('/rank-tracking/runs', { params: { query: ids } })) },
      startCrawl: { where: { path: '/crawl/start', method: 'post' }, call: async () => outcome(await client.POST('/crawl/start', { body: { projectId, startUrl: 'https://www.example.com/' } })) },
      getCrawlStatus: { where: { path: '/crawl/{jobId}/status', method: 'get' }, call: async () => outcome(await client.GET('/crawl/{jobId}/status', { params: { path: { jobId }, query: { projectId } } })) },
      streamCrawl: {
        where: { path: '/crawl/{jobId}/stream', method: 'get' },
        call: async () => {
          const read = await readStream(seo.baseUrl, projectId, jobId);
          return { status: read.response.status, body: read.body };
        },
      },
    };
    // Every operation of the bundle names a project, but listing and creating them: each has its call here.
    const namingProject = listOperations(contract.document)
      .map(({ op }) => op.operationId)
      .filter((id): id is string => id !== undefined && id !== 'listProjects' && id !== 'createProject');
    expect(Object.keys(calls).sort()).toEqual(namingProject.sort());

    for (const [id, { where, call }] of Object.entries(calls)) {
      const answer = await call();
      expect({ id, status: answer.status, body: answer.body }).toEqual({ id, status: 404, body: { error: 'Project not found', code: 'NOT_FOUND' } });
      expect(contract.responseErrors(where.path, where.method, 404, answer.body), id).toEqual([]);
    }
    expect((await listOf()).map((p) => p.id)).not.toContain(projectId);
  });

  test('the contract says so on the 404 of each of those operations, marked provisional naming seo-3', () => {
    const { document } = contract;
    for (const operation of listOperations(document)) {
      const { method, path, op } = operation;
      if (!op.operationId || op.operationId === 'listProjects' || op.operationId === 'createProject') continue;
      const response = responsesOf(document, operation)['404'];
      expect(response?.['x-provisional'], `${method} ${path}`).toMatch(/seo-3/);
      expect(response?.description, `${method} ${path}`).toMatch(/archived/i);
    }
    expect(valueAt(document, ['paths', '/projects', 'get', 'responses', '200', 'x-provisional'])).toMatch(/seo-3/);
  });
});

describe('organizations never see each other', () => {
  test('org 2 cannot list, read, change or archive org 1 projects', async () => {
    const id = await newProject(seo.client(), 'Org one secret', 'example.com');
    const other = await listOf(KEY_2);
    expect(other.map((p) => p.id)).not.toContain(id);
    expect(other.map((p) => p.name)).not.toContain('Org one secret');

    const c2 = seo.client(KEY_2);
    const get = await c2.GET('/projects/{projectId}', { params: { path: { projectId: id } } });
    expectError(outcome(get), 404, 'NOT_FOUND', { path: '/projects/{projectId}', method: 'get' });
    const patch = await c2.PATCH('/projects/{projectId}', { params: { path: { projectId: id } }, body: { name: 'stolen' } });
    expectError(outcome(patch), 404, 'NOT_FOUND', { path: '/projects/{projectId}', method: 'patch' });
    const del = await c2.DELETE('/projects/{projectId}', { params: { path: { projectId: id } } });
    expectError(outcome(del), 404, 'NOT_FOUND', { path: '/projects/{projectId}', method: 'delete' });

    const mine = await seo.client().GET('/projects/{projectId}', { params: { path: { projectId: id } } });
    expect(mine.data!.project).toEqual({ id, name: 'Org one secret', domain: 'example.com' });
    expect((await listOf()).map((p) => p.id)).toContain(id);
  });
});

describe('browsers and sloppy clients', () => {
  test('an unknown query parameter (a cache-buster) is ignored (DECISIONS G-1)', async () => {
    const res = await raw(seo.baseUrl, 'GET', '/projects?_=1700000000000&utm_source=mail');
    expect(res.status).toBe(200);
  });

  test('HEAD answers as GET without a body; another method is 405 with Allow', async () => {
    const head = await raw(seo.baseUrl, 'HEAD', '/projects');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    const put = await raw(seo.baseUrl, 'PUT', '/projects', { body: { name: 'x' } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
    expect(put.body).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
    expect(contract.schemaErrors('Error', put.body)).toEqual([]);
  });
});
