import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { JsonNode } from './operations.js';
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
}

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
  const { root, force = false, docs = true, register = true } = options;
  const outDir = options.outDir ?? path.join(root, 'generated');
  const log = options.log ?? (() => {});
  const result: BuildResult = { ok: true, lint: [], failures: [], rebuilt: [] };
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

  const docPages: Array<ReturnType<typeof docEntry>> = [];
  for (const service of services) {
    const key = `api:${service.slug}`;
    const prior = previous[key];
    const knownInputs = prior?.inputs.map((rel) => path.join(root, rel)) ?? listFiles(path.dirname(service.root));
    const hash = hashFiles(root, [...knownInputs, ...global], `docs=${docs}`);
    if (prior && prior.hash === hash && outputsIntact(root, prior)) {
      next[key] = prior;
      log(stepLine('skip', service.slug, 0, 'up to date'));
      const bundle = JSON.parse(readFileSync(path.join(outDir, service.slug, 'openapi.json'), 'utf8'));
      docPages.push(docEntry(service.slug, bundle));
      continue;
    }
    const unit = await buildApi(root, service, { write, log, docs, result, compareWithCommitted: register, onBundled: options.onBundled, known: { inputs: knownInputs, hash } });
    if (unit) {
      next[key] = unit.state;
      docPages.push(docEntry(service.slug, unit.document));
      result.rebuilt.push(key);
    }
  }

  for (const set of sets) {
    const key = `schemas:${set.slug}`;
    const prior = previous[key];
    const hash = hashFiles(root, [...set.files, ...global]);
    if (prior && prior.hash === hash && outputsIntact(root, prior)) {
      next[key] = prior;
      log(stepLine('skip', `${set.slug} schemas`, 0, 'up to date'));
      continue;
    }
    const state = await buildSchemaSet(root, set, { write, log, result });
    if (state && register) await logBreaking(root, set.slug, { set }, log);
    if (state) {
      next[key] = { ...state, hash };
      result.rebuilt.push(key);
    }
  }

  removeOrphans(outDir, services, sets, log);

  if (docs) {
    const { docsAssets, generateDocsIndex, generateServicesScript, portalEntry } = await import('../steps/docs.js');
    const docsDir = path.join(outDir, 'docs');
    mkdirSync(docsDir, { recursive: true });
    const entries = docPages.map((d) => portalEntry(d.slug, d.document));
    writeFileSync(path.join(docsDir, 'index.html'), generateDocsIndex(entries));
    writeFileSync(path.join(docsDir, 'services.js'), generateServicesScript(entries));
    // Copied every build: the console and its styles change with the pipeline, not with a service.
    for (const [name, contents] of Object.entries(docsAssets())) writeFileSync(path.join(docsDir, name), contents);
  }

  result.ok = result.failures.length === 0;
  if (useState) writeState(statePath, { ...next });
  if (useState && options.compile) {
    const { compileRuntime } = await import('../steps/compile.js');
    const [compiled, compileMs] = await timed(() => compileRuntime(root));
    log(compiled.compiled ? stepLine('compile', 'runtime', compileMs, `.cache/js/ (${compiled.files} files, esbuild)`) : stepLine('skip', 'runtime', compileMs, 'compiled JavaScript up to date'));
  }
  return result;
}

/** The portal's index is written after every service, skipped ones included, from their bundles. */
function docEntry(slug: string, document: JsonNode) {
  return { slug, document };
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
    docs: boolean;
    compareWithCommitted: boolean;
    onBundled?: BuildOptions['onBundled'];
    /** the inputs the last build recorded, hashed before this build read them */
    known: { inputs: string[]; hash: string };
  },
): Promise<{ state: UnitState; document: JsonNode } | undefined> {
  const { lintService, formatLintProblem } = await import('../steps/lint.js');
  const [problems, lintMs] = await timed(() => lintService(root, service));
  const errors = problems.filter((p) => p.severity === 'error');
  ctx.result.lint.push(...problems.map((p) => ({ ...p, slug: service.slug })));
  ctx.log(stepLine('lint', service.slug, lintMs, problems.length === 0 ? 'clean' : `${errors.length} errors, ${problems.length - errors.length} warnings`));
  for (const p of problems) ctx.log(`  ${formatLintProblem(p)}`);
  if (errors.length > 0) {
    ctx.result.failures.push(`lint ${service.slug}`);
    return undefined;
  }

  const outputs: Record<string, string> = {};
  try {
    const { bundleService, stringifyBundle } = await import('../steps/bundle.js');
    const [bundled, bundleMs] = await timed(() => bundleService(root, service));
    ctx.write(`${service.slug}/openapi.json`, stringifyBundle(bundled.document), outputs);
    ctx.log(stepLine('bundle', service.slug, bundleMs, `generated/${service.slug}/openapi.json`));
    await ctx.onBundled?.(service.slug);

    if (ctx.compareWithCommitted) await logBreaking(root, service.slug, { document: bundled.document }, ctx.log);

    const { generateApiTypes } = await import('../steps/types.js');
    const [types, typesMs] = await timed(() => generateApiTypes(service.slug, bundled.document));
    ctx.write(`${service.slug}/types.gen.ts`, types, outputs);
    ctx.log(stepLine('types', service.slug, typesMs, `generated/${service.slug}/types.gen.ts`));

    const { generateClient } = await import('../steps/client.js');
    const [client, clientMs] = await timed(() => generateClient(service.slug, bundled.document));
    ctx.write(`${service.slug}/client.gen.ts`, client, outputs);
    ctx.log(stepLine('client', service.slug, clientMs, `generated/${service.slug}/client.gen.ts`));

    const { generateWebhooks } = await import('../steps/webhooks.js');
    const [webhooks, webhooksMs] = await timed(() => generateWebhooks(service.slug, bundled.document));
    if (webhooks !== undefined) {
      ctx.write(`${service.slug}/webhooks.gen.ts`, webhooks, outputs);
      ctx.log(stepLine('webhooks', service.slug, webhooksMs, `generated/${service.slug}/webhooks.gen.ts`));
    }

    const { generateStreams } = await import('../steps/streams.js');
    const [streams, streamsMs] = await timed(() => generateStreams(service.slug, bundled.document));
    if (streams !== undefined) {
      for (const [name, contents] of Object.entries(streams)) ctx.write(`${service.slug}/${name}`, contents, outputs);
      ctx.log(stepLine('streams', service.slug, streamsMs, `generated/${service.slug}/streams.gen.ts`));
    }

    if (ctx.docs) {
      const { generateDocsPage } = await import('../steps/docs.js');
      const [page, docsMs] = await timed(() => generateDocsPage(service.slug, bundled.document));
      ctx.write(`docs/${service.slug}.html`, page, outputs);
      ctx.log(stepLine('docs', service.slug, docsMs, `generated/docs/${service.slug}.html`));
    }

    const inputs = bundled.inputs.map((f) => path.relative(root, f));
    // The state records what the outputs were built from. Hashed now, a file saved again during
    // this build would be recorded as built, and the next build would skip it; so the hash taken
    // before reading is kept unless the bundle's inputs changed (a $ref added or removed).
    const sameInputs = new Set(bundled.inputs).size === new Set(ctx.known.inputs).size && bundled.inputs.every((f) => ctx.known.inputs.includes(f));
    const hash = sameInputs ? ctx.known.hash : hashFiles(root, [...bundled.inputs, ...globalInputs(root)], `docs=${ctx.docs}`);
    return { state: { hash, inputs, outputs }, document: bundled.document };
  } catch (error) {
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
async function logBreaking(root: string, slug: string, unit: { document?: JsonNode; set?: SchemaSet }, log: (line: string) => void): Promise<void> {
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
