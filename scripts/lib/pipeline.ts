import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { OpenAPI3 } from 'openapi-typescript';
import { findApiServices, findSchemaSets, listFiles, type ApiService, type SchemaSet } from './project.js';
import { hashFiles, outputsIntact, readState, sha256, writeState, type BuildState, type UnitState } from './state.js';
import type { LintProblem } from '../steps/lint.js';

export interface BuildOptions {
  root: string;
  /** where generated files go; the check builds into a temporary folder and compares */
  outDir?: string;
  /** rebuild every unit, ignoring the state of the last build */
  force?: boolean;
  /** write the HTML docs (not part of the committed, drift-checked output) */
  docs?: boolean;
  /** register new services in redocly.yaml (off for the check, which must not change the tree) */
  register?: boolean;
  /** also transpile the runtime to .cache/js/, which `npm start` runs (`npm run build` does) */
  compile?: boolean;
  /**
   * Processes to share the stale units among (`npm run build`: one per core). Units are independent;
   * each process lints, bundles and generates its share, and this one merges the build state.
   */
  workers?: number;
  /**
   * Lint each service in a process of its own while this one bundles and generates its code (set by
   * the build itself when `workers` leaves a core idle: one stale service, or fewer than the cores).
   */
  lintApart?: boolean;
  /**
   * Lint problems already found on a service's current sources, by slug (`npm run add-service` lints
   * its staging copy before anything is written): that service is not linted again.
   */
  linted?: Record<string, LintProblem[]>;
  /** only these units (`api:<slug>`, `schemas:<slug>`); the others keep their state (a build worker's share) */
  only?: string[];
  /** list breaking changes against the merge base (default: as `register`) */
  compare?: boolean;
  log?: (line: string) => void;
  /**
   * Called as soon as a service's bundle is written, before its types, client and docs: what a
   * server needs is ready (`npm run dev` serves the new contract from here).
   */
  onBundled?: (slug: string) => void | Promise<void>;
}

export interface BuildResult {
  ok: boolean;
  lint: Array<LintProblem & { slug: string }>;
  failures: string[];
  rebuilt: string[];
  /** the build state of the units this build considered (a unit that failed only style or house rules has none) */
  state: BuildState;
}

/** Rules whose errors mean a document is not valid OpenAPI, as the Redocly plugin defines them. */
const validityRules = new Set<string>(createRequire(import.meta.url)('../redocly/platform.cjs').validityRules);

const stateFileOf = (root: string) => path.join(root, '.cache', 'build-state.json');

/** Step line: `lint     seo          12 ms  clean`. */
function stepLine(step: string, unit: string, ms: number, note = ''): string {
  return `${step.padEnd(9)}${unit.padEnd(20)}${`${Math.round(ms)} ms`.padStart(8)}  ${note}`.trimEnd();
}

async function timed<T>(fn: () => Promise<T> | T): Promise<[T, number]> {
  const start = performance.now();
  const value = await fn();
  return [value, performance.now() - start];
}

/** Files whose change must rebuild everything: the pipeline itself, its config and tool versions. */
function globalInputs(root: string): string[] {
  return [
    ...listFiles(path.join(root, 'scripts')),
    path.join(root, 'redocly.yaml'),
    path.join(root, 'package-lock.json'),
  ].filter((f) => existsSync(f));
}

export async function build(options: BuildOptions): Promise<BuildResult> {
  const { root, force = false, docs = true, register = true, compare = register } = options;
  const outDir = options.outDir ?? path.join(root, 'generated');
  const log = options.log ?? (() => {});
  const result: BuildResult = { ok: true, lint: [], failures: [], rebuilt: [], state: {} };
  const statePath = stateFileOf(root);
  const useState = outDir === path.join(root, 'generated');
  const previous: BuildState = useState && !force ? readState(statePath) : {};
  const next: BuildState = {};
  const global = globalInputs(root);
  const services = findApiServices(root);
  const sets = findSchemaSets(root);

  if (register) {
    const { registerApis } = await import('./redocly-config.js');
    const added = await registerApis(root, services);
    for (const slug of added) log(stepLine('register', slug, 0, `added to redocly.yaml apis`));
  }

  const write = (rel: string, contents: string, outputs: Record<string, string>) => {
    const file = path.join(outDir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    // An unchanged output is not rewritten: servers and watchers reading it never see it half-written.
    if (!existsSync(file) || readFileSync(file, 'utf8') !== contents) writeFileSync(file, contents);
    outputs[path.relative(root, path.join(root, 'generated', rel))] = sha256(contents);
  };

  // What each unit would be built from now: units whose hash and outputs match the last build are skipped.
  const units = [
    ...services.map((service) => {
      const key = `api:${service.slug}`;
      const knownInputs = previous[key]?.inputs.map((rel) => path.join(root, rel)) ?? listFiles(path.dirname(service.root));
      return { key, label: service.slug, service, knownInputs, hash: hashFiles(root, [...knownInputs, ...global]) };
    }),
    ...sets.map((set) => ({ key: `schemas:${set.slug}`, label: `${set.slug} schemas`, set, hash: hashFiles(root, [...set.files, ...global]) })),
  ].filter((unit) => !options.only || options.only.includes(unit.key));
  const isStale = (unit: (typeof units)[number]) => {
    const prior = previous[unit.key];
    return !(prior && prior.hash === unit.hash && outputsIntact(root, prior));
  };
  const stale = units.filter(isStale);
  const shares = options.workers && options.workers > 1 && !options.only ? shareUnits(stale, options.workers) : [stale.map((u) => u.key)];
  // Forking a linter pays for loading Redocly again, on both cores: worth it for a large contract,
  // whose lint is the longest step, not for one of the platform's own (bench/RESULTS.md).
  const spareCore = (options.workers ?? 1) > shares.length;
  const lintApart = (unit: (typeof units)[number]) => options.lintApart ?? (spareCore && unitWeight(unit) > LINT_APART_BYTES);
  const others = shares.slice(1).map((keys) => buildInWorker({ ...options, only: keys, workers: 1, compare, register: false, compile: false }, log));
  // Awaited after this process's share; until then a failed worker must not count as unhandled.
  for (const share of others) share.catch(() => {});

  for (const unit of units) {
    const prior = previous[unit.key];
    if (!shares[0]!.includes(unit.key)) {
      if (!isStale(unit)) {
        next[unit.key] = prior!;
        log(stepLine('skip', unit.label, 0, 'up to date'));
      }
      continue;
    }
    if ('service' in unit && unit.service) {
      const built = await buildApi(root, unit.service, { write, log, result, compareWithCommitted: compare, onBundled: options.onBundled, lintApart: !options.linted?.[unit.service.slug] && lintApart(unit), linted: options.linted?.[unit.service.slug], known: { inputs: unit.knownInputs, hash: unit.hash } });
      if (built) {
        // Built without a state when only style or house rules failed: written, linted again next build.
        if (built.state) next[unit.key] = built.state;
        result.rebuilt.push(unit.key);
      }
    } else if ('set' in unit && unit.set) {
      const state = await buildSchemaSet(root, unit.set, { write, log, result });
      if (state && compare) await logBreaking(root, unit.set.slug, { set: unit.set }, log);
      if (state) {
        next[unit.key] = { ...state, hash: unit.hash };
        result.rebuilt.push(unit.key);
      }
    }
  }
  for (const share of await Promise.all(others)) {
    Object.assign(next, share.state);
    result.lint.push(...share.lint);
    result.failures.push(...share.failures);
    result.rebuilt.push(...share.rebuilt);
  }
  result.state = next;

  if (options.only) {
    // A worker's share: the process that started it merges the state and finishes the build.
    result.ok = result.failures.length === 0;
    return result;
  }

  removeOrphans(outDir, services, sets, log);

  if (docs) {
    const { docsAssets, generateDocsIndex, generateDocsPage, generateServicesScript, portalEntry } = await import('../steps/docs.js');
    const docsDir = path.join(outDir, 'docs');
    mkdirSync(docsDir, { recursive: true });
    const writeChanged = (name: string, contents: string) => {
      const file = path.join(docsDir, name);
      if (!existsSync(file) || readFileSync(file, 'utf8') !== contents) writeFileSync(file, contents);
    };
    // A service's page is made from its bundle alone: a unit of its own, keyed by the bundle's
    // content (and the pipeline's), so a bundle that is already current (built earlier, or proven
    // current by `npm run check`) gets its page without its service being built again.
    const pipelineHash = hashFiles(root, global);
    const entries: Array<ReturnType<typeof portalEntry>> = [];
    for (const service of services) {
      const bundleFile = path.join(outDir, service.slug, 'openapi.json');
      if (!existsSync(bundleFile)) continue;
      const text = readFileSync(bundleFile, 'utf8');
      const document = JSON.parse(text) as OpenAPI3;
      entries.push(portalEntry(service.slug, document));
      const key = `docs:${service.slug}`;
      const hash = sha256(`${pipelineHash}\0${text}`);
      const prior = previous[key];
      if (prior && prior.hash === hash && outputsIntact(root, prior)) {
        next[key] = prior;
        continue;
      }
      const [page, docsMs] = await timed(() => generateDocsPage(service.slug, document));
      writeChanged(`${service.slug}.html`, page);
      log(stepLine('docs', service.slug, docsMs, `generated/docs/${service.slug}.html`));
      next[key] = { hash, inputs: [path.relative(root, path.join(root, 'generated', service.slug, 'openapi.json'))], outputs: { [path.relative(root, path.join(root, 'generated', 'docs', `${service.slug}.html`))]: sha256(page) } };
    }
    writeChanged('index.html', generateDocsIndex(entries));
    writeChanged('services.js', generateServicesScript(entries));
    // Checked every build: the console and its styles change with the pipeline, not with a service.
    for (const [name, contents] of Object.entries(docsAssets())) writeChanged(name, contents);
  } else {
    // Pages written by an earlier build are still judged by their own key when the next one writes docs.
    for (const [key, unit] of Object.entries(previous)) if (key.startsWith('docs:')) next[key] = unit;
  }

  result.ok = result.failures.length === 0;
  if (useState) writeState(statePath, { ...next });
  if (useState && options.compile) {
    const { compileRuntime } = await import('../steps/compile.js');
    const [compiled, compileMs] = await timed(() => compileRuntime(root));
    log(compiled.compiled ? stepLine('compile', 'runtime', compileMs, `.cache/js/ (${compiled.files} files, esbuild)`) : stepLine('skip', 'runtime', compileMs, 'compiled JavaScript up to date'));
    for (const problem of compiled.problems) log(`  ${problem}`);
    if (compiled.problems.length > 0) {
      result.failures.push(`compile: ${compiled.problems.length} files do not compile (their services answer 503; the others run)`);
      result.ok = false;
    }
  }
  return result;
}

/**
 * Records units whose outputs were proven current without this build (`npm run check` found a
 * fresh build of every unit byte-identical to generated/): the state their own build would have
 * written, so the next `npm run build` skips them. The pages of the docs keep their entries.
 */
export function recordBuildState(root: string, units: BuildState): void {
  const statePath = stateFileOf(root);
  const pages = Object.entries(readState(statePath)).filter(([key]) => key.startsWith('docs:'));
  writeState(statePath, { ...Object.fromEntries(pages), ...units });
}

/** Past this many warnings, a unit's warnings are counted by rule instead of listed (an imported document may have hundreds). */
const LISTED_WARNINGS = 20;

/** Every error, each at its file and line; warnings listed when few, else counted by rule with the first place. */
export function lintReport(problems: LintProblem[], format: (p: LintProblem) => string, slug: string): string[] {
  const errors = problems.filter((p) => p.severity === 'error');
  const warnings = problems.filter((p) => p.severity === 'warn');
  if (warnings.length <= LISTED_WARNINGS) return problems.map(format);
  const byRule = new Map<string, LintProblem[]>();
  for (const w of warnings) byRule.set(w.rule, [...(byRule.get(w.rule) ?? []), w]);
  const counted = [...byRule].map(([rule, found]) => `${String(found.length).padStart(5)} warnings  ${rule}  (first at ${found[0]!.where}: ${found[0]!.message})`);
  return [...errors.map(format), ...counted, `(npx redocly lint ${slug} lists every warning)`];
}

interface UnitContext {
  write: (rel: string, contents: string, outputs: Record<string, string>) => void;
  log: (line: string) => void;
  result: BuildResult;
}

async function buildApi(
  root: string,
  service: ApiService,
  ctx: UnitContext & {
    compareWithCommitted: boolean;
    onBundled?: BuildOptions['onBundled'];
    lintApart: boolean;
    linted?: LintProblem[];
    /** the inputs the last build recorded, hashed before this build read them */
    known: { inputs: string[]; hash: string };
  },
): Promise<{ state: UnitState | undefined; document: OpenAPI3 } | undefined> {
  const { lintService, formatLintProblem } = await import('../steps/lint.js');
  const linting = ctx.linted ? Promise.resolve([ctx.linted, 0] as [LintProblem[], number]) : timed(() => (ctx.lintApart ? lintInWorker(root, service) : lintService(root, service)));
  /**
   * Logs the lint's problems: `invalid` when an error means the document is not valid OpenAPI
   * (nothing is written), `style` when only style or house rules fail (the outputs are written, so
   * `npm run dev` serves the document, but the unit fails and is linted again next build), else `clean`.
   */
  const lintPasses = async (): Promise<'clean' | 'style' | 'invalid'> => {
    let problems: LintProblem[], lintMs: number;
    try {
      [problems, lintMs] = await linting;
    } catch (error) {
      ctx.result.failures.push(`lint ${service.slug}: ${(error as Error).message}`);
      ctx.log(stepLine('lint', service.slug, 0, `error: ${(error as Error).message}`));
      return 'invalid';
    }
    const errors = problems.filter((p) => p.severity === 'error');
    ctx.result.lint.push(...problems.map((p) => ({ ...p, slug: service.slug })));
    ctx.log(stepLine('lint', service.slug, lintMs, problems.length === 0 ? 'clean' : `${errors.length} errors, ${problems.length - errors.length} warnings`));
    for (const line of lintReport(problems, formatLintProblem, service.slug)) ctx.log(`  ${line}`);
    if (errors.length === 0) return 'clean';
    ctx.result.failures.push(`lint ${service.slug}`);
    return errors.some((p) => validityRules.has(p.rule)) ? 'invalid' : 'style';
  };
  // A contract that is not valid OpenAPI writes nothing. Linted apart, the other steps run meanwhile and
  // their outputs are held until the lint has passed.
  const verdict = ctx.lintApart ? undefined : await lintPasses();
  if (verdict === 'invalid') return undefined;
  const linted = ctx.lintApart ? lintPasses() : undefined;
  const held: Array<[string, string]> = [];
  const outputs: Record<string, string> = {};
  const write = (rel: string, contents: string) => (linted ? held.push([rel, contents]) : ctx.write(rel, contents, outputs));

  try {
    const { bundleService, stringifyBundle } = await import('../steps/bundle.js');
    const [bundled, bundleMs] = await timed(() => bundleService(root, service));
    write(`${service.slug}/openapi.json`, stringifyBundle(bundled.document));
    ctx.log(stepLine('bundle', service.slug, bundleMs, `generated/${service.slug}/openapi.json`));
    if (!linted) await ctx.onBundled?.(service.slug);

    // oasdiff runs in a process of its own: it compares while this one generates the code.
    const breaking = ctx.compareWithCommitted ? logBreaking(root, service.slug, { document: bundled.document }, ctx.log) : undefined;

    const { generateApiTypes } = await import('../steps/types.js');
    const [types, typesMs] = await timed(() => generateApiTypes(service.slug, bundled.document));
    write(`${service.slug}/types.gen.ts`, types);
    ctx.log(stepLine('types', service.slug, typesMs, `generated/${service.slug}/types.gen.ts`));

    const { generateClient } = await import('../steps/client.js');
    const [client, clientMs] = await timed(() => generateClient(service.slug, bundled.document));
    write(`${service.slug}/client.gen.ts`, client);
    ctx.log(stepLine('client', service.slug, clientMs, `generated/${service.slug}/client.gen.ts`));

    const { generateWebhooks } = await import('../steps/webhooks.js');
    const [webhooks, webhooksMs] = await timed(() => generateWebhooks(service.slug, bundled.document));
    if (webhooks !== undefined) {
      write(`${service.slug}/webhooks.gen.ts`, webhooks);
      ctx.log(stepLine('webhooks', service.slug, webhooksMs, `generated/${service.slug}/webhooks.gen.ts`));
    }

    const { generateStreams } = await import('../steps/streams.js');
    const [streams, streamsMs] = await timed(() => generateStreams(service.slug, bundled.document));
    if (streams !== undefined) {
      for (const [name, contents] of Object.entries(streams)) write(`${service.slug}/${name}`, contents);
      ctx.log(stepLine('streams', service.slug, streamsMs, `generated/${service.slug}/streams.gen.ts`));
    }

    await breaking;
    const late = linted ? await linted : undefined;
    if (late === 'invalid') return undefined;
    if (linted) {
      for (const [rel, contents] of held) ctx.write(rel, contents, outputs);
      await ctx.onBundled?.(service.slug);
    }
    if (verdict === 'style' || late === 'style') return { state: undefined, document: bundled.document };
    const inputs = bundled.inputs.map((f) => path.relative(root, f));
    // The state records what the outputs were built from. Hashed now, a file saved again during
    // this build would be recorded as built, and the next build would skip it; so the hash taken
    // before reading is kept unless the bundle's inputs changed (a $ref added or removed).
    const sameInputs = new Set(bundled.inputs).size === new Set(ctx.known.inputs).size && bundled.inputs.every((f) => ctx.known.inputs.includes(f));
    const hash = sameInputs ? ctx.known.hash : hashFiles(root, [...bundled.inputs, ...globalInputs(root)]);
    return { state: { hash, inputs, outputs }, document: bundled.document };
  } catch (error) {
    // Linted apart, its problems are reported too.
    await linted;
    ctx.result.failures.push(`${service.slug}: ${(error as Error).message}`);
    ctx.log(`  error: ${(error as Error).message}`);
    return undefined;
  }
}

async function buildSchemaSet(root: string, set: SchemaSet, ctx: UnitContext): Promise<Omit<UnitState, 'hash'> | undefined> {
  const { generateSchemaSet } = await import('../steps/schema-types.js');
  const label = `${set.slug} schemas`;
  try {
    const [generated, ms] = await timed(() => generateSchemaSet(set));
    const outputs: Record<string, string> = {};
    for (const [name, contents] of Object.entries(generated.files)) ctx.write(`schemas/${set.slug}/${name}`, contents, outputs);
    const { generateValidationRuntime } = await import('../steps/schema-types.js');
    ctx.write('schemas/validation.gen.ts', generateValidationRuntime(), outputs);
    ctx.log(stepLine('schemas', label, ms, `generated/schemas/${set.slug}/ (${set.files.length} schemas: types, validators)`));
    return { inputs: set.files.map((f) => path.relative(root, f)), outputs };
  } catch (error) {
    ctx.result.failures.push(`schemas ${set.slug}: ${(error as Error).message}`);
    ctx.log(stepLine('schemas', label, 0, `error: ${(error as Error).message}`));
    return undefined;
  }
}

/**
 * The designers' list: the same comparison as the gate of `npm run check` (scripts/lib/breaking-gate.ts),
 * against the same base, each change marked when breaking-allowlist.yaml accepts it. Informational:
 * a failure to compare is printed, never fails the build.
 */
async function logBreaking(root: string, slug: string, unit: { document?: OpenAPI3; set?: SchemaSet }, log: (line: string) => void): Promise<void> {
  const { breakingForBuild } = await import('./breaking-gate.js');
  const label = unit.set ? `${slug} schemas` : slug;
  try {
    const [{ summary, lines }, ms] = await timed(() => breakingForBuild(root, { slug, ...unit }));
    log(stepLine('breaking', label, ms, summary));
    for (const line of lines) log(`  ${line}`);
  } catch (error) {
    log(stepLine('breaking', label, 0, `not compared: ${(error as Error).message}`));
  }
}

/** A service or schema folder that was removed leaves no generated code behind. */
function removeOrphans(outDir: string, services: ApiService[], sets: SchemaSet[], log: (line: string) => void): void {
  if (!existsSync(outDir)) return;
  const keep = new Set([...services.map((s) => s.slug), 'schemas', 'docs']);
  for (const file of listFiles(outDir)) {
    const rel = path.relative(outDir, file).split(path.sep);
    const orphanApi = rel.length === 2 && !keep.has(rel[0]!);
    const orphanSet = rel[0] === 'schemas' && rel.length === 3 && !sets.some((s) => s.slug === rel[1]);
    if (orphanApi || orphanSet) {
      rmSync(file);
      log(stepLine('remove', rel.slice(0, -1).join('/'), 0, `${rel.join('/')} (its source is gone)`));
    }
  }
}

type WeighedUnit = { key: string; knownInputs?: string[]; set?: SchemaSet };

/** The size of a unit's sources, in bytes: what its build time grows with. */
const unitWeight = (unit: WeighedUnit) => (unit.knownInputs ?? unit.set?.files ?? []).reduce((sum, file) => sum + (existsSync(file) ? statSync(file).size : 0), 0);

/** Sources from which a contract is linted apart when a core is idle: the scale benchmark's contracts are above it, the platform's own below. */
const LINT_APART_BYTES = 4_000_000;

/**
 * Deals the stale units to `workers` shares of about equal weight (the size of a unit's sources:
 * mail's contract outweighs the rest), heaviest first. The first share is built in this process.
 */
function shareUnits(stale: WeighedUnit[], workers: number): string[][] {
  // Weighed once each: a unit's weight stats every file of it.
  const weighed = stale.map((unit) => ({ key: unit.key, weight: unitWeight(unit) + (unit.key.startsWith('api:') ? 50_000 : 0) }));
  const shares = Array.from({ length: Math.min(workers, Math.max(stale.length, 1)) }, () => ({ keys: [] as string[], weight: 0 }));
  for (const unit of weighed.sort((a, b) => b.weight - a.weight)) {
    const lightest = shares.reduce((a, b) => (b.weight < a.weight ? b : a));
    lightest.keys.push(unit.key);
    lightest.weight += unit.weight;
  }
  return shares.map((s) => s.keys);
}

/** What a toolkit worker (scripts/lib/build-worker.ts) is asked: a share of a build, or one service's lint. */
export type WorkerRequest = { build: BuildOptions } | { lint: { root: string; service: ApiService } };
/** What it answers: log lines as they come, then one of the others. */
export type WorkerReply = { log: string } | { result: BuildResult } | { problems: LintProblem[] } | { error: string };

/**
 * Workers that have answered and wait for the next request. Loading the toolchain (Redocly,
 * openapi-typescript, the TypeScript loader) is most of what a worker costs, so a process that
 * builds or lints apart again (`npm run dev`, a build after a check, the tests) asks one of these
 * rather than forking anew. Idle, a worker holds its parent's event loop in nothing, and it exits
 * when its parent does (its channel closes).
 */
const idleWorkers: ChildProcess[] = [];

/** A child's IPC channel: it can stop holding the event loop (Node's `subprocess.channel`, untyped in @types/node). */
type Channel = { ref(): void; unref(): void };

/** The toolkit worker in a child process, with the TypeScript loader it needs when run from the sources (tsx, also under vitest). */
function forkWorker(): ChildProcess {
  const worker = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './build-worker.ts' : './build-worker.js', import.meta.url));
  const loader = worker.endsWith('.ts') && !process.execArgv.join(' ').includes('tsx') ? ['--import', 'tsx'] : [];
  return fork(worker, [], { execArgv: [...process.execArgv, ...loader], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

/** Sends `request` to an idle worker (or a new one) and resolves with its last answer; its log lines go to `log`. */
function askWorker(request: WorkerRequest, log: (line: string) => void = () => {}): Promise<Exclude<WorkerReply, { log: string } | { error: string }>> {
  let child = idleWorkers.pop();
  // One that ended while idle (killed from outside) is left for a new one.
  while (child && !child.connected) child = idleWorkers.pop();
  child ??= forkWorker();
  const channel = child.channel as Channel | null | undefined;
  // Busy, it keeps this process running until it answers.
  child.ref();
  channel?.ref();
  return new Promise((resolve, reject) => {
    const settle = (answered: boolean) => {
      child.off('message', onMessage).off('exit', onExit).off('error', onError);
      if (answered && child.connected) {
        child.unref();
        channel?.unref();
        idleWorkers.push(child);
      } else child.kill();
    };
    const onMessage = (reply: WorkerReply) => {
      if ('log' in reply) return log(reply.log);
      settle(true);
      if ('error' in reply) reject(new Error(reply.error));
      else resolve(reply);
    };
    const onExit = (code: number | null) => {
      settle(false);
      reject(new Error(`the worker exited with ${code} before its answer`));
    };
    const onError = (error: Error) => {
      settle(false);
      reject(error);
    };
    child.on('message', onMessage).once('exit', onExit).once('error', onError);
    child.send(request);
  });
}

/** Builds a share of the units in a worker, its log lines passed through. */
async function buildInWorker(options: BuildOptions, log: (line: string) => void): Promise<BuildResult> {
  const { log: _log, onBundled: _onBundled, ...serializable } = options;
  const reply = await askWorker({ build: serializable }, log);
  if (!('result' in reply)) throw new Error('the worker answered a build with no result');
  return reply.result;
}

/** Lints one service in a worker. */
async function lintInWorker(root: string, service: ApiService): Promise<LintProblem[]> {
  const reply = await askWorker({ lint: { root, service } });
  if (!('problems' in reply)) throw new Error('the worker answered a lint with no problems list');
  return reply.problems;
}
