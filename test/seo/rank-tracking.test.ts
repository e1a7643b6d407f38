import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createManualClock, type StubClock } from '../../server-stubs/lib/clock.js';
import { limits } from '../../server-stubs/seo/store.js';
import {
  addKeywords,
  contract,
  expectError,
  KEY_2,
  newConfig,
  newProject,
  outcome,
  raw,
  startSeo,
  UNKNOWN_ID,
  type SeoStub,
} from './support.js';

let seo: SeoStub;
let clock: StubClock;
beforeAll(async () => {
  clock = createManualClock();
  seo = await startSeo({ clock, rateLimits: false });
});
afterAll(() => seo.close());

const DAY = 86_400_000;

const listConfigs = async (projectId: string) => {
  const { data, response } = await seo.client().GET('/rank-tracking/configs', { params: { query: { projectId } } });
  expect(response.status).toBe(200);
  expect(contract.responseErrors('/rank-tracking/configs', 'get', 200, data)).toEqual([]);
  return data!.configs;
};

const latestRun = async (projectId: string, configId: string) => {
  const { data, response } = await seo.client().GET('/rank-tracking/runs', { params: { query: { projectId, configId } } });
  expect(response.status).toBe(200);
  expect(contract.responseErrors('/rank-tracking/runs', 'get', 200, data)).toEqual([]);
  return data!.run;
};

const listKeywords = async (projectId: string, configId: string, query: { page?: number; pageSize?: number } = {}) => {
  const { data, response } = await seo.client().GET('/rank-tracking/keywords', { params: { query: { projectId, configId, ...query } } });
  expect(response.status).toBe(200);
  expect(contract.responseErrors('/rank-tracking/keywords', 'get', 200, data)).toEqual([]);
  return data!;
};

describe('configurations', () => {
  test('created with defaults, listed, updated, deleted', async () => {
    const projectId = await newProject(seo.client());
    const configId = await newConfig(seo.client(), projectId, { domain: 'shop.example', serpDepth: 30 });
    expect(await listConfigs(projectId)).toEqual([
      { id: configId, domain: 'shop.example', serpDepth: 30, locationCode: 2840, languageCode: 'en', devices: 'both', scheduleInterval: 'weekly', isActive: true },
    ]);

    const update = await seo.client().PATCH('/rank-tracking/configs', {
      body: { projectId, configId, serpDepth: 100, devices: 'mobile', languageCode: 'de' },
    });
    expect(update.response.status).toBe(200);
    expect(contract.responseErrors('/rank-tracking/configs', 'patch', 200, update.data)).toEqual([]);
    expect(update.data).toEqual({ success: true });
    expect((await listConfigs(projectId))[0]).toMatchObject({ domain: 'shop.example', serpDepth: 100, devices: 'mobile', languageCode: 'de', locationCode: 2840 });

    const del = await seo.client().DELETE('/rank-tracking/configs', { body: { projectId, configId } });
    expect(del.response.status).toBe(200);
    expect(contract.responseErrors('/rank-tracking/configs', 'delete', 200, del.data)).toEqual([]);
    expect(await listConfigs(projectId)).toEqual([]);
    const gone = await seo.client().DELETE('/rank-tracking/configs', { body: { projectId, configId } });
    expectError(outcome(gone), 404, 'NOT_FOUND', { path: '/rank-tracking/configs', method: 'delete' });
  });

  test('unique by domain plus locationCode: a duplicate is 400, another location is fine', async () => {
    const projectId = await newProject(seo.client());
    await newConfig(seo.client(), projectId, { domain: 'example.com', locationCode: 2840 });
    const dup = await seo.client().POST('/rank-tracking/configs', { body: { projectId, domain: 'example.com', serpDepth: 50 } });
    expectError(outcome(dup), 400, 'VALIDATION_ERROR', { path: '/rank-tracking/configs', method: 'post' });
    const dupCase = await seo.client().POST('/rank-tracking/configs', { body: { projectId, domain: 'EXAMPLE.com', serpDepth: 50, locationCode: 2840 } });
    expectError(outcome(dupCase), 400, 'VALIDATION_ERROR', { path: '/rank-tracking/configs', method: 'post' });
    const otherLocation = await newConfig(seo.client(), projectId, { domain: 'example.com', locationCode: 2826 });
    // moving a configuration onto an existing pair is refused too
    const clash = await seo.client().PATCH('/rank-tracking/configs', { body: { projectId, configId: otherLocation, locationCode: 2840 } });
    expectError(outcome(clash), 400, 'VALIDATION_ERROR', { path: '/rank-tracking/configs', method: 'patch' });
    expect((await listConfigs(projectId)).map((c) => c.locationCode).sort()).toEqual([2826, 2840]);
    // the same pair in another project is fine
    const other = await newProject(seo.client());
    await newConfig(seo.client(), other, { domain: 'example.com', locationCode: 2840 });
  });

  test(`per-project cap of ${limits.configsPerProject}: the next one is 400 VALIDATION_ERROR`, async () => {
    const projectId = await newProject(seo.client());
    for (let i = 0; i < limits.configsPerProject; i += 1) await newConfig(seo.client(), projectId, { domain: `site${i}.example` });
    const over = await seo.client().POST('/rank-tracking/configs', { body: { projectId, domain: 'one-more.example', serpDepth: 10 } });
    expectError(outcome(over), 400, 'VALIDATION_ERROR', { path: '/rank-tracking/configs', method: 'post' });
    expect(await listConfigs(projectId)).toHaveLength(limits.configsPerProject);
    // the cap is per project
    await newConfig(seo.client(), await newProject(seo.client()), { domain: 'one-more.example' });
  });

  test.each([
    ['serpDepth 15', { serpDepth: 15 }],
    ['serpDepth 110', { serpDepth: 110 }],
    ['serpDepth 0', { serpDepth: 0 }],
    ['serpDepth missing', { serpDepth: undefined }],
    ['domain missing', { domain: undefined }],
    ['empty domain', { domain: '' }],
    ['locationCode 0', { locationCode: 0 }],
    ['languageCode over 10 characters', { languageCode: 'en-US-x-long' }],
    ['unknown devices', { devices: 'tablet' }],
    ['unknown scheduleInterval', { scheduleInterval: 'hourly' }],
    ['projectId missing', { projectId: undefined }],
    ['projectId not a UUID', { projectId: 'project-1' }],
  ])('create: 400 VALIDATION_ERROR for %s', async (_case, change) => {
    const projectId = await newProject(seo.client());
    const body = JSON.parse(JSON.stringify({ projectId, domain: 'example.com', serpDepth: 20, ...change }));
    const res = await raw(seo.baseUrl, 'POST', '/rank-tracking/configs', { body });
    expectError(res, 400, 'VALIDATION_ERROR', { path: '/rank-tracking/configs', method: 'post' });
    expect(await listConfigs(projectId)).toEqual([]);
  });

  test('create: invalid JSON is 400', async () => {
    const res = await raw(seo.baseUrl, 'POST', '/rank-tracking/configs', { body: '{"projectId": ' });
    expectError(res, 400, 'VALIDATION_ERROR', { path: '/rank-tracking/configs', method: 'post' });
  });

  test('update: 400 with no updatable key, with a bad serpDepth; configuration unchanged', async () => {
    const projectId = await newProject(seo.client());
    const configId = await newConfig(seo.client(), projectId);
    const before = await listConfigs(projectId);
    for (const body of [{ projectId, configId }, { projectId, configId, serpDepth: 15 }, { projectId, configId, serpDepth: 110 }, { projectId, configId, domain: '' }]) {
      const res = await raw(seo.baseUrl, 'PATCH', '/rank-tracking/configs', { body });
      expectError(res, 400, 'VALIDATION_ERROR', { path: '/rank-tracking/configs', method: 'patch' });
    }
    expect(await listConfigs(projectId)).toEqual(before);
  });

  test('every call but the list needs configId: 400 without it', async () => {
    const projectId = await newProject(seo.client());
    const configId = await newConfig(seo.client(), projectId);
    await addKeywords(seo.client(), projectId, configId, ['kept']);
    const calls: Array<[string, string, string, unknown]> = [
      ['PATCH', '/rank-tracking/configs', '/rank-tracking/configs', { projectId, isActive: false }],
      ['DELETE', '/rank-tracking/configs', '/rank-tracking/configs', { projectId }],
      ['GET', `/rank-tracking/keywords?projectId=${projectId}`, '/rank-tracking/keywords', undefined],
      ['POST', '/rank-tracking/keywords', '/rank-tracking/keywords', { projectId, keywords: ['x'] }],
      ['DELETE', '/rank-tracking/keywords', '/rank-tracking/keywords', { projectId, keywordIds: [UNKNOWN_ID] }],
      ['GET', `/rank-tracking/runs?projectId=${projectId}`, '/rank-tracking/runs', undefined],
    ];
    for (const [method, url, path, body] of calls) {
      const res = await raw(seo.baseUrl, method, url, { body });
      expectError(res, 400, 'VALIDATION_ERROR', { path, method: method.toLowerCase() });
    }
    // and every rank-tracking call needs projectId
    const noProject = await raw(seo.baseUrl, 'GET', '/rank-tracking/configs');
    expectError(noProject, 400, 'VALIDATION_ERROR', { path: '/rank-tracking/configs', method: 'get' });
    const noProject2 = await raw(seo.baseUrl, 'GET', `/rank-tracking/keywords?configId=${configId}`);
    expectError(noProject2, 400, 'VALIDATION_ERROR', { path: '/rank-tracking/keywords', method: 'get' });
    // nothing changed
    expect((await listConfigs(projectId))[0]!.isActive).toBe(true);
    expect((await listKeywords(projectId, configId)).totalCount).toBe(1);
  });

  test('404 NOT_FOUND: unknown project, unknown config, another organization\'s project and config', async () => {
    const projectId = await newProject(seo.client());
    const configId = await newConfig(seo.client(), projectId);
    const c2 = seo.client(KEY_2);
    const p2 = await newProject(c2);

    const cases = [
      ['list, unknown project', await seo.client().GET('/rank-tracking/configs', { params: { query: { projectId: UNKNOWN_ID } } }), '/rank-tracking/configs', 'get'],
      ['list, other org', await c2.GET('/rank-tracking/configs', { params: { query: { projectId } } }), '/rank-tracking/configs', 'get'],
      ['create, other org', await c2.POST('/rank-tracking/configs', { body: { projectId, domain: 'x.example', serpDepth: 10 } }), '/rank-tracking/configs', 'post'],
      ['update, unknown config', await seo.client().PATCH('/rank-tracking/configs', { body: { projectId, configId: UNKNOWN_ID, isActive: false } }), '/rank-tracking/configs', 'patch'],
      ['update, other org', await c2.PATCH('/rank-tracking/configs', { body: { projectId, configId, isActive: false } }), '/rank-tracking/configs', 'patch'],
      ['update, other org via own project', await c2.PATCH('/rank-tracking/configs', { body: { projectId: p2, configId, isActive: false } }), '/rank-tracking/configs', 'patch'],
      ['delete, other org', await c2.DELETE('/rank-tracking/configs', { body: { projectId, configId } }), '/rank-tracking/configs', 'delete'],
      ['keywords, other org', await c2.GET('/rank-tracking/keywords', { params: { query: { projectId: p2, configId } } }), '/rank-tracking/keywords', 'get'],
      ['add keywords, other org', await c2.POST('/rank-tracking/keywords', { body: { projectId, configId, keywords: ['x'] } }), '/rank-tracking/keywords', 'post'],
      ['remove keywords, unknown config', await seo.client().DELETE('/rank-tracking/keywords', { body: { projectId, configId: UNKNOWN_ID, keywordIds: [UNKNOWN_ID] } }), '/rank-tracking/keywords', 'delete'],
      ['runs, other org', await c2.GET('/rank-tracking/runs', { params: { query: { projectId, configId } } }), '/rank-tracking/runs', 'get'],
      ['runs, unknown config', await seo.client().GET('/rank-tracking/runs', { params: { query: { projectId, configId: UNKNOWN_ID } } }), '/rank-tracking/runs', 'get'],
    ] as const;
    for (const [name, result, path, method] of cases) {
      const o = outcome(result);
      expect({ name, status: o.status }).toEqual({ name, status: 404 });
      expectError(o, 404, 'NOT_FOUND', { path, method });
    }
    const list = await listConfigs(projectId);
    expect(list).toHaveLength(1);
    expect(list[0]!.isActive).toBe(true);
    expect(await listKeywords(projectId, configId)).toMatchObject({ totalCount: 0 });
  });
});

describe('keywords', () => {
  test('add: 201, already-tracked ones (trimmed, any case) skipped; remove counts the ids submitted', async () => {
    const projectId = await newProject(seo.client());
    const configId = await newConfig(seo.client(), projectId);
    const first = await addKeywords(seo.client(), projectId, configId, ['running shoes', 'trail shoes']);
    expect(first.status).toBe(201);
    expect(first.data!.added).toBe(2);
    expect(first.data!.addedIds).toHaveLength(2);

    const second = await addKeywords(seo.client(), projectId, configId, ['  Running Shoes ', 'trail shoes', 'hiking boots', 'hiking boots']);
    expect(second.status).toBe(201);
    expect(second.data!.added).toBe(1);
    expect(second.data!.addedIds).toHaveLength(1);

    const all = await listKeywords(projectId, configId);
    expect(all.totalCount).toBe(3);
    expect(all.keywords.map((k) => k.keyword).sort()).toEqual(['hiking boots', 'running shoes', 'trail shoes']);
    expect(new Set(all.keywords.map((k) => k.id))).toEqual(new Set([...first.data!.addedIds, ...second.data!.addedIds]));

    const allSkipped = await addKeywords(seo.client(), projectId, configId, ['HIKING BOOTS']);
    expect(allSkipped.data).toEqual({ added: 0, addedIds: [] });

    const remove = await seo.client().DELETE('/rank-tracking/keywords', {
      body: { projectId, configId, keywordIds: [first.data!.addedIds[0]!, UNKNOWN_ID, '11111111-1111-4111-8111-111111111111'] },
    });
    expect(remove.response.status).toBe(200);
    expect(contract.responseErrors('/rank-tracking/keywords', 'delete', 200, remove.data)).toEqual([]);
    expect(remove.data).toEqual({ removed: 3 });
    const after = await listKeywords(projectId, configId);
    expect(after.totalCount).toBe(2);
    expect(after.keywords.map((k) => k.id)).not.toContain(first.data!.addedIds[0]);
  });

  test.each([
    ['101 keywords', { keywords: Array.from({ length: 101 }, (_, i) => `k${i}`) }],
    ['a 501-character keyword', { keywords: ['x'.repeat(501)] }],
    ['an empty list', { keywords: [] }],
    ['keywords missing', { keywords: undefined }],
    ['configId missing', { configId: undefined }],
    ['configId not a UUID', { configId: 'config-1' }],
  ])('add: 400 VALIDATION_ERROR for %s, nothing added', async (_case, change) => {
    const projectId = await newProject(seo.client());
    const configId = await newConfig(seo.client(), projectId);
    const body = JSON.parse(JSON.stringify({ projectId, configId, keywords: ['ok'], ...change }));
    const res = await raw(seo.baseUrl, 'POST', '/rank-tracking/keywords', { body });
    expectError(res, 400, 'VALIDATION_ERROR', { path: '/rank-tracking/keywords', method: 'post' });
    expect((await listKeywords(projectId, configId)).totalCount).toBe(0);
  });

  test('add: exactly 100 keywords of 500 characters are accepted', async () => {
    const projectId = await newProject(seo.client());
    const configId = await newConfig(seo.client(), projectId);
    const res = await addKeywords(seo.client(), projectId, configId, Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(500, 'k')));
    expect(res.status).toBe(201);
    expect(res.data!.added).toBe(100);
  });

  test('remove: 1001 keywordIds is 400, 1000 is fine', async () => {
    const projectId = await newProject(seo.client());
    const configId = await newConfig(seo.client(), projectId);
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const over = await raw(seo.baseUrl, 'DELETE', '/rank-tracking/keywords', { body: { projectId, configId, keywordIds: ids(1001) } });
    expectError(over, 400, 'VALIDATION_ERROR', { path: '/rank-tracking/keywords', method: 'delete' });
    const ok = await seo.client().DELETE('/rank-tracking/keywords', { body: { projectId, configId, keywordIds: ids(1000) } });
    expect(ok.response.status).toBe(200);
    expect(ok.data).toEqual({ removed: 1000 });
  });

  describe('paging', () => {
    let projectId: string;
    let configId: string;
    let added: string[];
    beforeAll(async () => {
      projectId = await newProject(seo.client());
      configId = await newConfig(seo.client(), projectId);
      added = [];
      for (let batch = 0; batch < 3; batch += 1) {
        const res = await addKeywords(seo.client(), projectId, configId, Array.from({ length: batch < 2 ? 100 : 60 }, (_, i) => `kw ${batch}-${i}`));
        added.push(...res.data!.addedIds);
      }
      expect(added).toHaveLength(260);
    });

    test.each([
      [undefined, 50],
      [1, 50],
      [74, 50],
      [75, 50],
      [76, 100],
      [100, 100],
      [175, 100],
      [176, 250],
      [250, 250],
      [1000, 250],
    ])('pageSize %s is snapped to %i', async (requested, snapped) => {
      const page = await listKeywords(projectId, configId, requested === undefined ? {} : { pageSize: requested });
      expect(page.pageSize).toBe(snapped);
      expect(page.page).toBe(1);
      expect(page.totalCount).toBe(260);
      expect(page.keywords).toHaveLength(snapped);
    });

    test('pages cover every keyword once, in order; past the end is empty', async () => {
      const seen: string[] = [];
      for (let page = 1; page <= 3; page += 1) {
        const res = await listKeywords(projectId, configId, { page, pageSize: 100 });
        expect(res.page).toBe(page);
        expect(res.keywords).toHaveLength(page < 3 ? 100 : 60);
        seen.push(...res.keywords.map((k) => k.id));
      }
      expect(seen).toEqual(added);
      const second250 = await listKeywords(projectId, configId, { page: 2, pageSize: 250 });
      expect(second250.keywords.map((k) => k.id)).toEqual(added.slice(250));
      const past = await listKeywords(projectId, configId, { page: 9 });
      expect(past).toMatchObject({ keywords: [], totalCount: 260, page: 9, pageSize: 50 });
    });

    test('pageSize 0 and negatives snap to 50 (DECISIONS seo-1)', async () => {
      for (const q of ['pageSize=0', 'pageSize=-7', 'pageSize=-1000000']) {
        const res = await raw(seo.baseUrl, 'GET', `/rank-tracking/keywords?projectId=${projectId}&configId=${configId}&${q}`);
        expect(res.status, q).toBe(200);
        expect((res.body as { pageSize: number }).pageSize, q).toBe(50);
      }
    });

    test('page 0, non-numbers and non-finite numbers are 400', async () => {
      for (const q of ['page=0', 'page=abc', 'pageSize=abc', 'page=Infinity', 'pageSize=-Infinity', 'page=1e309', 'pageSize=1.5']) {
        const res = await raw(seo.baseUrl, 'GET', `/rank-tracking/keywords?projectId=${projectId}&configId=${configId}&${q}`);
        expectError(res, 400, 'VALIDATION_ERROR', { path: '/rank-tracking/keywords', method: 'get' });
      }
    });
  });
});

describe('runs', () => {
  test('null before the first run; then only the latest', async () => {
    const projectId = await newProject(seo.client());
    const configId = await newConfig(seo.client(), projectId, { devices: 'both' });
    expect(await latestRun(projectId, configId)).toBeNull();

    await addKeywords(seo.client(), projectId, configId, ['one', 'two']);
    const first = await latestRun(projectId, configId);
    expect(first).toMatchObject({ configId, status: 'completed', keywordCount: 2 });
    expect(first!.results).toHaveLength(4); // two keywords on two devices
    expect(new Set(first!.results.map((r) => r.device))).toEqual(new Set(['desktop', 'mobile']));

    clock.advance(60_000);
    await addKeywords(seo.client(), projectId, configId, ['three']);
    const second = await latestRun(projectId, configId);
    expect(second!.id).not.toBe(first!.id);
    expect(second!.keywordCount).toBe(3);
    expect(second!.startedAt).toBe(new Date(clock.now()).toISOString());
    // the keywords carry the latest check
    const keywords = await listKeywords(projectId, configId);
    expect(keywords.keywords.every((k) => k.lastCheckedAt === second!.startedAt)).toBe(true);
  });

  test('pause keeps history and records no run when due; resume records one', async () => {
    const projectId = await newProject(seo.client());
    const configId = await newConfig(seo.client(), projectId, { scheduleInterval: 'daily', devices: 'desktop' });
    await addKeywords(seo.client(), projectId, configId, ['alpha', 'beta']);
    const first = await latestRun(projectId, configId);
    expect(first).not.toBeNull();

    // not due yet: reading does not record a run
    clock.advance(DAY / 2);
    expect((await latestRun(projectId, configId))!.id).toBe(first!.id);

    const pause = await seo.client().PATCH('/rank-tracking/configs', { body: { projectId, configId, isActive: false } });
    expect(pause.response.status).toBe(200);
    expect((await listConfigs(projectId))[0]!.isActive).toBe(false);

    clock.advance(DAY);
    // due, but paused: the history is still there and no new run is recorded
    expect(await latestRun(projectId, configId)).toEqual(first);
    expect((await listKeywords(projectId, configId)).totalCount).toBe(2);
    // adding keywords while paused records no run either
    await addKeywords(seo.client(), projectId, configId, ['gamma']);
    expect((await latestRun(projectId, configId))!.id).toBe(first!.id);

    const resume = await seo.client().PATCH('/rank-tracking/configs', { body: { projectId, configId, isActive: true } });
    expect(resume.response.status).toBe(200);
    const resumed = await latestRun(projectId, configId);
    expect(resumed!.id).not.toBe(first!.id);
    expect(resumed!.startedAt).toBe(new Date(clock.now()).toISOString());
    expect(resumed!.keywordCount).toBe(3);
    // and only once per interval
    expect((await latestRun(projectId, configId))!.id).toBe(resumed!.id);
  });

  test('a configuration that got its first keywords while paused runs once resumed', async () => {
    const projectId = await newProject(seo.client());
    const configId = await newConfig(seo.client(), projectId, { scheduleInterval: 'daily', devices: 'desktop' });
    await seo.client().PATCH('/rank-tracking/configs', { body: { projectId, configId, isActive: false } });
    await addKeywords(seo.client(), projectId, configId, ['delta']);
    expect(await latestRun(projectId, configId)).toBeNull();
    await seo.client().PATCH('/rank-tracking/configs', { body: { projectId, configId, isActive: true } });
    const run = await latestRun(projectId, configId);
    expect(run?.keywordCount).toBe(1);
    expect(run?.results.map((r) => r.keyword)).toEqual(['delta']);
  });
});
