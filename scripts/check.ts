/**
 * `npm run check` (part of `npm test`): lint is clean (no errors; no warnings either on the
 * platform's own contracts, while a document brought in by add-service may keep its style findings), the committed
 * generated files are exactly what a fresh build makes from the sources, nothing breaks
 * existing clients against the base (the merge base with `main` unless `--base REF`) that
 * breaking-allowlist.yaml does not list with a reason, and the code lint finds nothing: oxlint
 * (.oxlintrc.json, the same as `npm run lint`) with the type-aware rules on the hand-written
 * TypeScript (floating and misused promises, `await` on a non-promise, explicit `any`), ESLint's
 * recommended rules on the plain JavaScript, and no disable comment that suppresses nothing.
 * Changes no tracked file: it writes only caches that git ignores. When the fresh build equals
 * generated/ in every file, it records the build state that build would have written
 * (`.cache/build-state.json`), so the first `npm run build` or `npm start` after it skips every
 * unit; with any drift it records nothing. `--only contracts` or `--only lint` (`--only eslint`,
 * its former name, still accepted) runs that part alone (npm test runs the contract checks first,
 * then the lint beside the tests). `--workers N` shares the fresh build among N processes (default
 * one per core, as `npm run build`); npm test, whose type check runs beside, asks for one.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { execFile } from 'node:child_process';
import os, { availableParallelism } from 'node:os';
import path from 'node:path';
import type { OpenAPI3 } from 'openapi-typescript';
import { breakingGate } from './lib/breaking-gate.js';
import { cachedByContent } from './lib/content-cache.js';
import { build, recordBuildState } from './lib/pipeline.js';
import { defaultRoot } from '../server-stubs/lib/root.js';
import { findApiServices, findSchemaSets, isImported, listFiles } from './lib/project.js';
import { formatLintProblem } from './steps/lint.js';
import { formatSpectralProblem, lintWithSpectral } from './steps/spectral.js';

export interface DriftReport {
  missing: string[]; // would be generated, not committed
  stale: string[]; // committed, differs from a fresh build
  extra: string[]; // committed, no longer generated
}

export function compareTrees(freshDir: string, committedDir: string): DriftReport {
  const rel = (dir: string) =>
    listFiles(dir)
      .map((f) => path.relative(dir, f))
      .filter((f) => !f.startsWith(`docs${path.sep}`));
  const fresh = new Set(rel(freshDir));
  const committed = new Set(rel(committedDir));
  const report: DriftReport = { missing: [], stale: [], extra: [] };
  for (const f of fresh) {
    if (!committed.has(f)) report.missing.push(f);
    else if (!readFileSync(path.join(freshDir, f)).equals(readFileSync(path.join(committedDir, f)))) report.stale.push(f);
  }
  for (const f of committed) if (!fresh.has(f)) report.extra.push(f);
  return report;
}

/** What Spectral's findings depend on besides the bundle: the ruleset, its functions, Spectral's own versions. */
function spectralRulesetInputs(root: string): string[] {
  const functionsDir = path.join(root, 'scripts', 'spectral');
  const functions = existsSync(functionsDir) ? listFiles(functionsDir).sort().map((f) => `${path.relative(root, f)}\n${readFileSync(f, 'utf8')}`) : [];
  const versions = ['spectral-core', 'spectral-rulesets', 'spectral-ruleset-bundler'].map((name) => {
    const manifest = path.join(root, 'node_modules', '@stoplight', name, 'package.json');
    return existsSync(manifest) ? `${name}@${(JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version}` : name;
  });
  const rulesetFile = path.join(root, '.spectral.yaml');
  return [existsSync(rulesetFile) ? readFileSync(rulesetFile, 'utf8') : '', ...functions, ...versions];
}

/** The two parts of the check: the contracts, and the code lint. */
export type CheckPart = 'contracts' | 'lint';

export interface CheckOptions {
  /** the commit to compare with for breaking changes (`--base REF`); default: the merge base with main */
  base?: string;
  /** processes sharing the fresh build (as `npm run build`'s); default 1, the caller's own */
  workers?: number;
  /** `--only contracts` or `--only lint` (or `eslint`, its former name): that part alone (npm test runs them apart); default both */
  only?: CheckPart;
}

export interface CheckResult {
  ok: boolean;
  /** what fails the check, one line per problem */
  messages: string[];
  /** how to fix them where a tool knows (the allowlist entries to paste): printed after them, not counted */
  advice: string[];
  /** worth a look, does not fail: allowlist entries no longer needed */
  warnings: string[];
  /** what the breaking-change gate compared with, or why it was skipped */
  notes: string[];
}

export async function check(root: string, options: CheckOptions = {}): Promise<CheckResult> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'contracts-check-'));
  const messages: string[] = [];
  try {
    const result = await build({ root, outDir: tmp, force: true, docs: false, register: false, workers: options.workers ?? 1 });
    // The platform's own contracts lint clean, warnings included; a document brought in is held to
    // OpenAPI validity only (DECISIONS I-1): its style findings are the vendor's, counted, not failed.
    const services = findApiServices(root);
    const imported = new Set(services.filter(isImported).map((s) => s.slug));
    for (const p of result.lint) if (p.severity === 'error' || !imported.has(p.slug)) messages.push(`lint: ${formatLintProblem(p)}`);
    const importedWarnings = result.lint.filter((p) => p.severity === 'warn' && imported.has(p.slug)).length;
    if (importedWarnings > 0) console.warn(`lint: ${importedWarnings} style warnings in documents brought in by add-service (${[...imported].join(', ')}); npx redocly lint <slug> lists them`);
    for (const f of result.failures) messages.push(`build: ${f}`);
    // An independent linter agrees on the platform's own: Spectral's `oas` ruleset (.spectral.yaml),
    // errors fail, warnings print. A document brought in is judged by the validity rules above alone,
    // so Spectral does not read it at all.
    const ruleset = spectralRulesetInputs(root);
    for (const { slug } of services) {
      if (imported.has(slug)) continue;
      const bundle = path.join(tmp, slug, 'openapi.json');
      if (!existsSync(bundle)) continue; // a bundle failure is already reported
      // The same bundle under the same ruleset and Spectral has the same findings: a check of a copy
      // with unchanged services (the pipeline tests) does not lint them again.
      const problems = await cachedByContent(root, 'spectral', [readFileSync(bundle), ...ruleset], () => lintWithSpectral(bundle, { root }));
      for (const p of problems) {
        const line = `spectral: ${formatSpectralProblem(`generated/${slug}/openapi.json`, p)}`;
        if (p.severity === 'error') messages.push(line);
        else if (p.severity === 'warn') console.warn(line);
      }
    }
    const drift = compareTrees(tmp, path.join(root, 'generated'));
    for (const f of drift.missing) messages.push(`drift: generated/${f} is not committed (run npm run build)`);
    for (const f of drift.stale) messages.push(`drift: generated/${f} differs from a fresh build (run npm run build)`);
    for (const f of drift.extra) messages.push(`drift: generated/${f} is no longer generated (run npm run build)`);
    // Every output a build would write is already committed as it would write it: its state is true
    // of generated/. A unit that failed, or any drift at all, and nothing is recorded.
    const current = result.failures.length === 0 && drift.missing.length + drift.stale.length + drift.extra.length === 0;
    if (current) recordBuildState(root, result.state);
    const present = services.map((s) => s.slug);
    const bundles = new Map<string, OpenAPI3>();
    for (const slug of present) {
      const file = path.join(tmp, slug, 'openapi.json');
      if (existsSync(file)) bundles.set(slug, JSON.parse(readFileSync(file, 'utf8')));
    }
    const gate = await breakingGate(root, { bundles, present, sets: findSchemaSets(root) }, options.base);
    messages.push(...gate.failures);
    return { ok: messages.length === 0, messages, advice: gate.advice, warnings: gate.warnings, notes: gate.note ? [gate.note] : [] };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export interface CodeLintResult {
  /** `file:line:col  rule  message`, relative to the root; errors fail the check */
  errors: string[];
  warnings: string[];
  files: number;
}

/** What the check reads of oxlint's `--format json` report. */
interface OxlintReport {
  diagnostics: Array<{
    message: string;
    /** `eslint(no-undef)`, `typescript(no-floating-promises)`; none for a parse error or an unused disable comment */
    code?: string;
    severity: 'error' | 'warning' | 'advice';
    filename: string;
    labels?: Array<{ span: { line: number; column: number } }>;
  }>;
  number_of_files: number;
}

/** A finding's rule as .oxlintrc.json names it (`no-undef`, `typescript/no-floating-promises`). */
function ruleOf(d: OxlintReport['diagnostics'][number]): string {
  const named = /^([\w-]+)\((.+)\)$/.exec(d.code ?? '');
  if (named) return named[1] === 'eslint' ? named[2]! : `${named[1]}/${named[2]}`;
  return /^Unused (eslint|oxlint)-(disable|enable)/.test(d.message) ? 'unused-disable-directive' : 'parse';
}

/**
 * oxlint over the repository with its .oxlintrc.json, type-aware (TypeScript 7's checker, through
 * oxlint-tsgolint). No cache: every run lints every file, as a fresh clone does.
 */
export async function lintCode(root: string): Promise<CodeLintResult> {
  const oxlint = path.join(root, 'node_modules', 'oxlint', 'bin', 'oxlint');
  const args = [oxlint, '--config', path.join(root, '.oxlintrc.json'), '--format', 'json'];
  // Exit 1 when it finds a problem: the report on stdout says which.
  const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number }>((resolve) => {
    execFile(process.execPath, args, { cwd: root, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => resolve({ stdout, stderr, code: !error ? 0 : typeof error.code === 'number' ? error.code : 1 }));
  });
  let report: OxlintReport;
  try {
    report = JSON.parse(stdout) as OxlintReport;
  } catch {
    // A configuration it cannot read, a missing tsgolint: no report, an error all the same.
    const why = `${stderr}\n${stdout}`
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .slice(0, 5)
      .join(' / ');
    return { errors: [`.oxlintrc.json:0:0  oxlint  oxlint did not report (exit ${code}): ${why || 'no output'}`], warnings: [], files: 0 };
  }
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const d of report.diagnostics) {
    const file = path.relative(root, path.resolve(root, d.filename));
    const at = d.labels?.[0]?.span;
    const line = `${file}:${at?.line ?? 0}:${at?.column ?? 0}  ${ruleOf(d)}  ${d.message}`;
    (d.severity === 'error' ? errors : warnings).push(line);
  }
  return { errors, warnings, files: report.number_of_files };
}

/**
 * `--base REF` or `--base=REF`, `--only contracts|lint` (`eslint` is `lint`), `--workers N` (the
 * processes sharing the fresh build; default one per core); anything else is refused but
 * `--no-eslint-cache`, accepted for the scripts that pass it and ignored (the lint keeps no cache).
 */
export function parseCheckArgs(argv: string[]): CheckOptions {
  const options: CheckOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--base' && argv[i + 1] && !argv[i + 1]!.startsWith('--')) options.base = argv[++i];
    else if (arg.startsWith('--base=') && arg.length > '--base='.length) options.base = arg.slice('--base='.length);
    else if (arg === '--workers' || arg.startsWith('--workers=')) {
      const value = arg === '--workers' ? (argv[++i] ?? '') : arg.slice('--workers='.length);
      if (!/^[1-9]\d*$/.test(value)) throw new Error(`--workers takes a whole number from 1, got ${value || 'nothing'}`);
      options.workers = Number(value);
    } else if (arg === '--no-eslint-cache') continue;
    else if (arg === '--only' || arg.startsWith('--only=')) {
      const part = arg === '--only' ? argv[++i] : arg.slice('--only='.length);
      if (part !== 'contracts' && part !== 'lint' && part !== 'eslint') throw new Error(`--only takes contracts or lint, got ${part || 'nothing'}`);
      options.only = part === 'eslint' ? 'lint' : part;
    } else throw new Error(`unknown argument ${arg} (usage: npm run check -- [--base REF] [--only contracts|lint] [--workers N])`);
  }
  return options;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = performance.now();
  const say = (line: string) => console.log(`${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s  ${line}`);
  let options: CheckOptions;
  try {
    options = parseCheckArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`check: ${(error as Error).message}`);
    process.exit(2);
  }
  const times: string[] = [];
  let problems = 0;
  let failed = false;
  if (options.only !== 'lint') {
    say('contracts: Redocly lint, build, Spectral, drift of generated/, breaking changes…');
    // Alone on the machine, as `npm run build` is, the fresh build shares the cores; beside other
    // work (npm test's type check), `--workers 1` (bench/RESULTS.md).
    const { ok, messages, advice, warnings, notes } = await check(defaultRoot, { ...options, workers: options.workers ?? availableParallelism() });
    const contractsMs = Math.round(performance.now() - started);
    for (const n of notes) console.log(n);
    for (const w of warnings) console.warn(`warning: ${w}`);
    for (const m of messages) console.error(m);
    for (const a of advice) console.error(a);
    console.log(`contracts ${String(contractsMs).padStart(7)} ms  lint, build, Spectral, drift, breaking changes: ${messages.length} problems`);
    times.push(`contracts ${contractsMs} ms`);
    problems += messages.length;
    failed ||= !ok;
  }
  if (options.only !== 'contracts') {
    // After the contract steps, not beside them: both are CPU-bound, and running them together on two cores gains little.
    say('lint: oxlint over the hand-written TypeScript (type-aware) and JavaScript…');
    const lintStarted = performance.now();
    const code = await lintCode(defaultRoot);
    const lintMs = Math.round(performance.now() - lintStarted);
    for (const w of code.warnings) console.warn(`oxlint: ${w}`);
    for (const e of code.errors) console.error(`oxlint: ${e}`);
    console.log(`lint      ${String(lintMs).padStart(7)} ms  ${code.files} files: ${code.errors.length} errors, ${code.warnings.length} warnings`);
    times.push(`lint ${lintMs} ms`);
    problems += code.errors.length;
    failed ||= code.errors.length > 0;
  }
  const ms = Math.round(performance.now() - started);
  if (failed) {
    console.error(`check failed in ${ms} ms (${times.join(', ')}): ${problems} problems`);
    process.exit(1);
  }
  const passed: Record<CheckPart, string> = { contracts: 'lint clean, generated code fresh, no unlisted breaking changes', lint: 'code lint (oxlint) clean' };
  console.log(`check: ${options.only ? passed[options.only] : `${passed.contracts}, ${passed.lint}`} (${ms} ms: ${times.join(', ')})`);
}
