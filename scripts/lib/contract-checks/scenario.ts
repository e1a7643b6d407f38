/**
 * The `scenario` check, on a stateful target: the service's behaviour scenario (scripts/lib/scenarios/)
 * creates what each operation needs through the API, then calls every operation on a path that
 * succeeds; its answer must be the declared success (or the refusal the scenario asked for) with a
 * valid body, beside what the scenario itself found wrong.
 */
import { defaultCredentialHeaders } from '../credentials.js';
import { isJsonType } from '../../../server-stubs/lib/media-types.js';
import type { Observed } from '../fuzz/wire.js';
import { runScenario, ScenarioSetupError, scenarioFor, stubClockAdvance, type ScenarioOutcome } from '../scenarios/index.js';
import { answerProblems } from './answer-problems.js';
import type { CheckResult } from './check-result.js';
import type { ContractRunContext } from './run-context.js';

export async function scenarioChecks(run: ContractRunContext): Promise<CheckResult[]> {
  // The fuzz target (its request model, which also notes what the run creates) is built before
  // the scenario's first call: built lazily at the first creation, between two of the scenario's
  // calls, its seconds of synchronous work outlived the server's keep-alive, and the next call met
  // a closed socket ("fetch failed"): mail's scenario setup did, after its request bodies opened.
  if (run.operations.length > 0) run.fuzzTarget();
  const definition = await scenarioFor(run.slug);
  if (!definition) return [];
  const started = Date.now();
  const { given, stub } = run.credentials;
  const headers = given.length ? Object.fromEntries(given) : defaultCredentialHeaders(stub, run.document);
  let outcomes: ScenarioOutcome[];
  try {
    outcomes = await runScenario(definition, { baseUrl: run.baseUrl, headers, advance: stubClockAdvance(new URL(run.baseUrl).origin), fetch: notingFetch(run) });
  } catch (error) {
    if (!(error instanceof ScenarioSetupError) && !(error instanceof TypeError)) throw error;
    return [{ kind: 'scenario', name: 'setup', outcome: 'failed', message: error.message, ms: Date.now() - started }];
  }
  const each = (Date.now() - started) / Math.max(1, outcomes.length);
  return outcomes.map((outcome) => scenarioResult(run, outcome, each));
}

/** One call of the scenario held to the contract. */
function scenarioResult(run: ContractRunContext, outcome: ScenarioOutcome, ms: number): CheckResult {
  const operation = run.operations.find((o) => o.id === outcome.id)!;
  const observed: Observed = {
    status: outcome.status,
    headers: { 'content-type': outcome.stream !== undefined ? 'text/event-stream' : 'application/json' },
    body: outcome.stream ?? (outcome.body === undefined ? '' : JSON.stringify(outcome.body)),
    ms,
  };
  if (outcome.status === 501) {
    return { kind: 'scenario', name: operation.label, outcome: 'skipped', message: 'not implemented (501)', ms, call: { operationId: operation.id, status: 501 } };
  }
  // A call that keeps no JSON body (a page, an image, a redirect) is held to its status; its expectation checked the rest.
  const statusOnly = outcome.stream === undefined && outcome.body === undefined;
  const expected = outcome.refusal === undefined
    ? { statuses: (s: number) => s >= 200 && s < 400, what: 'its success', statusOnly }
    : { statuses: (s: number) => s === outcome.refusal, what: `its refusal ${outcome.refusal}`, statusOnly };
  const problems = [...answerProblems(run, operation, observed, expected), ...outcome.problems];
  const answer = `← ${outcome.status} ${observed.body.slice(0, 300)}`;
  const name = outcome.refusal === undefined ? operation.label : `${operation.label} refused with ${outcome.refusal}`;
  const call = { operationId: operation.id, status: outcome.status };
  return problems.length
    ? { kind: 'scenario', name, outcome: 'failed', message: problems.join('; '), details: `${problems.map((p) => `- ${p}`).join('\n')}\n${answer}`, ms, call }
    : { kind: 'scenario', name, outcome: 'passed', ms, call };
}

/** The scenario's transport: `fetch`, noting what each POST created. */
function notingFetch(run: ContractRunContext): typeof fetch {
  const basePath = new URL(run.baseUrl).pathname.replace(/\/$/, '');
  return async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    if (request.method === 'POST' && response.ok) {
      // Only a JSON body is read for the new id (a stream's clone would wait for the stream's end).
      const body = isJsonType(response.headers.get('content-type') ?? '') ? await response.clone().text() : '';
      const path = new URL(request.url).pathname.slice(basePath.length) || '/';
      run.noteCreated('POST', path, { status: response.status, headers: Object.fromEntries(response.headers), body, ms: 0 }, Object.fromEntries(request.headers));
    }
    return response;
  };
}
