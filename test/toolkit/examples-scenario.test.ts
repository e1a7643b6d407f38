/**
 * A service without a scenario of its own gets the example scenario of its contract: every operation
 * called once with its example request, the seeded credentials where the service has some and a
 * placeholder in the declared scheme elsewhere. Checked on real stubs, so its outcomes are the
 * answers a server gave (a stateful stub answers an example id it never made with 404, which the
 * conformance test then refuses as no verified success).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { defaultCredentialHeaders, PLACEHOLDER_SECRET, placeholderFor, seededCredentials, seededOrPlaceholder } from '../../scripts/lib/credentials.js';
import { examplesScenario } from '../../scripts/lib/scenarios/examples.js';
import { runScenario, scenarioOrExamples, stubClockAdvance } from '../../scripts/lib/scenarios/index.js';
import { seoScenario } from '../../scripts/lib/scenarios/seo.js';
import { loadContract } from '../../server-stubs/lib/contract.js';
import seoService from '../../server-stubs/seo/app.js';
import { startPlatformServer, type PlatformServer } from '../../server-stubs/server.js';
import { asDocument } from '../helpers/fixture-document.js';

let stubs: PlatformServer;
beforeAll(async () => {
  // seo and the development controls (served beside any service) are the stubs these tests call.
  stubs = await startPlatformServer(0, '127.0.0.1', { services: [seoService] });
}, 60_000);
afterAll(() => stubs?.close());

/** The outcomes of the example scenario of `slug`'s contract, run as if the service had no scenario, on its stub. */
async function examplesOn(slug: string, credentialsOf = (seeded: ReturnType<typeof seededCredentials>) => seededOrPlaceholder(seeded)) {
  const { document, basePath } = loadContract(slug);
  const service = stubs.services.find((s) => s.slug === slug);
  const { regime, scenario } = await scenarioOrExamples('no-such-scenario', document, credentialsOf(seededCredentials(service, document)));
  const origin = `http://127.0.0.1:${stubs.port}`;
  const outcomes = await runScenario(scenario, { baseUrl: `${origin}${basePath}`, headers: {}, advance: stubClockAdvance(origin) });
  return { regime, statuses: Object.fromEntries(outcomes.map((o) => [o.id, o.status])), outcomes };
}

describe('the example scenario', () => {
  test('a service with a scenario of its own keeps it, on the strict regime', async () => {
    const { document } = loadContract('seo');
    expect(await scenarioOrExamples('seo', document, () => ({}))).toEqual({ regime: 'scenario', scenario: seoScenario });
  });

  test('without one, every operation is called once with its example request and the seeded credentials', async () => {
    const { regime, statuses, outcomes } = await examplesOn('seo');
    expect(regime).toBe('examples');
    expect(outcomes.map((o) => o.id)).toEqual(Object.keys(statuses));
    // Listing and creating need nothing made first; the example ids name projects this stub never made.
    expect(statuses).toMatchObject({ listProjects: 200, createProject: 201, getProject: 404, deleteProject: 404, getCrawlStatus: 404 });
    expect(Object.keys(statuses)).toHaveLength(16);
    const created = outcomes.find((o) => o.id === 'createProject')!.body as { project: { name: string } };
    expect(created.project.name).toBeTypeOf('string');
  });

  test('operations without security are called as they are', async () => {
    const { statuses } = await examplesOn('stub-controls');
    expect(statuses).toMatchObject({ getStubClock: 200, moveStubClock: 200, resetStubs: 200 });
  });

  test('where the service seeds no credential, a placeholder in the declared scheme is sent', async () => {
    // The seo stub checks its keys, so a placeholder gets its declared 401: the scheme's header was sent.
    const { statuses } = await examplesOn('seo', () => seededOrPlaceholder(() => ({})));
    expect(new Set(Object.values(statuses))).toEqual(new Set([401]));
  });

  test('what the document gives no example of is sampled from its schema; the context headers win', async () => {
    // A document as third parties write them: no examples at all, a date in the path, a required body.
    const document = asDocument({
      openapi: '3.1.0',
      info: { title: 'Bare', version: '1' },
      components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } }, schemas: { Size: { type: 'integer', minimum: 3, maximum: 9 } } },
      security: [{ key: [] }],
      paths: {
        '/days/{day}': { get: { operationId: 'getDay', parameters: [{ name: 'day', in: 'path', required: true, schema: { type: 'string', format: 'date' } }], responses: { 200: { description: 'ok' } } } },
        '/things': {
          post: {
            operationId: 'makeThing',
            parameters: [{ name: 'code', in: 'query', required: true, schema: { type: 'string', pattern: '^[A-Z]{3}$' } }],
            requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['name', 'size'], properties: { name: { type: 'string', minLength: 1 }, size: { $ref: '#/components/schemas/Size' } } } } } },
            responses: { 201: { description: 'made' } },
          },
        },
      },
    });
    const seen: Array<{ method: string; url: string; key: string | undefined; body: string }> = [];
    const server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push({ method: request.method!, url: request.url!, key: request.headers['x-api-key'] as string | undefined, body });
        response.writeHead(request.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bare`;
      const outcomes = await runScenario(examplesScenario(document, seededOrPlaceholder(() => ({}))), { baseUrl, headers: { 'X-Api-Key': 'given' }, advance: async () => false });
      expect(outcomes.map((o) => [o.id, o.status, o.body])).toEqual([['getDay', 200, { ok: true }], ['makeThing', 201, { ok: true }]]);
      const [day, thing] = seen;
      expect(day).toMatchObject({ method: 'GET', key: 'given' });
      expect(day!.url).toMatch(/^\/bare\/days\/\d{4}-\d{2}-\d{2}$/);
      expect(thing!.url).toMatch(/^\/bare\/things\?code=[A-Z]{3}$/);
      const made = JSON.parse(thing!.body) as { name: string; size: number };
      expect(made.name.length).toBeGreaterThan(0);
      expect(made.size).toBeGreaterThanOrEqual(3);
      expect(made.size).toBeLessThanOrEqual(9);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test('a placeholder has the shape of its scheme', () => {
    expect(placeholderFor({ type: 'http', scheme: 'bearer' }, 'b')).toEqual({ Authorization: `Bearer ${PLACEHOLDER_SECRET}` });
    expect(placeholderFor({ type: 'http', scheme: 'Basic' }, 'b').Authorization).toMatch(/^Basic [A-Za-z0-9+/]+=*$/);
    expect(placeholderFor({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }, 'k')).toEqual({ 'X-Api-Key': PLACEHOLDER_SECRET });
    expect(placeholderFor({ type: 'apiKey', in: 'cookie', name: 'session' }, 'c')).toEqual({ Cookie: `session=${PLACEHOLDER_SECRET}` });
    expect(placeholderFor({ type: 'mutualTLS' }, 'm')).toEqual({});
  });
});
