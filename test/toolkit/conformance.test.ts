/**
 * Stubs and mocks conform, checked by `npm run contract`'s own runner (runContract), not again here:
 * on `npm start`'s server it runs the service's scenario (scripts/lib/scenarios/), every operation
 * with the contract's examples, and its negative cases (no credentials, malformed JSON, an unknown
 * path); on `npm run mock`'s front the same, stateless, and there every example request must
 * succeed. No check may fail. What the runner does not do, this test adds on the stubs, through one
 * helper: a required query parameter left out, a path id off its format, each rate limit passed;
 * then every implemented operation must have a verified success body (an error answer is never a
 * pass), and a service with a scenario of its own must exercise every declared status but 500. The
 * matrix of operations and declared statuses exercised is printed per service, with the regime that
 * applied.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { listOperations } from '../../server-stubs/lib/openapi/document.js';
import { schemaAt } from '../../server-stubs/lib/openapi/json-schema.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { findApiServices } from '../../scripts/lib/project.js';
import { declaredStatuses, loadContract } from '../../server-stubs/lib/contract.js';
import { startPlatformServer, type PlatformServer } from '../../server-stubs/server.js';
import { startMockServer, type MockServer } from '../../mock/server.js';
import { contractChecker } from '../../scripts/lib/contract-checker.js';
import { seededCredentials, seededOrPlaceholder } from '../../scripts/lib/credentials.js';
import { conformanceMatrix } from '../helpers/conformance-matrix.js';
import { exampleRequest } from '../../scripts/lib/example-request.js';
import { exampleOrSampledRequest } from '../../scripts/lib/scenarios/examples.js';
import { scenarioOrExamples, type Regime, type ServiceScenario } from '../../scripts/lib/scenarios/index.js';
import { runContract, type ContractRun } from '../../scripts/lib/contract-runner.js';
import { asWireRequest } from '../../scripts/lib/contract-checks/checked-request.js';
import { createSender, type Sender } from '../../scripts/lib/fuzz/wire.js';

const slugs = findApiServices(defaultRoot).map((s) => s.slug);

let stubs: PlatformServer;
let mock: MockServer;
/**
 * The probes' client: keep-alive node:http, as the contract runner sends (thousands of calls fill
 * the rate windows, and fetch costs several times as much a call). An event stream is read to its
 * end, as a client that waits for it would.
 */
let sender: Sender;

beforeAll(async () => {
  [stubs, mock] = await Promise.all([startPlatformServer(0, '127.0.0.1'), startMockServer(0, '127.0.0.1')]);
  sender = createSender(stubs.port, { concurrency: 1, timeoutMs: 60_000, streamMs: 60_000 });
}, 120_000);

afterAll(async () => {
  sender?.close();
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

  /**
   * What this test's own calls found wrong with an answer: a status the operation does not declare, a
   * body off its schema. Gathered and asserted once (thousands of calls fill the rate windows), so a
   * failure lists every answer at fault.
   */
  const answerProblems: string[] = [];

  /** The unchanged request of each operation, built once: the rate windows take it thousands of times. */
  const unchanged = new Map<string, ReturnType<typeof exampleRequest>>();

  async function callAndCheck(
    operation: (typeof operations)[number][1],
    credentials: Parameters<typeof exampleRequest>[2],
    mutate?: (request: ReturnType<typeof exampleRequest>) => void,
  ) {
    // A document brought in may lack the examples the house rules demand: there its schemas fill in.
    const build = async () => ((await scenarioOf()).regime === 'scenario' ? exampleRequest(document, operation, credentials) : exampleOrSampledRequest(document, operation, credentials));
    let request = mutate ? undefined : unchanged.get(operation.id);
    if (!request) {
      request = await build();
      if (mutate) mutate(request);
      else unchanged.set(operation.id, request);
    }
    const observed = await sender.send(basePath, asWireRequest(request, 'probe'));
    const answer = `${operation.id}: ${request.init.method ?? 'GET'} ${request.url} answered ${observed.error ?? observed.status}`;
    if (observed.error) {
      answerProblems.push(`${answer}: no answer`);
      return { status: 0, body: '', headers: {} };
    }
    const status = String(observed.status);
    if (status === '501') return { status: 501, body: observed.body, headers: observed.headers };
    const documented = declaredStatuses(operation);
    if (!documented.includes(status) && !documented.includes('default')) answerProblems.push(`${answer}, which is not documented (${documented.join(', ')})`);
    const type = String(observed.headers['content-type'] ?? '');
    const text = observed.body;
    const bodyErrors = type.startsWith('text/event-stream')
      ? contract.streamErrors(operation.path, operation.method, text, observed.status).errors
      : type.includes('json') && text
        ? contract.responseErrors(operation.path, operation.method, status, JSON.parse(text))
        : [];
    answerProblems.push(...bodyErrors.map((error) => `${answer}, its body invalid: ${error}`));
    return { status: observed.status, body: text, headers: observed.headers };
  }

  /** The runner's failed checks, each with what it saw: none is expected. */
  const failures = (run: ContractRun) => run.results.filter((r) => r.outcome === 'failed').map((r) => `${r.kind} ${r.name}: ${r.message}\n${r.details ?? ''}`);

  test('stub: the contract runner\'s scenario, examples and negative cases pass; every implemented operation has a verified success body', async () => {
    const origin = `http://127.0.0.1:${stubs.port}`;
    const run = await runContract({ baseUrl: `${origin}${basePath}`, service: slug, runs: 0 });
    expect(failures(run), run.report).toEqual([]);
    for (const { call, outcome } of run.results) if (call && (outcome === 'passed' || call.status === 501)) matrix.record(call.operationId, call.status);

    const { regime, scenario } = await scenarioOf();
    const strict = regime === 'scenario';
    const withCredentials = await credentials();
    // A probe provokes a refusal the house rules make every service declare; a document brought in
    // declares what it declares, so there it runs only where the refusal is declared.
    const probes = (operation: (typeof operations)[number][1], status: string) => strict || declaredStatuses(operation).includes(status);
    // A required query parameter left out: the declared 400.
    for (const [, operation] of operations) {
      const required = operation.op.parameters.find((p: { in: string; required?: boolean }) => p.in === 'query' && p.required);
      if (!required || !probes(operation, '400')) continue;
      const { status } = await callAndCheck(operation, withCredentials, (request) => {
        const [path, query = ''] = request.url.split('?');
        const params = new URLSearchParams(query);
        params.delete(required.name);
        request.url = `${path}?${params}`;
      });
      matrix.record(operation.id, status);
    }
    // A path id off its schema's format or pattern: the declared 400.
    for (const [, operation] of operations) {
      const param = operation.op.parameters.find((p) => {
        const schema = schemaAt(document, p.schema) ?? {};
        return p.in === 'path' && (schema.format === 'uuid' || schema.pattern !== undefined || schema.type === 'integer');
      });
      if (!param || !probes(operation, '400')) continue;
      const { status } = await callAndCheck(operation, withCredentials, (request) => {
        Object.assign(request, exampleRequest(document, operation, withCredentials, { overrides: { [param.name]: 'not-a-valid-id' } }));
      });
      matrix.record(operation.id, status);
    }
    // Past each rate limit: the declared 429 (then the stub clock moves on, so the window clears).
    // An alias (`x-alias-of`) draws on its twin's window, so its twin's 429 is its own (the matrix
    // counts it so, and test/mail/api-aliases.test.ts fills the window through both paths): filling
    // it again through the alias would double the requests, not the evidence.
    // With a scenario of its own, each window must close on its filler with the 429; mail's with an
    // integer Retry-After within the window too (test/mail/identity-rate-limits.test.ts filled mail's
    // windows a second time for this). Not asked elsewhere: reach's searchLeads meets its credit
    // limit (25 free searches) before its rate window, and that 429 carries no Retry-After by the document.
    const retryAfterRequired = slug === 'mail';
    const ids = new Set(operations.map(([, o]) => o.id));
    const unreached: string[] = [];
    for (const [, operation] of operations) {
      const rule = operation.op['x-rate-limit'] as { requests: number; windowSeconds: number } | undefined;
      if (!rule || !probes(operation, '429') || ids.has(operation.op['x-alias-of'])) continue;
      let last = { status: 0, headers: {} as Record<string, string | string[] | undefined> };
      for (let i = 0; i <= rule.requests && last.status !== 429 && last.status !== 501; i += 1) {
        last = await callAndCheck(operation, withCredentials);
      }
      matrix.record(operation.id, last.status);
      const retryAfter = String(last.headers['retry-after'] ?? '');
      const retryAfterValid = /^[1-9][0-9]*$/.test(retryAfter) && Number(retryAfter) <= rule.windowSeconds;
      if (strict && (last.status !== 429 || (retryAfterRequired && !retryAfterValid))) {
        unreached.push(`${operation.id}: ${rule.requests + 1} requests answered ${last.status} last, Retry-After ${JSON.stringify(retryAfter)}`);
      }
      stubs.clock.advance(rule.windowSeconds * 1000);
    }
    expect(answerProblems, 'every probe answered a declared status with a body valid against the contract').toEqual([]);
    expect(unreached, 'past each rate limit: its 429 (with an integer Retry-After within the window, for mail)').toEqual([]);
    console.info(matrix.render(slug, regime, scenario.underSwitch));
    const advice = strict ? 'add them to the service scenario' : `their example requests got no success: give the service a scenario (scripts/lib/scenarios/${slug}.ts)`;
    expect(matrix.unverified(), `implemented operations without a verified success: ${advice}`).toEqual([]);
    if (strict) expect(matrix.unexercised(scenario.underSwitch), 'declared statuses never exercised: reach them in the service scenario (calls or refusals)').toEqual([]);
    // Generous: mail's runs each rate-limited operation past its window, thousands of requests, for
    // minutes on a busy machine. A test cut short would go on moving the one stub clock under the next.
  }, 900_000);

  test('mock: the contract runner\'s examples and negative cases pass, and every example request succeeds', async () => {
    const run = await runContract({ baseUrl: `http://127.0.0.1:${mock.port}${basePath}`, service: slug, stateless: true, runs: 0 });
    expect(failures(run), run.report).toEqual([]);
    const refused = run.results.filter((r) => r.kind === 'examples' && r.call && r.call.status >= 400).map((r) => `${r.name}: ${r.call!.status}`);
    expect(refused, 'the mock answers the success example of a valid request').toEqual([]);
  }, 180_000);
});
