/**
 * `npm run contract`: checks ANY running implementation of a contract (the stubs, the Prism mock,
 * a backend team's own server) from the outside, in three kinds of check:
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
import { discoverServices } from '../../server-stubs/server.js';
import { answerableKeys, contractOf, declares, documentsOnlyFailures, isSecured, responseKeyFor, type OperationInfo } from '../../server-stubs/lib/contract.js';
import { contractChecker } from './contract-checker.js';
import { credentialHeadersOf, defaultCredentialHeaders, placeholderCredentials, placeholderFor, seededCredentials, seededOrPlaceholder } from './credentials.js';
import { exampleRequest } from './example-request.js';
import { deref, listOperations, mountPathOf } from '../../server-stubs/lib/openapi/document.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { schemaView, type SchemaView } from '../../server-stubs/lib/compilable-document.js';
import { runScenario, ScenarioSetupError, scenarioFor, stubClockAdvance } from './scenarios/index.js';
import { fuzzConfig, type FuzzConfig } from './fuzz/config.js';
import type { CredentialSource } from './fuzz/contract-model.js';
import { httpServiceTarget, type HttpServiceTarget } from './fuzz/http-target.js';
import type { Violation } from './fuzz/oracle.js';
import { formatCases, formatReport } from './fuzz/report.js';
import { runFuzz, type FuzzTarget, type Judged } from './fuzz/runner.js';
import { cleanupLines } from './fuzz/cleanup.js';
import { createSender, curlLine, describeObserved, type FuzzRequest, type Observed, type Sender } from './fuzz/wire.js';
import { isJsonType } from '../../server-stubs/lib/media-types.js';
import { junitXml } from './contract-junit.js';

export const DEFAULT_CONTRACT_RUNS = 300;

/** Where the bundles are unless told: the repository's generated/. */
const defaultBundlesDir = path.join(defaultRoot, 'generated');

/**
 * What the fuzzer's oracle may still demand of a stateless mock. Prism answers a declared example
 * to any request that passes its own request validation, and answers the rest itself (its
 * problem+json, 405 for HEAD, 406, a 500 for an odd content type, its own JSON parse error body):
 * those answers are the mock's, not the contract's. So:
 * - every answer: it arrives, with no HTML, stack trace or file path (`STATELESS_ALWAYS`);
 * - answers to the valid requests the generator built (cases `valid…`, about half): a declared
 *   status, no 5xx, a declared media type and a body valid against the contract (`STATELESS_VALID`);
 * The unknown-path 404 is left to the negative check (Prism resolves dot segments, `/./x`, as a
 * route, which a server may rightly do). Dropped: every check of what a server decides (bad input refused, credentials checked, unknown
 * query parameters ignored), the shape of error bodies, CORS, OPTIONS/405/HEAD handling, 501 bodies.
 */
export const STATELESS_ALWAYS: ReadonlySet<string> = new Set(['no answer', 'HTML body', 'stack trace or file path in body']);
export const STATELESS_VALID: ReadonlySet<string> = new Set([
  'server error (5xx)',
  'status not declared for the operation',
  'response media type not declared',
  'response body does not match the contract',
  'body on a response declared without content',
]);

/** Does a fuzz violation count against a stateless mock? */
export function holdsForStatelessMock(request: Pick<FuzzRequest, 'case' | 'expect'>, violation: Violation): boolean {
  // `expect: accept` is a request the generator checked valid (a body it could build in its media type included).
  return STATELESS_ALWAYS.has(violation.kind) || (request.case.startsWith('valid') && request.expect === 'accept' && STATELESS_VALID.has(violation.kind));
}

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

export type CheckKind = 'examples' | 'negative' | 'scenario' | 'fuzz';
/** The kinds of check in the order a run makes them, and its reports list them. */
export const CHECK_KINDS: readonly CheckKind[] = ['examples', 'negative', 'scenario', 'fuzz'];

export interface CheckResult {
  kind: CheckKind;
  /** the operation (`GET /projects`), the negative case, or the fuzz case kind */
  name: string;
  outcome: 'passed' | 'failed' | 'skipped';
  /** what was wrong (failed) or why skipped */
  message?: string;
  /** the request as a curl line and the answer */
  details?: string;
  ms: number;
  /** the operation called (examples, negative and scenario checks), and the status it answered */
  call?: { operationId: string; status: number };
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

/** The services with a bundle in `dir`, each with where it is served; a bundle that cannot be read has none. */
function bundledSlugs(dir: string): Array<{ slug: string; basePath?: string }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((slug) => existsSync(path.join(dir, slug, 'openapi.json')))
    .sort()
    .map((slug) => {
      try {
        return { slug, basePath: mountPathOf(slug, readBundle(dir, slug)) };
      } catch {
        return { slug };
      }
    });
}

const readBundle = (dir: string, slug: string): OpenAPI3 => JSON.parse(readFileSync(path.join(dir, slug, 'openapi.json'), 'utf8'));

/** The service a base URL addresses: the contract whose base path the URL's path ends with (longest first). */
export function serviceOfBaseUrl(baseUrl: string, bundlesDir = defaultBundlesDir): string | undefined {
  const wanted = new URL(baseUrl).pathname.replace(/\/+$/, '') || '/';
  const candidates = bundledSlugs(bundlesDir)
    .filter((s): s is { slug: string; basePath: string } => s.basePath !== undefined && s.basePath !== '/' && (wanted === s.basePath || wanted.endsWith(s.basePath)))
    .sort((a, b) => b.basePath.length - a.basePath.length);
  return candidates[0]?.slug;
}

// ---------------------------------------------------------------------------------------- checking

const headerOf = (o: Observed, name: string) => {
  const v = o.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

/** Whether every security requirement of the operation includes a mutualTLS scheme. */
function onlyMutualTls(document: OpenAPI3, operation: OperationInfo): boolean {
  const requirements: Array<Record<string, unknown>> = operation.op.security ?? document.security ?? [];
  return requirements.every((r) => Object.keys(r).some((name) => deref(document, document.components?.securitySchemes?.[name])?.type === 'mutualTLS'));
}

/**
 * What is wrong with an answer to an operation: [] when it keeps the contract. `expect` narrows the
 * statuses allowed (401 for a call without credentials, a 4xx for a malformed body).
 */
function answerProblems(
  checker: ReturnType<typeof contractChecker>,
  document: OpenAPI3,
  operation: OperationInfo,
  o: Observed,
  expect?: { statuses: (status: number) => boolean; what: string; statusOnly?: boolean },
  /** where schemas that could not be compiled are named: the server is not to blame for them */
  unchecked?: Set<string>,
): string[] {
  if (o.error) return [`no answer: ${o.error}`];
  const problems: string[] = [];
  const declared = Object.keys(operation.op.responses ?? {});
  const key = responseKeyFor(operation, o.status);
  if (!key) problems.push(`status ${o.status} is not declared (declared: ${declared.join(', ')})`);
  if (expect && !expect.statuses(o.status)) problems.push(`expected ${expect.what}, got ${o.status}`);
  // A 5xx the check asked for (a scenario's documented refusal: an upstream down, 502), or the one
  // answer an operation documents, is an answer, not a crash.
  if (o.status >= 500 && o.status !== 501 && !expect?.statuses(o.status) && !(key && documentsOnlyFailures(operation))) problems.push(`server error ${o.status}`);
  if (!key || expect?.statusOnly) return problems;
  const content = deref(document, operation.op.responses?.[key])?.content ?? {};
  const type = (headerOf(o, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (Object.keys(content).length === 0) {
    if (o.body !== '') problems.push(`a body on ${o.status}, which is declared without content`);
    return problems;
  }
  if (o.body === '' && (o.status === 204 || o.status === 304)) return problems;
  const mediaType = Object.keys(content).find((t) => t.toLowerCase() === type);
  if (!mediaType) {
    problems.push(`media type ${type || '(none)'} is not declared for ${o.status} (declared: ${Object.keys(content).join(', ')})`);
    return problems;
  }
  const compiled = <T>(what: () => T): T | undefined => {
    try {
      return what();
    } catch (error) {
      unchecked?.add(`${operation.label} ${key} ${mediaType}: the schema cannot be compiled (${(error as Error).message.split('\n')[0]})`);
      return undefined;
    }
  };
  if (mediaType === 'text/event-stream') {
    // A stream cut short is checked as it is: the parser dispatches only the frames that arrived whole.
    const stream = compiled(() => checker.streamErrors(operation.path, operation.method, o.body, key));
    if (!stream) return problems;
    problems.push(...stream.errors.slice(0, 5).map((e) => `event stream ${e}`));
    if (stream.frames.length === 0 && o.body.trim() !== '' && !o.truncated) problems.push('event stream without a single frame');
  } else if (isJsonType(mediaType)) {
    if (o.truncated) return [...problems, 'body longer than 8 MB: not checked'];
    let body: unknown;
    try {
      body = JSON.parse(o.body);
    } catch (error) {
      return [...problems, `body is not JSON: ${(error as Error).message.slice(0, 80)}`];
    }
    const errors = compiled(() => checker.responseErrors(operation.path, operation.method, key, body, mediaType)) ?? [];
    problems.push(...errors.slice(0, 5).map((e) => `body ${e}`));
  }
  return problems;
}

/**
 * A refusal the contract does not declare, answered as DECISIONS I-2 says a contract-only service
 * answers it: the status asked for, in RFC 9457 problem+json.
 */
function problemFallback(operation: OperationInfo, o: Observed, status: (s: number) => boolean): boolean {
  const type = (headerOf(o, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  return !o.error && status(o.status) && !declares(operation, o.status) && type === 'application/problem+json';
}

/** An example request as the sender's plain data, so it is sent and replayed like a fuzz case. */
function asWireRequest(built: ReturnType<typeof exampleRequest>, kind: string): FuzzRequest {
  const headers = Object.fromEntries(Object.entries((built.init.headers ?? {}) as Record<string, string>));
  const body = typeof built.init.body === 'string' ? [built.init.body] : undefined;
  return { case: kind, method: String(built.init.method ?? 'GET'), path: built.url, query: [], headers, body, expect: 'any' };
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
  const slugs = bundledSlugs(bundlesDir).map((s) => s.slug);
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

export async function runContract(options: ContractOptions): Promise<ContractRun> {
  const usage = (message: string): ContractRun => ({ exitCode: 2, report: `${message}\n${USAGE}`, junit: '', results: [] });
  const settings = runSettings(options);
  if ('usage' in settings) return usage(settings.usage);
  const { base, bundlesDir, slug, given, runs, seed, env } = settings;

  // Read through its schema view: a valid document whose schemas Ajv cannot take as they are
  // (3.0 `nullable`, a pattern JavaScript cannot compile) is still checked, minus what is noted.
  let view: SchemaView;
  try {
    view = schemaView(readBundle(bundlesDir, slug));
  } catch (error) {
    return usage(`the bundle of ${slug} cannot be read: ${(error as Error).message}`);
  }
  const contract = contractOf(slug, view.document);
  const { document } = contract;
  const checker = contractChecker(contract);
  const operations = listOperations(document);
  const baseUrl = `${base.origin}${base.pathname.replace(/\/+$/, '')}`;

  // Credentials: the given headers, else the stub's seeds (so `npm start` needs no flags).
  const { services } = given.length ? { services: [] } : await discoverServices().catch(() => ({ services: [] }));
  const stub = services.find((s) => s.slug === slug);
  let credentialNote: string;
  let exampleCredentials: Parameters<typeof exampleRequest>[2];
  let fuzzSources: CredentialSource[];
  let extraHeaders: Record<string, string> = {};
  if (given.length) {
    credentialNote = `${given.length} given header(s): ${given.map(([n]) => n).join(', ')}`;
    extraHeaders = Object.fromEntries(given);
    exampleCredentials = () => ({});
    fuzzSources = [{ slug, credentials: given.map(([n, v], i) => ({ label: `header ${i + 1} (${n})`, value: `${n}: ${v}` })) }];
  } else if (stub && stub.credentials.length) {
    credentialNote = `the stub's seeded credentials (${stub.credentials.filter((c) => c.valid !== false).map((c) => c.label).join(', ')})`;
    // A stateless mock checks a credential's presence only: where the stub seeds no fixed one (a
    // signed webhook), a placeholder in the scheme's shape, as the mock accepts.
    exampleCredentials = options.stateless ? seededOrPlaceholder(seededCredentials(stub, document)) : seededCredentials(stub, document);
    fuzzSources = services;
  } else if (!stub && Object.keys(document.components?.securitySchemes ?? {}).length > 0) {
    // A service without a stub (an imported document) has no seeds: a placeholder in each declared
    // scheme, which a mock (presence only) accepts; a real server would want --header.
    const placeholders = placeholderCredentials(document);
    credentialNote = `placeholders in each declared scheme (${placeholders.map((c) => c.scheme).join(', ')}); give --header or CONTRACT_HEADERS for a real server`;
    exampleCredentials = placeholderFor;
    fuzzSources = [{ slug, credentials: placeholders }];
  } else {
    credentialNote = 'none (give --header or CONTRACT_HEADERS)';
    exampleCredentials = () => ({});
    fuzzSources = [];
  }
  // A contract without a stub is answered by the contract alone (DECISIONS I-2): where it declares
  // no status for a refusal, a 400 or 401 in RFC 9457 problem+json is the declared fallback.
  const fallbackRefusals = !stub && !given.length;

  const results: CheckResult[] = [];
  const unchecked = new Set<string>();
  let fuzzSummary: string | undefined;
  let fuzzReport: string | undefined;
  /** what the run left on the server: resources it could not remove, rate windows it spent */
  const leftBehind: string[] = [];
  const sender = createSender(baseUrl, { concurrency: 1, timeoutMs: 10_000, streamMs: options.streamMs ?? 1_500 });
  const fuzzSender = createSender(baseUrl, { concurrency: env.concurrency, timeoutMs: 10_000 });
  /** The fuzz target, made on first use; its cleanup also holds what the scenario and the examples created. */
  let fuzzTarget: HttpServiceTarget | undefined;
  const fuzzTargetOf = () => (fuzzTarget ??= httpServiceTarget(slug, fuzzSources, fuzzSender, { basePath: '', origin: baseUrl, contract }));
  /** Notes what a request of the run created, to remove it at the end (on a stateful target only). */
  const noteCreated = (method: string, path: string, observed: Observed, headers: Record<string, string>) => {
    if (options.stateless) return;
    const match = contract.match(method, path);
    if (match.kind === 'operation') fuzzTargetOf().cleanup.record(match.operation.path, method, observed, credentialHeadersOf(document, headers));
  };
  const lines: string[] = [
    `Contract check of ${slug} at ${baseUrl}${options.stateless ? ' (stateless mock)' : ''}`,
    `Credentials: ${credentialNote}`,
    ...(operations.length === 0 ? ['The document declares no operations (paths): only the unknown-path check applies.'] : []),
    ...view.notes.map((note) => `Not checked: ${note}`),
    '',
  ];

  try {
    /** Sends one request and records its check. */
    async function check(
      kind: CheckKind,
      name: string,
      r: FuzzRequest,
      judge: (o: Observed) => string[] | 'not implemented' | { skipped: string },
      operation?: OperationInfo,
    ): Promise<Observed> {
      const observed = await sender.send('', r);
      noteCreated(r.method, r.path, observed, r.headers);
      const verdict = judge(observed);
      const replay = `${curlLine('', r, baseUrl)}\n← ${describeObserved(observed)}`;
      const call = operation && !observed.error ? { call: { operationId: operation.id, status: observed.status } } : {};
      if (verdict === 'not implemented') results.push({ kind, name, outcome: 'skipped', message: 'not implemented (501)', details: replay, ms: observed.ms, ...call });
      else if ('skipped' in verdict) results.push({ kind, name, outcome: 'skipped', message: verdict.skipped, details: replay, ms: observed.ms, ...call });
      else if (verdict.length === 0) results.push({ kind, name, outcome: 'passed', ms: observed.ms, ...call });
      else results.push({ kind, name, outcome: 'failed', message: verdict.join('; '), details: `${verdict.map((v) => `- ${v}`).join('\n')}\n${replay}`, ms: observed.ms, ...call });
      return observed;
    }
    const withExtra = (r: FuzzRequest): FuzzRequest => ({ ...r, headers: { ...extraHeaders, ...r.headers } });
    const compiledOr = <T>(fallback: T, what: () => T): T => {
      try {
        return what();
      } catch {
        return fallback;
      }
    };

    // Reachable at all? One unknown-path request tells, before hundreds of "no answer"s.
    let unknown = '/__contract_check__/no-such-path';
    while (contract.match('GET', unknown).kind !== 'not_found') unknown += '/more';
    const probe = await sender.send('', withExtra({ case: 'probe', method: 'GET', path: unknown, query: [], headers: {}, expect: 'any' }));
    if (probe.error) {
      lines.push(`✗ ${baseUrl} cannot be reached: ${probe.error}`);
      results.push({ kind: 'examples', name: 'server reachable', outcome: 'failed', message: `no answer: ${probe.error}`, details: `curl -i '${baseUrl}${unknown}'`, ms: probe.ms });
      return finish();
    }

    // a. The behaviour scenario, on a stateful target, first: the examples below may use up what a
    // scenario needs once (a milestone claimed, a rate window), and any declared answer suits them.
    // The fuzz target (its request model, which also notes what the run creates) is built before
    // the scenario's first call: built lazily at the first creation, between two of the scenario's
    // calls, its seconds of synchronous work outlived the server's keep-alive, and the next call met
    // a closed socket ("fetch failed"): mail's scenario setup did, after its request bodies opened.
    if (!options.stateless && operations.length > 0) fuzzTargetOf();
    if (!options.stateless) await scenario();

    // b. The contract's own examples.
    for (const operation of operations) {
      if (answerableKeys(operation).length === 0) {
        const why = Object.keys(operation.op.responses ?? {}).length === 0 ? 'declares no responses' : 'declares only informational (1xx) answers, which HTTP cannot send as a response';
        results.push({ kind: 'examples', name: operation.label, outcome: 'skipped', message: `the operation ${why}: no answer can be held to it`, ms: 0 });
        continue;
      }
      const built = exampleRequest(document, operation, exampleCredentials);
      // A body sampled from the schema that the schema itself refuses (a format or a default the
      // sampler cannot honour) calls nothing: a refusal of it would be the runner's fault.
      const unfit = built.sampledBody && isJsonType(built.sampledBody.mediaType) ? compiledOr([] as string[], () => checker.requestErrors(operation.path, operation.method, built.sampledBody!.value, built.sampledBody!.mediaType)) : [];
      if (unfit.length > 0) {
        results.push({ kind: 'examples', name: operation.label, outcome: 'skipped', message: `no request example, and none could be built from the schemas (${unfit.slice(0, 2).join('; ')})`, ms: 0 });
        continue;
      }
      const r = withExtra(asWireRequest(built, 'example'));
      const anonymous = asWireRequest(exampleRequest(document, operation, () => ({})), 'example');
      // An operation that declares no success (only its 401, say) is not refusing the credentials sent.
      const succeeds = Object.keys(operation.op.responses ?? {}).some((key) => /^2/.test(key));
      const credentialed = succeeds && isSecured(document, operation) && (given.length > 0 || r.path !== anonymous.path || Object.keys(r.headers).length > Object.keys(anonymous.headers).length);
      await check('examples', operation.label, r, (o) => {
        if (o.status === 501) return 'not implemented';
        // A form or multipart body sampled from the schema may not be written as the server reads
        // it (one part for a one-item list, say): its refusal proves nothing either way.
        if (built.sampledBody && fallbackRefusals && problemFallback(operation, o, (s) => s === 400)) {
          return { skipped: `no request example, and the ${built.sampledBody.mediaType} body built from the schema was refused: ${o.body.slice(0, 200)}` };
        }
        const problems = answerProblems(checker, document, operation, o, undefined, unchecked);
        // A declared 401 keeps the contract, but every example refused means nothing was checked.
        if (credentialed && o.status === 401) problems.unshift('the credentials sent were refused (401): check --header / CONTRACT_HEADERS');
        return problems;
      }, operation);
    }

    // c. Negative cases.
    // An operation that declares no responses has no refusal to hold an answer to either.
    const answerable = operations.filter((operation) => answerableKeys(operation).length > 0);
    for (const operation of answerable) {
      // A mutual-TLS credential is the connection's, not the request's: there is nothing to leave out.
      if (!isSecured(document, operation) || onlyMutualTls(document, operation)) continue;
      const r = asWireRequest(exampleRequest(document, operation, () => ({})), 'no credentials');
      await check('negative', `${operation.label} without credentials`, r, (o) => {
        if (o.status === 501) return 'not implemented';
        if (fallbackRefusals && problemFallback(operation, o, (s) => s === 401)) return [];
        const problems = answerProblems(checker, document, operation, o, { statuses: (s) => s === 401, what: '401' }, unchecked);
        if (!declares(operation, 401) && !fallbackRefusals) problems.unshift('the contract does not declare 401 for this secured operation');
        return problems;
      }, operation);
    }
    for (const operation of answerable) {
      const media = Object.keys(deref(document, operation.op.requestBody)?.content ?? {});
      if (!media.some(isJsonType)) continue;
      const r = withExtra(asWireRequest(exampleRequest(document, operation, exampleCredentials), 'malformed JSON'));
      r.headers = { ...r.headers, 'content-type': 'application/json' };
      r.body = ['{"truncated":'];
      await check('negative', `${operation.label} with malformed JSON`, r, (o) =>
        o.status === 501
          ? 'not implemented'
          : fallbackRefusals && problemFallback(operation, o, (s) => s === 400)
            ? []
            : answerProblems(checker, document, operation, o, { statuses: (s) => s >= 400 && s < 500, what: 'a declared 4xx', statusOnly: options.stateless }, unchecked),
        operation,
      );
    }
    await check('negative', 'unknown path answers 404', withExtra({ case: 'unknown path', method: 'GET', path: unknown, query: [], headers: {}, expect: 'any' }), (o) =>
      o.error ? [`no answer: ${o.error}`] : o.status === 404 ? [] : [`expected 404, got ${o.status}`],
    );

    // d. The fuzzer.
    // Nothing to generate requests for without an operation (its unknown path was checked above).
    if (runs > 0 && operations.length > 0) await fuzz();
    // A stateful server may be a teammate's: what the run created goes, and what stays is said.
    if (fuzzTarget && !options.stateless) {
      const advance = stubClockAdvance(new URL(baseUrl).origin);
      const waitOut = async (seconds: number) => {
        if (!(await advance(seconds))) await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      };
      leftBehind.splice(0, 0, ...cleanupLines(await fuzzTarget.cleanup.removeAll((r) => fuzzSender.send('', r), waitOut)));
    }
    return finish();

    /** The scenario's transport: `fetch`, noting what each POST created. */
    async function notingFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
      const request = new Request(input, init);
      const response = await fetch(request);
      if (request.method === 'POST' && response.ok) {
        // Only a JSON body is read for the new id (a stream's clone would wait for the stream's end).
        const body = isJsonType(response.headers.get('content-type') ?? '') ? await response.clone().text() : '';
        const path = new URL(request.url).pathname.slice(new URL(baseUrl).pathname.replace(/\/$/, '').length) || '/';
        noteCreated('POST', path, { status: response.status, headers: Object.fromEntries(response.headers), body, ms: 0 }, Object.fromEntries(request.headers));
      }
      return response;
    }

    async function scenario() {
      const definition = await scenarioFor(slug);
      if (!definition) return;
      const started = Date.now();
      const headers = given.length ? Object.fromEntries(given) : defaultCredentialHeaders(stub, document);
      let outcomes;
      try {
        outcomes = await runScenario(definition, { baseUrl, headers, advance: stubClockAdvance(base.origin), fetch: notingFetch });
      } catch (error) {
        if (!(error instanceof ScenarioSetupError) && !(error instanceof TypeError)) throw error;
        results.push({ kind: 'scenario', name: 'setup', outcome: 'failed', message: error.message, ms: Date.now() - started });
        return;
      }
      const each = (Date.now() - started) / Math.max(1, outcomes.length);
      for (const outcome of outcomes) {
        const operation = operations.find((o) => o.id === outcome.id)!;
        const observed: Observed = {
          status: outcome.status,
          headers: { 'content-type': outcome.stream !== undefined ? 'text/event-stream' : 'application/json' },
          body: outcome.stream ?? (outcome.body === undefined ? '' : JSON.stringify(outcome.body)),
          ms: each,
        };
        // A call that keeps no JSON body (a page, an image, a redirect) is held to its status; its expectation checked the rest.
        const statusOnly = outcome.stream === undefined && outcome.body === undefined;
        if (outcome.status === 501) {
          results.push({ kind: 'scenario', name: operation.label, outcome: 'skipped', message: 'not implemented (501)', ms: each, call: { operationId: operation.id, status: 501 } });
          continue;
        }
        const problems = [
          ...answerProblems(checker, document, operation, observed, outcome.refusal === undefined ? { statuses: (s) => s >= 200 && s < 400, what: 'its success', statusOnly } : { statuses: (s) => s === outcome.refusal, what: `its refusal ${outcome.refusal}`, statusOnly }),
          ...outcome.problems,
        ];
        const answer = `← ${outcome.status} ${observed.body.slice(0, 300)}`;
        const name = outcome.refusal === undefined ? operation.label : `${operation.label} refused with ${outcome.refusal}`;
        const call = { operationId: operation.id, status: outcome.status };
        results.push(problems.length
          ? { kind: 'scenario', name, outcome: 'failed', message: problems.join('; '), details: `${problems.map((p) => `- ${p}`).join('\n')}\n${answer}`, ms: each, call }
          : { kind: 'scenario', name, outcome: 'passed', ms: each, call });
      }
    }

    async function fuzz() {
      {
        const base = fuzzTargetOf();
        const byCase = new Map<string, { count: number; failed: number; kinds: Map<string, number>; first?: Judged }>();
        let executed = 0;
        const target: FuzzTarget<FuzzRequest> = {
          ...base,
          async execute(value) {
            const explore = executed++ < runs;
            const judged = await base.execute(value);
            const violations = options.stateless ? judged.violations.filter((v) => holdsForStatelessMock(value, v)) : judged.violations;
            if (explore) {
              const entry = byCase.get(value.case) ?? { count: 0, failed: 0, kinds: new Map<string, number>() };
              entry.count++;
              if (violations.length) {
                entry.failed++;
                for (const v of violations) entry.kinds.set(v.kind, (entry.kinds.get(v.kind) ?? 0) + 1);
                entry.first ??= { ...judged, violations };
              }
              byCase.set(value.case, entry);
            }
            return { ...judged, violations };
          },
        };
        const result = await runFuzz(target, { ...env, seed, numRuns: runs, shrinkBudgetMs: options.shrinkMs ?? env.shrinkBudgetMs });
        const perCase = result.ms / Math.max(1, result.runs);
        for (const [name, entry] of [...byCase].sort((a, b) => a[0].localeCompare(b[0]))) {
          if (!entry.failed) {
            results.push({ kind: 'fuzz', name, outcome: 'passed', ms: perCase * entry.count });
            continue;
          }
          const kinds = [...entry.kinds].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} (${n})`);
          const first = entry.first!;
          results.push({
            kind: 'fuzz',
            name,
            outcome: 'failed',
            message: `${entry.failed} of ${entry.count} requests: ${kinds.join(', ')}`,
            details: `${first.violations.map((v) => `- ${v.kind}: ${v.detail}`).join('\n')}\n→ ${first.request}\n← ${first.response}`,
            ms: perCase * entry.count,
          });
        }
        fuzzSummary = `fuzz: ${result.runs} requests in ${(result.ms / 1000).toFixed(1)} s (seed ${result.seed}${options.stateless ? ', stateless checks only' : ''}); cases: ${formatCases(result)}`;
        if (base.rateLimited() > 0) leftBehind.push(`rate limits: ${base.rateLimited()} answers were 429; clients of the same credentials wait out the window (Retry-After) too`);
        if (result.kinds.length) {
          const replay = `npm run contract -- --base-url ${baseUrl} --service ${slug}${options.stateless ? ' --stateless' : ''} --seed ${seed} --runs ${runs}`;
          fuzzReport = formatReport(`fuzz ${slug}`, result, replay);
        }
      }
    }
  } finally {
    sender.close();
    fuzzSender.close();
  }

  function finish(): ContractRun {
    for (const kind of CHECK_KINDS) {
      const rs = results.filter((r) => r.kind === kind);
      const n = (o: CheckResult['outcome']) => rs.filter((r) => r.outcome === o).length;
      // Each skipped check says why below (not implemented, nothing to hold the answer to).
      lines.push(`${kind}: ${n('passed')} passed, ${n('failed')} failed${n('skipped') ? `, ${n('skipped')} skipped` : ''}`);
      if (kind === 'fuzz') {
        if (fuzzSummary) lines.push(`  ${fuzzSummary}`);
        else if (runs === 0) lines.push('  (skipped: --runs 0)');
        else if (operations.length === 0) lines.push('  (skipped: no operations to send requests to)');
      }
      for (const r of rs) {
        if (r.outcome === 'passed') continue;
        lines.push(`  ${r.outcome === 'failed' ? '✗' : '–'} ${r.name}: ${r.message ?? ''}`);
        if (r.outcome === 'failed' && r.details) lines.push(`      ${r.details.replace(/\n/g, '\n      ')}`);
      }
      if (kind === 'fuzz' && fuzzReport) lines.push('', `  ${fuzzReport.trimEnd().replace(/\n/g, '\n  ')}`);
      lines.push('');
    }
    for (const note of unchecked) lines.push(`Not checked: ${note}`);
    if (unchecked.size) lines.push('');
    if (leftBehind.length) lines.push(...leftBehind, '');
    const failed = results.filter((r) => r.outcome === 'failed').length;
    lines.push(failed ? `FAILED: ${failed} check(s) broke the contract of ${slug}.` : `PASSED: ${slug} at ${baseUrl} keeps its contract.`);
    return { exitCode: failed ? 1 : 0, report: lines.join('\n'), junit: junitXml(slug, results), service: slug, results };
  }
}
