/**
 * A behaviour scenario: per service, calls that reach every operation's success on a stateful
 * implementation (what each needs is created first, through the API), with what each success body
 * must say beyond its schema. One definition serves the stubs' own tests, the conformance matrix and
 * `npm run contract` against a backend team's server, so it depends on no test framework: a check
 * that fails throws (node:assert), and the caller turns that into a test failure or a report line.
 */
import { AssertionError } from 'node:assert';

export interface ScenarioContext {
  /** where the service is served, base path included */
  baseUrl: string;
  /** credential headers of one tenant, sent with every call */
  headers: Record<string, string>;
  /**
   * Moves the target's clock forward (the stubs' `POST /_stub/clock`) and answers true; false when the
   * target has no such control, and the scenario waits in real time instead.
   */
  advance(seconds: number): Promise<boolean>;
  /**
   * What every call of the scenario is sent with (default: the global `fetch`): `npm run contract`
   * passes one that notes what each POST created, to remove it at the end of its run.
   */
  fetch?: typeof fetch;
}

/** The scenario's transport: every call, through a client or by hand, goes through it. */
export const transportOf = (ctx: ScenarioContext): typeof fetch => ctx.fetch ?? fetch;

export interface ScenarioOutcome {
  /** the operationId called */
  id: string;
  status: number;
  /** the parsed JSON body */
  body?: unknown;
  /** the event-stream text, for streaming operations */
  stream?: string;
  /** what the answer got wrong beyond its schema; [] when it said what it should */
  problems: string[];
  /** the status a refusal call must answer (absent: a call that must succeed) */
  refusal?: number;
}

/** A step a scenario needs before its calls (a project to work on) went wrong: nothing after it can run. */
export class ScenarioSetupError extends Error {}

/** The statuses an expectation is held to: the successes, a redirect included (see runScenario). */
type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 205 | 206 | 207 | 208 | 226 | 300 | 301 | 302 | 303 | 304 | 307 | 308 | '2XX' | '3XX';
/** An expectation reads JSON answers only (a stream's frames are checked elsewhere): a JSON media type's body where there is one. */
type JsonBodyOf<Response> = Response extends { content: infer Content }
  ? [Extract<keyof Content, `${string}json${string}`>] extends [never]
    ? Content[keyof Content]
    : Content[Extract<keyof Content, `${string}json${string}`>]
  : undefined;

/** The body of an operation's success answers as the service's generated `operations` type it (`unknown` without them). */
export type SuccessBody<Operation> = Operation extends { responses: infer Responses } ? JsonBodyOf<Responses[Extract<keyof Responses, SuccessStatus>]> : unknown;

/** Checks on success bodies by operationId, each reading the body its operation answers. */
export type Expectations<F, Operations> = { [Id in keyof Operations]?: (body: SuccessBody<Operations[Id]>, fixture: F) => void };

/**
 * `Operations` is the service's generated `operations` (generated/<slug>/types.gen.ts), so each
 * expectation reads its answer's declared shape; a scenario without it reads `unknown` bodies.
 */
export interface ServiceScenario<F, Operations = Record<string, unknown>> {
  /** the data the calls work on, made through the API */
  setup(ctx: ScenarioContext): Promise<F>;
  /** one call per operation, on a path that succeeds */
  calls: Record<string, (fixture: F) => Promise<Omit<ScenarioOutcome, 'id' | 'problems'>>>;
  /** checks on a success body beyond the schema: throw (node:assert) when it is wrong */
  expectations: Expectations<F, Operations>;
  /**
   * Documented refusals a handler decides (a plan gate, a blocked target, a state conflict): each
   * call must answer its `status`. Together with the calls, every declared status but 500 is reached.
   */
  refusals?: Array<{ id: string; status: number; why: string; call: (fixture: F) => Promise<Omit<ScenarioOutcome, 'id' | 'problems'>> }>;
  /**
   * Declared statuses a server in its default configuration cannot answer: only under a test switch
   * (DECISIONS coder-8: store off, router off, a slow upstream). The service's own tests reach them
   * with that switch; the conformance matrix shows them as such instead of demanding them.
   */
  underSwitch?: Array<{ id: string; status: number; switch: string }>;
}

/**
 * A part of a service's scenario, kept beside the code it exercises (a service built by more than
 * one team): its own setup on the shared fixture, its calls, expectations and refusals.
 */
export interface ScenarioPart<F, Operations = Record<string, unknown>> extends Pick<ServiceScenario<F, Operations>, 'calls' | 'expectations' | 'refusals' | 'underSwitch'> {
  setup?(fixture: F): Promise<void>;
}

/** One scenario from parts: the fixture made once, each part's setup in order, their calls together. */
export function composeScenario<F, Operations>(fixtureOf: (ctx: ScenarioContext) => Promise<F>, parts: ReadonlyArray<ScenarioPart<F, Operations>>): ServiceScenario<F, Operations> {
  return {
    async setup(ctx) {
      const fixture = await fixtureOf(ctx);
      for (const part of parts) await part.setup?.(fixture);
      return fixture;
    },
    calls: Object.assign({}, ...parts.map((p) => p.calls)),
    expectations: Object.assign({}, ...parts.map((p) => p.expectations)),
    refusals: parts.flatMap((p) => p.refusals ?? []),
    underSwitch: parts.flatMap((p) => p.underSwitch ?? []),
  };
}

/** An openapi-fetch result as an outcome: its status, and the body whichever of data/error holds it. */
export function outcomeOf(result: { data?: unknown; error?: unknown; response: Response }): { status: number; body: unknown } {
  return { status: result.response.status, body: result.response.ok ? result.data : result.error };
}

/** The result's data, or a setup error naming the step and what came back. */
export function required<T>(step: string, result: { data?: T; error?: unknown; response: Response }, status: number): T {
  if (result.response.status !== status || result.data === undefined) {
    throw new ScenarioSetupError(`${step}: expected ${status}, got ${result.response.status} ${JSON.stringify(result.error ?? result.data ?? null).slice(0, 200)}`);
  }
  return result.data;
}

/**
 * Sends a setup call again after a 429, as a well-behaved client does: it waits the `Retry-After`
 * (on the target's clock when it can be moved, else in real time, at most a minute), up to 3 times.
 * A target that was checked moments ago may still hold the rate windows of that run.
 */
export async function patiently<R extends { response: Response }>(ctx: ScenarioContext, send: () => Promise<R>): Promise<R> {
  for (let attempt = 0; ; attempt++) {
    const result = await send();
    if (result.response.status !== 429 || attempt === 3) return result;
    await waitOut(ctx, result.response);
  }
}

/** Waits for the `Retry-After` of a 429: on the target's clock when it can be moved, else in real time (a minute at most). */
async function waitOut(ctx: ScenarioContext, refused: Response): Promise<void> {
  const seconds = Math.min(60, Math.max(1, Number(refused.headers.get('retry-after')) || 1));
  if (!(await ctx.advance(seconds))) await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}

/**
 * `fetch` that waits out a 429 as `patiently` does: a scenario's clients use it, so every call,
 * not only the setup, still gets its answer from a target whose rate windows an earlier run filled.
 * A refused request changed nothing, so sending it again is safe.
 */
export function patientFetch(ctx: ScenarioContext): typeof fetch {
  return async (input, init) => {
    const original = input instanceof Request ? input : undefined;
    for (let attempt = 0; ; attempt++) {
      const response = await transportOf(ctx)(original ? original.clone() : input, init);
      if (response.status !== 429 || attempt === 3) return response;
      await response.body?.cancel();
      await waitOut(ctx, response);
    }
  };
}

/**
 * The expectation of an operation, for a body read off the wire. It reads the body as its operation
 * declares it; whether the body has that shape is for the schema check every caller makes of each
 * answer (`npm run contract`, the service tests) to say.
 */
export function expectationFor<F, Operations>(expectations: Expectations<F, Operations>, id: string): ((body: unknown, fixture: F) => void) | undefined {
  const expectation: ((body: never, fixture: F) => void) | undefined = expectations[id as keyof Operations];
  return expectation && ((body, fixture) => expectation(body as never, fixture));
}

/** Runs a scenario's setup and every call in order; each success body is held to its expectation. */
export async function runScenario<F, Operations>(scenario: ServiceScenario<F, Operations>, ctx: ScenarioContext): Promise<ScenarioOutcome[]> {
  const fixture = await scenario.setup(ctx);
  const outcomes: ScenarioOutcome[] = [];
  for (const [id, call] of Object.entries(scenario.calls)) {
    const outcome = await call(fixture);
    const problems: string[] = [];
    const expectation = expectationFor(scenario.expectations, id);
    // A redirect is a success too: what it means is where it points, which the call keeps for its expectation.
    if (outcome.status >= 200 && outcome.status < 400 && expectation && outcome.stream === undefined) {
      try {
        expectation(outcome.body, fixture);
      } catch (error) {
        if (!(error instanceof AssertionError)) throw error;
        problems.push(`${id}: ${error.message.replace(/\s*\n\s*/g, ' ').slice(0, 400)}`);
      }
    }
    outcomes.push({ id, ...outcome, problems });
  }
  for (const refusal of scenario.refusals ?? []) {
    const outcome = await refusal.call(fixture);
    const problems = outcome.status === refusal.status ? [] : [`${refusal.id}: ${refusal.why}: expected ${refusal.status}, got ${outcome.status}`];
    outcomes.push({ id: refusal.id, ...outcome, problems, refusal: refusal.status });
  }
  return outcomes;
}
