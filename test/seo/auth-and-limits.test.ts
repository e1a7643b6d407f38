import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createManualClock, type StubClock } from '../../server-stubs/lib/clock.js';
import { LookupFailed, type Resolver } from '../../server-stubs/lib/net-guard.js';
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
  startCrawl,
  startSeo,
  type SeoStub,
} from './support.js';

describe('UNAUTHENTICATED', () => {
  let seo: SeoStub;
  beforeAll(async () => {
    seo = await startSeo();
  });
  afterAll(() => seo.close());

  const cases: Array<[string, Record<string, string>]> = [
    ['no Authorization header', {}],
    ['wrong scheme (Basic)', { Authorization: 'Basic c2VvX3Rlc3Rfa2V5Og==' }],
    ['Bearer without a token', { Authorization: 'Bearer ' }],
    ['unknown key', { Authorization: 'Bearer seo_live_nope' }],
    ['key of the mailbox product', { Authorization: 'Bearer mbk_test_free' }],
    ['key of the coding gateway', { Authorization: 'Bearer coder_test_key' }],
  ];

  test.each(cases)('GET /projects with %s gives 401 UNAUTHENTICATED', async (_name, headers) => {
    const res = await raw(seo.baseUrl, 'GET', '/projects', { key: null, headers });
    expectError(res, 401, 'UNAUTHENTICATED', { path: '/projects', method: 'get' });
  });

  test.each(cases)('POST /crawl/start with %s gives 401 and starts nothing', async (_name, headers) => {
    const before = seo.app.store.audits.size;
    const res = await raw(seo.baseUrl, 'POST', '/crawl/start', {
      key: null,
      headers,
      body: { projectId: '00000000-0000-4000-8000-000000000000', startUrl: 'https://www.example.com/' },
    });
    expectError(res, 401, 'UNAUTHENTICATED', { path: '/crawl/start', method: 'post' });
    expect(seo.app.store.audits.size).toBe(before);
  });

  test('the stream endpoint needs a key too', async () => {
    const res = await raw(seo.baseUrl, 'GET', '/crawl/00000000-0000-4000-8000-000000000000/stream?projectId=00000000-0000-4000-8000-000000000000', { key: null });
    expectError(res, 401, 'UNAUTHENTICATED', { path: '/crawl/{jobId}/stream', method: 'get' });
  });

  test('a seeded key is accepted (case-insensitive scheme)', async () => {
    const res = await raw(seo.baseUrl, 'GET', '/projects', { key: null, headers: { Authorization: 'bearer seo_test_key' } });
    expect(res.status).toBe(200);
    expect(contract.responseErrors('/projects', 'get', 200, res.body)).toEqual([]);
  });
});

describe('RATE_LIMITED (manual clock)', () => {
  let seo: SeoStub;
  let clock: StubClock;
  beforeAll(async () => {
    clock = createManualClock();
    seo = await startSeo({ clock });
  });
  afterAll(() => seo.close());
  // every test starts with fresh windows
  beforeEach(() => clock.advance(61_000));

  test('POST /projects: 30 per 60 s, the 31st is 429 with a numeric Retry-After, and the window passes', async () => {
    const client = seo.client();
    for (let i = 0; i < 30; i += 1) {
      const { response } = await client.POST('/projects', { body: { name: `p${i}` } });
      expect(response.status).toBe(201);
    }
    const limited = await client.POST('/projects', { body: { name: 'one too many' } });
    expectError(outcome(limited), 429, 'RATE_LIMITED', { path: '/projects', method: 'post' });
    const retryAfter = limited.response.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    // nothing was created by the refused request
    const list = await client.GET('/projects');
    expect(list.data!.projects.map((p) => p.name)).not.toContain('one too many');

    // another organization has its own bucket
    const other = await seo.client(KEY_2).POST('/projects', { body: { name: 'org 2' } });
    expect(other.response.status).toBe(201);

    clock.advance(Number(retryAfter) * 1000 + 1);
    const again = await client.POST('/projects', { body: { name: 'after the window' } });
    expect(again.response.status).toBe(201);
    expect(contract.responseErrors('/projects', 'post', 201, again.data)).toEqual([]);
  });

  test('un-limited reads stay available while a write bucket is exhausted', async () => {
    const client = seo.client();
    const projectId = await newProject(client);
    for (let i = 0; i < 29; i += 1) await client.PATCH('/projects/{projectId}', { params: { path: { projectId } }, body: { name: `n${i}` } });
    const limited = await client.PATCH('/projects/{projectId}', { params: { path: { projectId } }, body: { name: 'x' } });
    // PATCH has a bucket of its own (createProject's request does not count): the 30th PATCH passes
    expect(limited.response.status).toBe(200);
    const over = await client.PATCH('/projects/{projectId}', { params: { path: { projectId } }, body: { name: 'y' } });
    expectError(outcome(over), 429, 'RATE_LIMITED', { path: '/projects/{projectId}', method: 'patch' });
    expect(over.response.headers.get('retry-after')).toMatch(/^\d+$/);
    const get = await client.GET('/projects/{projectId}', { params: { path: { projectId } } });
    expect(get.response.status).toBe(200);
    expect(get.data!.project.name).toBe('x');
  });

  test('POST /crawl/start: 5 per 60 s, then RATE_LIMITED with Retry-After (one of the codes its 429 documents)', async () => {
    const client = seo.client();
    const projectId = await newProject(client);
    for (let i = 0; i < 5; i += 1) {
      // a one-page audit is done 2.4 s after it starts (default timing), so capacity never binds
      expect((await startCrawl(client, projectId, 'https://www.example.com/', { strategy: 'none' })).status).toBe(202);
      clock.advance(3_000);
    }
    const sixth = await startCrawl(client, projectId, 'https://www.example.com/', { strategy: 'none' });
    expectError(sixth, 429, 'RATE_LIMITED', { path: '/crawl/start', method: 'post' });
    const retryAfter = Number(sixth.response.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    clock.advance(retryAfter * 1000);
    expect((await startCrawl(client, projectId, 'https://www.example.com/', { strategy: 'none' })).status).toBe(202);
  });
});

describe('PLAN_LIMIT_REACHED', () => {
  let seo: SeoStub;
  let clock: StubClock;
  beforeAll(async () => {
    clock = createManualClock();
    seo = await startSeo({ clock });
  });
  afterAll(() => seo.close());

  test('the 500-keyword allowance: an overflowing request is refused whole, waiting does not clear it, no Retry-After', async () => {
    expect(limits.keywordAllowancePerOrganization).toBe(500);
    const client = seo.client();
    const projectA = await newProject(client, 'A');
    const projectB = await newProject(client, 'B');
    const configA = await newConfig(client, projectA);
    const configB = await newConfig(client, projectB);
    // 499 keywords across two projects of the organization
    for (let batch = 0; batch < 4; batch += 1) {
      const res = await addKeywords(client, projectA, configA, Array.from({ length: 100 }, (_, i) => `kw a ${batch}-${i}`));
      expect(res.status).toBe(201);
      expect(res.data!.added).toBe(100);
    }
    const fill = await addKeywords(client, projectB, configB, Array.from({ length: 99 }, (_, i) => `kw b ${i}`));
    expect(fill.data!.added).toBe(99);

    // 2 more would make 501: refused whole, not one of them added
    const over = await addKeywords(client, projectB, configB, ['fresh one', 'fresh two']);
    expectError(over, 429, 'PLAN_LIMIT_REACHED', { path: '/rank-tracking/keywords', method: 'post' });
    expect(over.response.headers.get('retry-after')).toBeNull();
    const listB = await client.GET('/rank-tracking/keywords', { params: { query: { projectId: projectB, configId: configB, pageSize: 250 } } });
    expect(listB.data!.totalCount).toBe(99);
    expect(listB.data!.keywords.map((k) => k.keyword)).not.toContain('fresh one');

    // waiting does not clear it
    clock.advance(31 * 86_400_000);
    const later = await addKeywords(client, projectB, configB, ['fresh one', 'fresh two']);
    expectError(later, 429, 'PLAN_LIMIT_REACHED', { path: '/rank-tracking/keywords', method: 'post' });

    // exactly up to the allowance is fine; beyond it, even one is refused
    const last = await addKeywords(client, projectB, configB, ['fresh one']);
    expect(last.status).toBe(201);
    expect(last.data!.added).toBe(1);
    const one = await addKeywords(client, projectB, configB, ['fresh two']);
    expectError(one, 429, 'PLAN_LIMIT_REACHED', { path: '/rank-tracking/keywords', method: 'post' });

    // another organization has its own allowance
    const client2 = seo.client(KEY_2);
    const p2 = await newProject(client2);
    const c2 = await newConfig(client2, p2);
    expect((await addKeywords(client2, p2, c2, ['org two keyword'])).status).toBe(201);

    // removing keywords frees allowance
    const ids = listB.data!.keywords.slice(0, 1).map((k) => k.id);
    const removed = await client.DELETE('/rank-tracking/keywords', { body: { projectId: projectB, configId: configB, keywordIds: ids } });
    expect(removed.response.status).toBe(200);
    expect((await addKeywords(client, projectB, configB, ['fresh two'])).status).toBe(201);
  });
});

describe('AUDIT_CAPACITY_REACHED', () => {
  let seo: SeoStub;
  let clock: StubClock;
  beforeAll(async () => {
    clock = createManualClock();
    seo = await startSeo({ clock, rateLimits: false, crawl: { queuedMs: 1_000, pageMs: 100 } });
  });
  afterAll(() => seo.close());

  test('3 running audits, then a 4th is 429 AUDIT_CAPACITY_REACHED without Retry-After; capacity returns when one ends', async () => {
    expect(limits.runningAuditsPerOrganization).toBe(3);
    const client = seo.client();
    const projectId = await newProject(client);
    for (let i = 0; i < 3; i += 1) {
      const res = await startCrawl(client, projectId, `https://www.example.com/${i}`);
      expect(res.status).toBe(202);
    }
    const fourth = await startCrawl(client, projectId, 'https://www.example.com/4');
    expectError(fourth, 429, 'AUDIT_CAPACITY_REACHED', { path: '/crawl/start', method: 'post' });
    expect(fourth.response.headers.get('retry-after')).toBeNull();
    // a refused target is refused as such, whatever the load
    expectError(await startCrawl(client, projectId, 'http://127.0.0.1/'), 403, 'CRAWL_TARGET_BLOCKED', { path: '/crawl/start', method: 'post' });

    // another organization is not affected
    const client2 = seo.client(KEY_2);
    const p2 = await newProject(client2);
    expect((await startCrawl(client2, p2, 'https://www.example.com/')).status).toBe(202);

    // past every crawl's end (at most 51 pages), capacity is back
    clock.advance(1_000 + 52 * 100);
    expect((await startCrawl(client, projectId, 'https://www.example.com/4')).status).toBe(202);
  });
});

describe('archived projects release what they held (DECISIONS seo-2)', () => {
  let seo: SeoStub;
  beforeAll(async () => {
    seo = await startSeo({ clock: createManualClock(), rateLimits: false, crawl: { queuedMs: 60_000, pageMs: 1_000 } });
  });
  afterAll(() => seo.close());

  test("an archived project's keywords stop counting against the allowance; its data is kept", async () => {
    const client = seo.client();
    const full = await newProject(client, 'Full');
    const config = await newConfig(client, full);
    for (let batch = 0; batch < 5; batch += 1) {
      expect((await addKeywords(client, full, config, Array.from({ length: 100 }, (_, i) => `kw ${batch}-${i}`))).status).toBe(201);
    }
    const other = await newProject(client, 'Other');
    const otherConfig = await newConfig(client, other);
    expectError(await addKeywords(client, other, otherConfig, ['one more']), 429, 'PLAN_LIMIT_REACHED', { path: '/rank-tracking/keywords', method: 'post' });

    expect((await client.DELETE('/projects/{projectId}', { params: { path: { projectId: full } } })).response.status).toBe(200);
    expect((await addKeywords(client, other, otherConfig, ['one more'])).status).toBe(201);
    expect(seo.app.store.keywordsOf(config)).toHaveLength(500);
  });

  test("an archived project's queued and running audits stop holding capacity", async () => {
    const client = seo.client(KEY_2);
    const busy = await newProject(client, 'Busy');
    for (let i = 0; i < 3; i += 1) expect((await startCrawl(client, busy, `https://www.example.com/${i}`)).status).toBe(202);
    const other = await newProject(client, 'Other');
    expectError(await startCrawl(client, other, 'https://www.example.com/x'), 429, 'AUDIT_CAPACITY_REACHED', { path: '/crawl/start', method: 'post' });

    expect((await client.DELETE('/projects/{projectId}', { params: { path: { projectId: busy } } })).response.status).toBe(200);
    expect((await startCrawl(client, other, 'https://www.example.com/x')).status).toBe(202);
    expect([...seo.app.store.audits.values()].filter((a) => a.projectId === busy)).toHaveLength(3);
  });
});

describe('CRAWL_TARGET_BLOCKED', () => {
  let seo: SeoStub;
  let projectId: string;
  const resolver: Resolver = {
    async resolve(hostname) {
      const host = hostname.replace(/^\[|\]$/g, '');
      if (host === 'intranet.corp.test') return ['10.1.2.3'];
      if (host === 'mixed.corp.test') return ['93.184.216.34', '192.168.0.7'];
      if (host === 'localhost') return ['127.0.0.1', '::1'];
      if (host === 'public.corp.test') return ['93.184.216.34'];
      if (/^[\d.]+$/.test(host) || host.includes(':')) return [host];
      throw new LookupFailed(`${host} did not resolve`);
    },
  };
  beforeAll(async () => {
    seo = await startSeo({ resolver, rateLimits: false });
    projectId = await newProject(seo.client());
  });
  afterAll(() => seo.close());

  test.each([
    'http://127.0.0.1/',
    'http://localhost:8080/admin',
    'http://10.0.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/',
    'https://intranet.corp.test/',
    'https://mixed.corp.test/',
  ])('%s gives 403 CRAWL_TARGET_BLOCKED and no audit', async (startUrl) => {
    const before = seo.app.store.audits.size;
    const res = await startCrawl(seo.client(), projectId, startUrl);
    expectError(res, 403, 'CRAWL_TARGET_BLOCKED', { path: '/crawl/start', method: 'post' });
    expect(seo.app.store.audits.size).toBe(before);
  });

  test('a name the resolver maps to a public address is accepted', async () => {
    const res = await startCrawl(seo.client(), projectId, 'https://public.corp.test/');
    expect(res.status).toBe(202);
  });
});

describe('CRAWL_TARGET_BLOCKED with the default resolver', () => {
  let seo: SeoStub;
  beforeAll(async () => {
    seo = await startSeo({ rateLimits: false });
  });
  afterAll(() => seo.close());

  test.each(['http://127.0.0.1/', 'http://localhost/', 'http://10.0.0.1/', 'http://192.168.1.1/', 'http://169.254.169.254/', 'http://[::1]/'])(
    '%s is blocked',
    async (startUrl) => {
      const client = seo.client();
      const projectId = (await client.GET('/projects')).data!.projects[0]!.id;
      const res = await startCrawl(client, projectId, startUrl);
      expectError(res, 403, 'CRAWL_TARGET_BLOCKED', { path: '/crawl/start', method: 'post' });
    },
  );
});

describe('INTERNAL_ERROR', () => {
  let seo: SeoStub;
  beforeAll(async () => {
    const resolver: Resolver = {
      resolve: async () => {
        throw new Error('resolver exploded');
      },
    };
    seo = await startSeo({ resolver });
  });
  afterAll(() => seo.close());

  test('a resolver that throws a plain Error gives 500 with the seo error body', async () => {
    const client = seo.client();
    const projectId = await newProject(client);
    const res = await startCrawl(client, projectId, 'https://www.example.com/');
    expectError(res, 500, 'INTERNAL_ERROR', { path: '/crawl/start', method: 'post' });
    expect(seo.app.store.audits.size).toBe(0);
  });
});
