/**
 * Stubs and mocks conform: every operation of every service, called with the contract's own
 * examples on `npm start`'s server and on `npm run mock`'s front, answers a documented status with a
 * body valid against the contract (event streams frame by frame). On the stubs, a service's
 * scenario (scripts/lib/scenarios/) then calls each operation on a path that succeeds, and every
 * implemented operation must have a verified success body: an error answer is never a pass. A
 * service with a scenario of its own must also exercise every declared status but 500; one without
 * (a document served from its contract alone) gets the example scenario, each operation's example
 * request, and is held to those successes. The matrix of operations and declared statuses
 * exercised is printed per service, with the regime that applied.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { deref, listOperations, type JsonNode } from '../../server-stubs/lib/openapi/document.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { findApiServices } from '../../scripts/lib/project.js';
import { declaredStatuses, loadContract } from '../../server-stubs/lib/contract.js';
import { startPlatformServer, type PlatformServer } from '../../server-stubs/server.js';
import { startMockServer, type MockServer } from '../../mock/server.js';
import { contractChecker } from '../../scripts/lib/contract-checker.js';
import { defaultCredentialHeaders, seededCredentials, seededOrPlaceholder } from '../../scripts/lib/credentials.js';
import { conformanceMatrix } from '../helpers/conformance-matrix.js';
import { exampleRequest } from '../../scripts/lib/example-request.js';
import { exampleOrSampledRequest } from '../../scripts/lib/scenarios/examples.js';
import { runScenario, scenarioOrExamples, stubClockAdvance, type Regime, type ServiceScenario } from '../../scripts/lib/scenarios/index.js';

const slugs = findApiServices(defaultRoot).map((s) => s.slug);

let stubs: PlatformServer;
let mock: MockServer;

beforeAll(async () => {
  [stubs, mock] = await Promise.all([startPlatformServer(0, '127.0.0.1'), startMockServer(0, '127.0.0.1')]);
}, 120_000);

afterAll(async () => {
  await Promise.all([stubs?.close(), mock?.close()]);
});

describe.each(slugs)('%s', (slug) => {
  const { document, basePath } = loadContract(slug);
  const contract = contractChecker(slug);
  const operations = listOperations(document).map((o) => [o.label, o] as const);
  const matrix = conformanceMatrix(operations.map(([, o]) => o));
  const service = () => stubs.services.find((s) => s.slug === slug);
  // Loaded on first use, inside a test, so a scenario module that fails to load fails that test.
  let behaviour: Promise<{ regime: Regime; scenario: ServiceScenario<unknown> }> | undefined;
  const scenarioOf = () => (behaviour ??= scenarioOrExamples(slug, document, seededOrPlaceholder(seededCredentials(service(), document))));
  /** The seeded credentials; without a scenario of its own, a placeholder where the service seeds none (served from its contract alone). */
  const credentials = async () => ((await scenarioOf()).regime === 'scenario' ? seededCredentials(service(), document) : seededOrPlaceholder(seededCredentials(service(), document)));

  async function callAndCheck(
    origin: string,
    operation: (typeof operations)[number][1],
    credentials: Parameters<typeof exampleRequest>[2],
    mutate?: (request: ReturnType<typeof exampleRequest>) => void,
  ) {
    // A document brought in may lack the examples the house rules demand: there its schemas fill in.
    const request = (await scenarioOf()).regime === 'scenario' ? exampleRequest(document, operation, credentials) : exampleOrSampledRequest(document, operation, credentials);
    mutate?.(request);
    const response = await fetch(`${origin}${basePath}${request.url}`, { ...request.init, redirect: 'manual' });
    const status = String(response.status);
    if (status === '501') return { status: 501, body: await response.text() };
    const documented = declaredStatuses(operation);
    expect(documented.includes(status) || documented.includes('default'), `${status} is documented (${documented.join(', ')})`).toBe(true);
    const type = response.headers.get('content-type') ?? '';
    const text = await response.text();
    if (type.startsWith('text/event-stream')) {
      expect(contract.streamErrors(operation.path, operation.method, text, response.status).errors).toEqual([]);
    } else if (type.includes('json') && text) {
      expect(contract.responseErrors(operation.path, operation.method, status, JSON.parse(text))).toEqual([]);
    }
    return { status: response.status, body: text };
  }

  test.for(operations)('stub: %s conforms', async ([, operation], context) => {
    const { status, body } = await callAndCheck(`http://127.0.0.1:${stubs.port}`, operation, await credentials());
    matrix.record(operation.id, status);
    if (status === 501) {
      // A contract operation whose reference behaviour has not landed: it must say so in one of
      // the error bodies the operation documents, and counts as skipped.
      const errorStatuses = declaredStatuses(operation).filter((s) => /^[45]/.test(s));
      const fits = errorStatuses.filter((s) => contract.responseErrors(operation.path, operation.method, s, JSON.parse(body)).length === 0);
      expect(fits, `the 501 body ${body} has the shape of a documented error`).not.toEqual([]);
      expect(body).toMatch(/not implemented/);
      context.skip(`${operation.label}: not implemented by the stub yet`);
    }
  });

  test('stub: every implemented operation has a verified success body', async () => {
    const origin = `http://127.0.0.1:${stubs.port}`;
    const { regime, scenario } = await scenarioOf();
    const strict = regime === 'scenario';
    const withCredentials = await credentials();
    // A probe provokes a refusal the house rules make every service declare; a document brought in
    // declares what it declares, so there it runs only where the refusal is declared.
    const probes = (operation: (typeof operations)[number][1], status: string) => strict || declaredStatuses(operation).includes(status);
    // Without credentials, every secured operation must answer its declared 401 in the contract's body.
    for (const [, operation] of operations) {
      if (!declaredStatuses(operation).includes('401')) continue;
      const { status } = await callAndCheck(origin, operation, () => ({}));
      matrix.record(operation.id, status);
    }
    // A body that is not JSON, with credentials: the declared 400 (or the operation's 501).
    for (const [, operation] of operations) {
      const media = Object.keys(deref(document, operation.op.requestBody)?.content ?? {});
      if (!media.some((type) => type.includes('json')) || !probes(operation, '400')) continue;
      const { status } = await callAndCheck(origin, operation, withCredentials, (request) => {
        request.init = { ...request.init, body: '{"truncated":', headers: { ...(request.init.headers as Record<string, string>), 'content-type': 'application/json' } };
      });
      matrix.record(operation.id, status);
    }
    // A required query parameter left out: the declared 400.
    for (const [, operation] of operations) {
      const required = operation.op.parameters.find((p: { in: string; required?: boolean }) => p.in === 'query' && p.required);
      if (!required || !probes(operation, '400')) continue;
      const { status } = await callAndCheck(origin, operation, withCredentials, (request) => {
        const [path, query = ''] = request.url.split('?');
        const params = new URLSearchParams(query);
        params.delete(required.name);
        request.url = `${path}?${params}`;
      });
      matrix.record(operation.id, status);
    }
    // A path id off its schema's format or pattern: the declared 400.
    for (const [, operation] of operations) {
      const param = operation.op.parameters.find((p: { in: string; schema?: JsonNode }) => {
        const schema = deref(document, p.schema) ?? {};
        return p.in === 'path' && (schema.format === 'uuid' || schema.pattern !== undefined || schema.type === 'integer');
      });
      if (!param || !probes(operation, '400')) continue;
      const { status } = await callAndCheck(origin, operation, withCredentials, (request) => {
        Object.assign(request, exampleRequest(document, operation, withCredentials, { overrides: { [param.name]: 'not-a-valid-id' } }));
      });
      matrix.record(operation.id, status);
    }
    const headers = defaultCredentialHeaders(service(), document);
    const outcomes = await runScenario(scenario, { baseUrl: `${origin}${basePath}`, headers, advance: stubClockAdvance(origin) });
    for (const outcome of outcomes) {
      const operation = operations.find(([, o]) => o.id === outcome.id)![1];
      expect(outcome.problems).toEqual([]);
      if (outcome.refusal !== undefined) expect(outcome.status, `${outcome.id} refused`).toBe(outcome.refusal);
      expect(declaredStatuses(operation), `${outcome.id} answered ${outcome.status}`).toContain(String(outcome.status));
      if (outcome.stream !== undefined) expect(contract.streamErrors(operation.path, operation.method, outcome.stream, outcome.status).errors).toEqual([]);
      else if (outcome.body !== undefined) expect(contract.responseErrors(operation.path, operation.method, outcome.status, outcome.body)).toEqual([]);
      matrix.record(outcome.id, outcome.status);
    }
    // Past each rate limit: the declared 429 (then the stub clock moves on, so the window clears).
    // An alias (`x-alias-of`) draws on its twin's window, so its twin's 429 is its own (the matrix
    // counts it so, and test/mail/api-aliases.test.ts fills the window through both paths): filling
    // it again through the alias would double the requests, not the evidence.
    const ids = new Set(operations.map(([, o]) => o.id));
    for (const [, operation] of operations) {
      const rule = operation.op['x-rate-limit'] as { requests: number; windowSeconds: number } | undefined;
      if (!rule || !probes(operation, '429') || ids.has(operation.op['x-alias-of'])) continue;
      let status = 0;
      for (let i = 0; i <= rule.requests && status !== 429 && status !== 501; i += 1) {
        status = (await callAndCheck(origin, operation, withCredentials)).status;
      }
      matrix.record(operation.id, status);
      stubs.clock.advance(rule.windowSeconds * 1000);
    }
    console.info(matrix.render(slug, regime, scenario.underSwitch));
    const advice = strict ? 'add them to the service scenario' : `their example requests got no success: give the service a scenario (scripts/lib/scenarios/${slug}.ts)`;
    expect(matrix.unverified(), `implemented operations without a verified success: ${advice}`).toEqual([]);
    if (strict) expect(matrix.unexercised(scenario.underSwitch), 'declared statuses never exercised: reach them in the service scenario (calls or refusals)').toEqual([]);
  }, 180_000); // mail's matrix runs each rate-limited operation past its window: thousands of requests, 35 s on two busy cores

  test.each(operations)('mock: %s answers its example', async (_label, operation) => {
    // The mock refuses what the stubs refuse: the seeded credentials, and a placeholder only where a
    // scheme has no fixed valid seed (mail's signed webhook).
    const { status } = await callAndCheck(`http://127.0.0.1:${mock.port}`, operation, seededOrPlaceholder(seededCredentials(service(), document)));
    expect(status, 'the mock answers the success example of a valid request').toBeLessThan(400);
  });
});
