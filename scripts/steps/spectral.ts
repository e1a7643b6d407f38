/**
 * A second, independent linter: Spectral with the ruleset of `.spectral.yaml` at the repository root
 * (`extends: [spectral:oas]`), run on a bundle (`generated/<slug>/openapi.json` or a document in
 * memory). The same file drives `npx spectral lint generated/*\/openapi.json` by hand.
 *
 * Problems name their place in the bundle: a JSON Pointer and the bundle's line.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { defaultRoot } from '../../server-stubs/lib/root.js';

export type SpectralSeverity = 'error' | 'warn' | 'info' | 'hint';

export interface SpectralProblem {
  severity: SpectralSeverity;
  /** the rule, e.g. `oas3-valid-media-example` */
  code: string;
  message: string;
  /** JSON Pointer into the bundle, e.g. `/paths/~1crawl~1{jobId}~1stream/get` */
  path: string;
  /** 1-based line in the bundle as written by `npm run build` (2-space JSON) */
  line: number;
}

const severities: SpectralSeverity[] = ['error', 'warn', 'info', 'hint'];

type Spectral = import('@stoplight/spectral-core').Spectral;
const linters = new Map<string, Promise<Spectral>>();

type AssignValidator = (schema: { $id?: unknown }, dialect: string, allErrors: boolean) => unknown;
let validatorsShared = false;

/**
 * Spectral's example rules (oas3-valid-media-example, oas3-valid-schema-example) validate each
 * example against a fresh deep copy of its schema, and Spectral keeps the validators it compiled by
 * the schema object: a copy never hits, so every example compiles its schema again (most of a
 * Spectral run on mail). Kept by the schema's content instead, for the document's own ajv instances
 * as before: an equal schema compiles to the same validator, so the findings are the same.
 */
function shareValidatorsByContent(): void {
  if (validatorsShared) return;
  validatorsShared = true;
  // The copy of spectral-functions that the OAS ruleset itself loads.
  const fromRulesets = createRequire(createRequire(import.meta.url).resolve('@stoplight/spectral-rulesets'));
  const ajvModule = fromRulesets('@stoplight/spectral-functions/dist/schema/ajv.js') as { createAjvInstances: () => AssignValidator };
  const createInstances = ajvModule.createAjvInstances;
  ajvModule.createAjvInstances = () => {
    const assign = createInstances();
    const byContent = new Map<string, unknown>();
    return (schema, dialect, allErrors) => {
      // A schema with an `$id` is already kept by that id, in the instance it was added to.
      if (typeof schema.$id === 'string') return assign(schema, dialect, allErrors);
      const key = `${dialect}\0${allErrors}\0${JSON.stringify(schema)}`;
      let validator = byContent.get(key);
      if (validator === undefined) byContent.set(key, (validator = assign(schema, dialect, allErrors)));
      return validator;
    };
  };
}

/** One Spectral per ruleset file, its ruleset (slow to load) loaded once. */
function linterFor(rulesetFile: string): Promise<Spectral> {
  let linter = linters.get(rulesetFile);
  if (!linter) {
    linter = (async () => {
      shareValidatorsByContent();
      const { Spectral } = await import('@stoplight/spectral-core');
      const { bundleAndLoadRuleset } = await import('@stoplight/spectral-ruleset-bundler/with-loader');
      const { fetch } = await import('@stoplight/spectral-runtime');
      const spectral = new Spectral();
      spectral.setRuleset(await bundleAndLoadRuleset(rulesetFile, { fs, fetch }));
      return spectral;
    })();
    linters.set(rulesetFile, linter);
  }
  return linter;
}

export interface SpectralOptions {
  /** the repository root, whose `.spectral.yaml` is the ruleset */
  root?: string;
  /** names the document in Spectral's own messages; defaults to the file or `bundle.json` */
  source?: string;
}

/**
 * Lints one bundle: a path to its JSON file, or the document itself. Problems are sorted by line.
 */
export async function lintWithSpectral(bundle: string | Record<string, unknown>, options: SpectralOptions = {}): Promise<SpectralProblem[]> {
  const root = options.root ?? defaultRoot;
  const { Document } = await import('@stoplight/spectral-core');
  const Parsers = await import('@stoplight/spectral-parsers');
  const text = typeof bundle === 'string' ? fs.readFileSync(bundle, 'utf8') : `${JSON.stringify(bundle, null, 2)}\n`;
  const source = options.source ?? (typeof bundle === 'string' ? path.resolve(bundle) : path.join(root, 'bundle.json'));
  const spectral = await linterFor(path.join(root, '.spectral.yaml'));
  const results = await spectral.run(new Document(text, Parsers.Json, source));
  return results
    .map((r) => ({
      severity: severities[r.severity] ?? 'error',
      code: String(r.code),
      message: r.message,
      path: r.path.map((s) => `/${String(s).replaceAll('~', '~0').replaceAll('/', '~1')}`).join(''),
      line: r.range.start.line + 1,
    }))
    .sort((a, b) => a.line - b.line || a.code.localeCompare(b.code));
}

/** `generated/seo/openapi.json:1327  error  oas3-valid-media-example  … (at /paths/…)` */
export function formatSpectralProblem(file: string, p: SpectralProblem): string {
  return `${file}:${p.line}  ${p.severity === 'warn' ? 'warning' : p.severity}  ${p.code}  ${p.message}  (at ${p.path || '/'})`;
}
