/**
 * Who may call what, and how every failure reads: 401, 403 naming the scope per route family, the
 * 400 `{error}` versus 422 `{error: {fieldErrors, formErrors}}` split (DECISIONS reach-2), the rate
 * limit, the tolerant reader, and no usage headers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FREE, OTHER, PAID, READONLY, checked, raw, startReach, type ReachStub } from './support.js';

let reach: ReachStub;
beforeAll(async () => {
  reach = await startReach();
});
afterAll(() => reach.close());

const someId = '5a2b3c4d-1e2f-4a3b-8c4d-5e6f7a8b9c01';

describe('authentication', () => {
  test('no key, an unknown key and another product\'s key are 401 {error}', async () => {
    for (const key of [null, 'msr_test_nope', 'seo_test_key', 'mbk_test_free'] as const) {
      const answer = await raw(reach.baseUrl, 'GET', '/api/deals', { key });
      expect(answer.status, String(key)).toBe(401);
      expect(Object.keys(answer.body)).toEqual(['error']);
    }
  });

  test('billing needs a valid key but no scope', async () => {
    expect((await raw(reach.baseUrl, 'GET', '/billing/usage', { key: READONLY })).status).toBe(200);
    expect((await raw(reach.baseUrl, 'GET', '/billing/usage', { key: OTHER })).status).toBe(200);
    expect((await raw(reach.baseUrl, 'GET', '/billing/usage', { key: null })).status).toBe(401);
  });
});

describe('scopes (DECISIONS reach-4): 403 naming the missing scope', () => {
  // One route per family and the key that lacks its scope.
  const cases = [
    { family: 'search', key: READONLY, method: 'POST', path: '/api/lead-finder/search', body: { query: 'software' }, scope: 'leads:search' },
    { family: 'discover', key: READONLY, method: 'POST', path: '/api/lead-finder/discover', body: { industry: 'software' }, scope: 'leads:search' },
    { family: 'jobs', key: READONLY, method: 'GET', path: `/api/lead-finder/jobs/${someId}`, scope: 'leads:search' },
    { family: 'verify', key: READONLY, method: 'POST', path: '/api/lead-finder/verify', body: { leadIds: [someId] }, scope: 'leads:verify' },
    { family: 'score', key: READONLY, method: 'POST', path: '/api/lead-finder/score', body: { leadIds: [someId] }, scope: 'leads:score' },
    { family: 'leads', key: OTHER, method: 'GET', path: '/api/lead-finder/leads', scope: 'leads:read' },
    { family: 'lists (GET)', key: OTHER, method: 'GET', path: '/api/lead-finder/lists', scope: 'leads:read' },
    { family: 'preview-message', key: OTHER, method: 'POST', path: '/api/lead-finder/preview-message', body: { leadId: someId }, scope: 'leads:read' },
    { family: 'list create (designed)', key: READONLY, method: 'POST', path: '/api/lead-finder/lists', body: { name: 'x' }, scope: 'leads:search' },
    { family: 'enrich (designed)', key: READONLY, method: 'POST', path: '/api/lead-finder/enrich', body: { leadIds: [someId] }, scope: 'leads:search' },
    { family: 'deals read', key: OTHER, method: 'GET', path: '/api/deals', scope: 'deals:read' },
    { family: 'pipeline read', key: OTHER, method: 'GET', path: '/api/pipeline', scope: 'deals:read' },
    { family: 'deals write', key: READONLY, method: 'POST', path: '/api/deals', body: { name: 'x' }, scope: 'deals:write' },
    { family: 'deal update', key: READONLY, method: 'PATCH', path: `/api/deals/${someId}`, body: { notes: 'x' }, scope: 'deals:write' },
    { family: 'pipeline move', key: READONLY, method: 'POST', path: '/api/pipeline', body: { dealId: someId, stage: 'lost' }, scope: 'deals:write' },
    { family: 'autopilot start (designed)', key: READONLY, method: 'POST', path: '/api/autopilot/start', body: { leadIds: [someId] }, scope: 'deals:write' },
    { family: 'autopilot runs (designed)', key: OTHER, method: 'GET', path: '/api/autopilot/runs', scope: 'deals:read' },
  ];
  test.each(cases)('$family: $scope', async ({ key, method, path, body, scope }) => {
    const answer = await raw(reach.baseUrl, method, path, { key, ...(body && { body: JSON.stringify(body) }) });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ error: `Insufficient scope: this route needs ${scope}`, requiredScope: scope });
  });

  test('a key with the scope passes the same gate', async () => {
    const answer = checked(await reach.client(READONLY).GET('/api/deals'), { path: '/api/deals', method: 'get' });
    expect(answer.status).toBe(200);
  });
});

describe('400 for invalid JSON, malformed UUIDs and missing fields, 422 for a body that has its fields but breaks its schema (DECISIONS reach-2)', () => {
  test('invalid JSON is 400 {error}', async () => {
    const answer = await raw(reach.baseUrl, 'POST', '/api/deals', { body: '{"name":' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: expect.stringMatching(/Invalid JSON/) });
  });

  test('a malformed UUID in the path is 400 {error}', async () => {
    const answer = checked(await reach.client().PATCH('/api/deals/{id}', { params: { path: { id: 'not-a-uuid' } }, body: { notes: 'x' } }), { path: '/api/deals/{id}', method: 'patch' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'Malformed UUID in the path: id' });
  });

  test('a body that parses but breaks its schema is 422 with fieldErrors by field', async () => {
    const answer = checked(await reach.client().POST('/api/lead-finder/search', { body: { query: 'ab', limit: 99 } }), { path: '/api/lead-finder/search', method: 'post' });
    expect(answer.status).toBe(422);
    expect(answer.body.error.formErrors).toEqual([]);
    expect(Object.keys(answer.body.error.fieldErrors).sort()).toEqual(['limit', 'query']);
  });

  test('a missing required field is 400 with fieldErrors on that field, also beside other failures', async () => {
    const answer = checked(await reach.client().POST('/api/deals', { body: {} as never }), { path: '/api/deals', method: 'post' });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: { error: { fieldErrors: { name: ["must have required property 'name'"] }, formErrors: [] } } });
    const mixed = checked(await reach.client().POST('/api/deals', { body: { value: -1 } as never }), { path: '/api/deals', method: 'post' });
    expect(mixed.status).toBe(400);
    expect(Object.keys(mixed.body.error.fieldErrors).sort()).toEqual(['name', 'value']);
    const sync = await raw(reach.baseUrl, 'POST', `/api/lead-finder/lists/${someId}/sync`, { body: '{}' });
    expect(sync).toMatchObject({ status: 400, body: { error: { fieldErrors: { campaignId: [expect.stringMatching(/required/)] }, formErrors: [] } } });
  });

  test('the same body with its fields but a wrong type or limit is 422', async () => {
    const answer = checked(await reach.client().POST('/api/deals', { body: { name: 'Negative', value: -1 } }), { path: '/api/deals', method: 'post' });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 422, body: { error: { fieldErrors: { value: ['must be >= 0'] }, formErrors: [] } } });
    const typed = await raw(reach.baseUrl, 'POST', '/api/deals', { body: JSON.stringify({ name: 7 }) });
    expect(typed).toMatchObject({ status: 422, body: { error: { fieldErrors: { name: [expect.stringMatching(/string/)] }, formErrors: [] } } });
  });

  test('a malformed UUID in the body is 400 with fieldErrors', async () => {
    const answer = checked(await reach.client().POST('/api/lead-finder/verify', { body: { leadIds: ['not-a-uuid'] } }), { path: '/api/lead-finder/verify', method: 'post' });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: { error: { fieldErrors: { leadIds: ['must match format "uuid"'] }, formErrors: [] } } });
  });

  test('no discovery filter at all is a missing field: 400 with a form error', async () => {
    const answer = checked(await reach.client().POST('/api/lead-finder/discover', { body: { limit: 3 } }), { path: '/api/lead-finder/discover', method: 'post' });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: { error: { fieldErrors: {}, formErrors: ['At least one of industry, location, headcount or technology is needed'] } } });
  });

  test('`Invalid returnUrl` is 400, a registered path is fine', async () => {
    const bad = checked(await reach.client().GET('/billing/subscription', { params: { query: { returnUrl: 'https://evil.example/' } } }), { path: '/billing/subscription', method: 'get' });
    expect(bad).toMatchObject({ status: 400, body: { error: 'Invalid returnUrl' } });
    const unencoded = await raw(reach.baseUrl, 'GET', '/billing/subscription?returnUrl=//evil.example/x');
    expect(unencoded).toMatchObject({ status: 400, body: { error: 'Invalid returnUrl' } });
    const good = checked(await reach.client().GET('/billing/subscription', { params: { query: { returnUrl: 'https://app.reach.example/settings' } } }), { path: '/billing/subscription', method: 'get' });
    expect(good.status).toBe(200);
    expect(good.body.portalUrl).toContain(encodeURIComponent('https://app.reach.example/settings'));
  });
});

describe('tolerant reader (DECISIONS G-1) and headers', () => {
  test('unknown query parameters, headers and body properties are ignored', async () => {
    const created = await raw(reach.baseUrl, 'POST', '/api/deals?_=123', { body: JSON.stringify({ name: 'Tolerant', value: 10, colour: 'blue' }), headers: { 'X-Unknown': '1' } });
    expect(created.status).toBe(201);
    expect(created.body.deal).not.toHaveProperty('colour');
    expect((await raw(reach.baseUrl, 'GET', '/api/pipeline?cacheBuster=1')).status).toBe(200);
  });

  test('no usage headers on any answer, metered or not', async () => {
    const answers = [
      await raw(reach.baseUrl, 'POST', '/api/lead-finder/search', { key: PAID, body: JSON.stringify({ query: 'software founders' }) }),
      await raw(reach.baseUrl, 'GET', '/billing/usage', { key: FREE }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBeLessThan(300);
      const names: string[] = [];
      answer.headers.forEach((_value, name) => names.push(name));
      expect(names.filter((h) => h.startsWith('x-service-usage') || h === 'x-service-plan' || h.startsWith('x-usage') || h.startsWith('x-ratelimit'))).toEqual([]);
    }
  });
});

describe('rate limit (designed: 120 per minute per key)', () => {
  test('the 121st request in a minute is 429 {error} with Retry-After and no plan code; the window clears', async () => {
    const own = await startReach();
    try {
      let answer = await raw(own.baseUrl, 'GET', '/billing/usage');
      for (let i = 1; i < 121 && answer.status === 200; i += 1) answer = await raw(own.baseUrl, 'GET', i % 2 ? '/api/deals' : '/billing/usage');
      expect(answer.status).toBe(429);
      expect(Object.keys(answer.body)).toEqual(['error']);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Another key has its own window.
      expect((await raw(own.baseUrl, 'GET', '/billing/usage', { key: PAID })).status).toBe(200);
      own.clock.advance(60_000);
      expect((await raw(own.baseUrl, 'GET', '/billing/usage')).status).toBe(200);
    } finally {
      await own.close();
    }
  });
});
