/**
 * The behaviour scenario of each service that has one (see scenario.ts): the module of this folder
 * named after the service, whose default export it is. A new service brings its own file and is
 * found without a line here; `npm run new-service` writes one.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { OpenAPI3 } from 'openapi-typescript';
import type { SchemeCredentials } from '../credentials.js';
import { examplesScenario } from './examples.js';
import type { ServiceScenario } from './scenario.js';

const folder = path.dirname(fileURLToPath(import.meta.url));

/** Modules of this folder that are not a service's scenario, whatever a service happens to be called. */
const OWN_MODULES = new Set(['index', 'scenario', 'examples']);

function isScenario(value: unknown): value is ServiceScenario<unknown> {
  const candidate = value as Partial<ServiceScenario<unknown>> | undefined;
  return typeof candidate?.setup === 'function' && typeof candidate.calls === 'object' && typeof candidate.expectations === 'object';
}

/**
 * The service's scenario, or none. Each scenario's fixture type is its own: runScenario hands what
 * its setup made only to its own calls, so the answer can forget the type (TypeScript has no "some F").
 * Found by file name rather than a table so that a scaffolded service needs no edit here; the import
 * is lazy, so a toolkit holding only some services never loads the scenarios (and generated
 * clients) of the others.
 */
export async function scenarioFor(slug: string): Promise<ServiceScenario<unknown> | undefined> {
  if (OWN_MODULES.has(slug) || slug.includes('/') || slug.includes(path.sep)) return undefined;
  // .ts under tsx and vitest, .js in the compiled runtime (.cache/js).
  const file = ['.ts', '.js'].map((extension) => path.join(folder, `${slug}${extension}`)).find((candidate) => existsSync(candidate));
  if (!file) return undefined;
  const module = (await import(pathToFileURL(file).href)) as { default?: unknown };
  // A module named after a service is its scenario: one without it is a mistake, not "no scenario".
  if (!isScenario(module.default)) throw new Error(`scripts/lib/scenarios/${path.basename(file)} is named after the ${slug} service but its default export is not a scenario`);
  return module.default;
}

/**
 * What a service is held to: with a scenario of its own (the platform's services), a verified
 * success of every operation and every declared status exercised; without one (a document brought in
 * and served from its contract alone), the success each operation's example request answers.
 */
export type Regime = 'scenario' | 'examples';

/** The service's own scenario, else the example scenario of its contract (`credentials` for each scheme), and the regime that goes with it. */
export async function scenarioOrExamples(slug: string, document: OpenAPI3, credentials: SchemeCredentials): Promise<{ regime: Regime; scenario: ServiceScenario<unknown> }> {
  const own = await scenarioFor(slug);
  // The example scenario's fixture is the context its setup hands on: the same forgetting as above.
  return own ? { regime: 'scenario', scenario: own } : { regime: 'examples', scenario: examplesScenario(document, credentials) as ServiceScenario<unknown> };
}

/** `advance` for a server with the development controls at `origin`: true when it moved the clock. */
export function stubClockAdvance(origin: string): (seconds: number) => Promise<boolean> {
  return async (seconds) => {
    const response = await fetch(`${origin}/_stub/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceSeconds: seconds }) }).catch(() => undefined);
    await response?.body?.cancel();
    return response?.status === 200;
  };
}

export { runScenario, ScenarioSetupError, type ScenarioContext, type ScenarioOutcome, type ServiceScenario } from './scenario.js';
