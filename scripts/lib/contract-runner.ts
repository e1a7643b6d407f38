/**
 * `npm run contract`: checks ANY running implementation of a contract (the stubs, the Prism mock,
 * a backend team's own server) from the outside, in four kinds of check, each its own module under
 * contract-checks/:
 *
 * - `examples`: every operation called with the contract's own examples (as the conformance test
 *   does); the answer must have a declared status, not be a server error, and carry a body valid
 *   against the contract (JSON; event streams frame by frame, read for a short while, then cut).
 *   501 is "not implemented": reported, not a failure.
 * - `negative`: each secured operation without credentials answers a declared 401; each operation
 *   taking JSON answers a malformed JSON body with a declared 4xx; an unknown path answers 404.
 *   Against a stateless mock the malformed-JSON answer is held to its status only (Prism answers
 *   its own error body there, not the service's).
 * - `scenario`: on a stateful target (not `--stateless`), and before the others, the service's
 *   behaviour scenario (scripts/lib/scenarios/): what each operation needs is created through the API, then every
 *   operation is called on a path that succeeds; its answer must be the declared success with a
 *   valid body that says what it should (the list holds what was created, and so on). The clock is
 *   moved with the development controls when the target has them, else the scenario waits.
 * - `fuzz`: the fuzzer (scripts/lib/fuzz/), a fixed seed, `runs` requests. Against a stateless
 *   mock only the checks that hold for one are kept (`holdsForStatelessMock`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { OpenAPI3 } from 'openapi-typescript';
import { mountPathOf } from '../../server-stubs/lib/openapi/document.js';
import type { Contract } from '../../server-stubs/lib/contract.js';
import { bundleContract, type BundleContract } from '../../server-stubs/lib/bundle-contract.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import type { SchemaView } from '../../server-stubs/lib/compilable-document.js';
import { fuzzConfig, type FuzzConfig } from './fuzz/config.js';
import { junitXml } from './contract-junit.js';
import type { CheckResult } from './contract-checks/check-result.js';
import { credentialPlan } from './contract-checks/credential-plan.js';
import { exampleChecks } from './contract-checks/examples.js';
import { fuzzChecks, type FuzzFindings } from './contract-checks/fuzz.js';
import { negativeChecks } from './contract-checks/negative.js';
import { unreachable } from './contract-checks/reachability.js';
import { openRun, type ContractRunContext } from './contract-checks/run-context.js';
import { scenarioChecks } from './contract-checks/scenario.js';
import { textReport } from './contract-checks/text-report.js';

export { CHECK_KINDS, type CheckKind, type CheckResult } from './contract-checks/check-result.js';
export { holdsForStatelessMock, STATELESS_ALWAYS, STATELESS_VALID } from './contract-checks/fuzz.js';

export const DEFAULT_CONTRACT_RUNS = 300;

/** Where the bundles are unless told: the repository's generated/. */
const defaultBundlesDir = path.join(defaultRoot, 'generated');

export class UsageError extends Error {}

export interface ContractOptions {
  /** where the service is served, its base path included: http://localhost:4000/seo */
  baseUrl: string;
  /** the service's slug; found from the base URL's path when absent */
  service?: string | undefined;
  /** `Name: value` lines sent as credentials (and with every example); seeded stub credentials when none */
  headers?: string[] | undefined;
  /** the target is a stateless mock: only the fuzz checks that hold for one */
  stateless?: boolean | undefined;
  seed?: number | undefined;
  /** fuzz requests (default 300; 0 skips the fuzzer) */
  runs?: number | undefined;
  /** time allowed to shrink fuzz failures (default FUZZ_SHRINK_MS or 8 s) */
  shrinkMs?: number | undefined;
  /** how long an event stream is read before it is cut (default 1500 ms) */
  streamMs?: number | undefined;
  /** the folder of `<slug>/openapi.json` bundles the contract is read from (default: generated/) */
  bundlesDir?: string | undefined;
}

export interface ContractRun {
  exitCode: number;
  /** the text report */
  report: string;
  /** JUnit XML of the results (written to `--junit FILE` by the CLI) */
  junit: string;
  service?: string;
  results: CheckResult[];
}

// ---------------------------------------------------------------------------------------- arguments

export const USAGE = `usage: npm run contract -- --base-url URL [--service slug] [--junit FILE] [--stateless] [--header 'Name: value']... [--seed N] [--runs N] [--bundles DIR]
  --base-url   where the service is served, base path included (http://localhost:4000/seo)
  --service    the service's slug, when the base URL's path does not name it
  --junit      also write JUnit XML to FILE
  --stateless  the target is a stateless mock (npm run mock): only the fuzz checks that hold for one
  --header     a header sent as the credential, repeatable (or CONTRACT_HEADERS, one per line);
               default: the stub's seeded credentials
  --seed       the fuzzer's seed (default fixed)
  --runs       fuzz requests (default ${DEFAULT_CONTRACT_RUNS}; 0 skips the fuzzer)
  --bundles    the folder of <slug>/openapi.json bundles to read the contract from (default generated/)`;

/** `Name: value` into a pair; a usage error otherwise. */
export function parseHeaderLine(line: string): [string, string] {
  const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/.exec(line);
  if (!m) throw new UsageError(`not a header line "Name: value": ${JSON.stringify(line)}`);
  return [m[1]!, m[2]!];
}

/** The services with a bundle in `dir`. */
function bundledSlugs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((slug) => existsSync(path.join(dir, slug, 'openapi.json')))
    .sort();
}

/** Where each service with a bundle in `dir` is served; a bundle that cannot be read has no base path. */
function bundledBasePaths(dir: string): Array<{ slug: string; basePath?: string }> {
  return bundledSlugs(dir).map((slug) => {
    try {
      return { slug, basePath: mountPathOf(slug, readBundle(dir, slug)) };
    } catch {
      return { slug };
    }
  });
}

const readBundle = (dir: string, slug: string): OpenAPI3 => JSON.parse(readFileSync(path.join(dir, slug, 'openapi.json'), 'utf8'));

/** The last bundles read, held so that a run after another on the same text takes the contract the first one made. */
const lastRead: BundleContract[] = [];
const KEPT_CONTRACTS = 16;

/**
 * The bundle of `slug`, read anew on every run, through its schema view, and its contract. A run
 * after another on the same text (the stubs, then the mock, in one process), or against the mock
 * serving that text in this process, takes the contract already made, whose response validators
 * are already compiled: the same schemas give the same verdicts.
 */
function readBundleContract(dir: string, slug: string): { view: SchemaView; contract: Contract } {
  const read = bundleContract(path.join(dir, slug, 'openapi.json'), slug);
  const at = lastRead.indexOf(read);
  if (at !== -1) lastRead.splice(at, 1);
  lastRead.push(read);
  if (lastRead.length > KEPT_CONTRACTS) lastRead.shift();
  return read;
}

/** The service a base URL addresses: the contract whose base path the URL's path ends with (longest first). */
export function serviceOfBaseUrl(baseUrl: string, bundlesDir = defaultBundlesDir): string | undefined {
  const wanted = new URL(baseUrl).pathname.replace(/\/+$/, '') || '/';
  const candidates = bundledBasePaths(bundlesDir)
    .filter((s): s is { slug: string; basePath: string } => s.basePath !== undefined && s.basePath !== '/' && (wanted === s.basePath || wanted.endsWith(s.basePath)))
    .sort((a, b) => b.basePath.length - a.basePath.length);
  return candidates[0]?.slug;
}

// ---------------------------------------------------------------------------------------- the run

/** The options of a run, checked as a command line's: a bad one is a usage error (exit 2) saying what is wrong. */
interface RunSettings {
  base: URL;
  bundlesDir: string;
  slug: string;
  given: Array<[string, string]>;
  runs: number;
  seed: number;
  env: FuzzConfig;
}

function runSettings(options: ContractOptions): RunSettings | { usage: string } {
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    return { usage: `--base-url is not a URL: ${JSON.stringify(options.baseUrl)}` };
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') return { usage: `--base-url must be http or https, not ${base.protocol}` };
  if (base.search || base.hash) return { usage: '--base-url takes no query or fragment' };
  const bundlesDir = options.bundlesDir ?? defaultBundlesDir;
  const slugs = bundledSlugs(bundlesDir);
  const slug = options.service ?? serviceOfBaseUrl(base.href, bundlesDir);
  if (!slug) return { usage: `no contract's base path matches ${base.pathname}; give --service <${slugs.join('|')}>` };
  if (!slugs.includes(slug)) return { usage: `unknown service ${JSON.stringify(slug)}; one of ${slugs.join(', ')}` };
  let given: Array<[string, string]>;
  try {
    given = (options.headers ?? []).map(parseHeaderLine);
  } catch (error) {
    return { usage: (error as Error).message };
  }
  const runs = options.runs ?? DEFAULT_CONTRACT_RUNS;
  if (!Number.isSafeInteger(runs) || runs < 0) return { usage: `--runs must be a whole number, got ${runs}` };
  const env = fuzzConfig();
  const seed = options.seed ?? env.seed;
  if (!Number.isSafeInteger(seed)) return { usage: `--seed must be an integer, got ${seed}` };
  return { base, bundlesDir, slug, given, runs, seed, env };
}

const usageRun = (message: string): ContractRun => ({ exitCode: 2, report: `${message}\n${USAGE}`, junit: '', results: [] });

/**
 * Checks the implementation at `options.baseUrl` against its contract: the scenario (on a stateful
 * target), the examples, the negative cases and the fuzzer, in that order, then removes what the
 * run created. A bad option is a usage error (exit 2); a broken check, exit 1.
 */
export async function runContract(options: ContractOptions): Promise<ContractRun> {
  const settings = runSettings(options);
  if ('usage' in settings) return usageRun(settings.usage);
  let bundle: { view: SchemaView; contract: Contract };
  try {
    bundle = readBundleContract(settings.bundlesDir, settings.slug);
  } catch (error) {
    return usageRun(`the bundle of ${settings.slug} cannot be read: ${(error as Error).message}`);
  }
  const { view, contract } = bundle;
  const stateless = options.stateless ?? false;
  const credentials = await credentialPlan(settings.slug, view.document, settings.given, stateless);
  const run = openRun({ slug: settings.slug, base: settings.base, contract, credentials, stateless, streamMs: options.streamMs ?? 1_500, fuzzConcurrency: settings.env.concurrency });
  try {
    return await checkAll(run, reportHeader(run, view), settings, options.shrinkMs);
  } finally {
    run.close();
  }
}

/** Every check, in order, their findings gathered into the run's reports. */
async function checkAll(run: ContractRunContext, header: string[], settings: RunSettings, shrinkMs: number | undefined): Promise<ContractRun> {
  const { runs, seed, env } = settings;
  const fuzzSkipped = runs === 0 ? '--runs 0' : run.operations.length === 0 ? 'no operations to send requests to' : undefined;
  const failure = await unreachable(run);
  if (failure) return contractRun(run, { header: [...header, failure.line], results: [failure.result], fuzzSkipped, leftBehind: [] });
  const results: CheckResult[] = [];
  // The behaviour scenario, on a stateful target, first: the examples may use up what a scenario
  // needs once (a milestone claimed, a rate window), and any declared answer suits them.
  if (!run.stateless) results.push(...(await scenarioChecks(run)));
  results.push(...(await exampleChecks(run)));
  results.push(...(await negativeChecks(run)));
  // Nothing to generate requests for without an operation (its unknown path was checked above).
  const fuzz: FuzzFindings | undefined = fuzzSkipped ? undefined : await fuzzChecks(run, { runs, seed, config: env, shrinkMs });
  results.push(...(fuzz?.results ?? []));
  const leftBehind = [...(await run.removeCreated()), ...(fuzz?.notes ?? [])];
  return contractRun(run, { header, results, fuzz, fuzzSkipped, leftBehind });
}

function reportHeader(run: ContractRunContext, view: SchemaView): string[] {
  return [
    `Contract check of ${run.slug} at ${run.baseUrl}${run.stateless ? ' (stateless mock)' : ''}`,
    `Credentials: ${run.credentials.note}`,
    ...(run.operations.length === 0 ? ['The document declares no operations (paths): only the unknown-path check applies.'] : []),
    ...view.notes.map((note) => `Not checked: ${note}`),
    '',
  ];
}

function contractRun(
  run: ContractRunContext,
  findings: { header: string[]; results: CheckResult[]; fuzz?: FuzzFindings | undefined; fuzzSkipped: string | undefined; leftBehind: string[] },
): ContractRun {
  const { slug, baseUrl, unchecked } = run;
  const report = textReport({ ...findings, slug, baseUrl, unchecked });
  const exitCode = findings.results.some((r) => r.outcome === 'failed') ? 1 : 0;
  return { exitCode, report, junit: junitXml(slug, findings.results), service: slug, results: findings.results };
}
