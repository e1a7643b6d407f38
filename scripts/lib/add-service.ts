/**
 * `npm run add-service -- <slug> --from <file|folder> [--root <file>]`: brings an existing OpenAPI
 * 3.0 or 3.1 document in unchanged (DECISIONS I-1). The document, or its whole folder with the
 * relative `$ref`s between its files, is copied under `openapi/<slug>/` keeping its layout and its
 * root's name, linted in a staging copy first with the profile of imported documents
 * (`platform/imported`: validity errors block, style findings are warnings) and registered in
 * redocly.yaml only when that passes. A refusal writes nothing.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { registerApi } from './redocly-config.js';
import { findApiServices, listFiles } from './project.js';
import { refuseBadSlug, ScaffoldRefused } from './scaffold.js';
import type { LintProblem } from '../steps/lint.js';

/** The lint profile of a document the platform did not write (scripts/redocly/platform.cjs). */
export const IMPORTED_PROFILE = ['platform/imported'];

export interface AddServiceOptions {
  /** the document, or the folder that holds it (relative to the working directory) */
  from: string;
  /** the root document inside `from` when it is a folder, relative to it */
  rootFile?: string;
}

export interface AddedService {
  slug: string;
  /** the root document as registered, relative to the project: `openapi/petstore/petstore.json` */
  root: string;
  files: string[];
  /** the lint's problems: warnings only (style findings), since an error refuses the document; the build takes them as its lint */
  problems: LintProblem[];
}

const documentFile = (file: string) => /\.(ya?ml|json)$/i.test(file);

/**
 * A document's text parsed: as JSON first when it looks like JSON (JSON is YAML, but the YAML
 * parser takes many times longer over a vendor's large JSON document), else as YAML.
 */
function parseDocumentText(text: string): unknown {
  if (/^\s*[{[]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // YAML's flow style starts the same way; the YAML parser decides, and words its error.
    }
  }
  return parseYaml(text, { prettyErrors: true, uniqueKeys: false });
}

/** A file's contents as YAML or JSON (JSON is YAML), or why it cannot be read as either. */
function readDocument(file: string): unknown {
  const text = readFileSync(file, 'utf8');
  try {
    return parseDocumentText(text);
  } catch (error) {
    throw new ScaffoldRefused(`${file} is not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** The OpenAPI version a parsed document declares, or a refusal saying what it is instead. */
function openApiVersionOf(file: string, document: unknown): string {
  const root = document as { openapi?: unknown; swagger?: unknown } | null;
  if (root && typeof root === 'object' && typeof root.openapi === 'string') {
    if (/^3\.[01]\.\d+$/.test(root.openapi)) return root.openapi;
    throw new ScaffoldRefused(`${file} is OpenAPI ${root.openapi}; the toolkit takes OpenAPI 3.0.x and 3.1.x`);
  }
  if (root && typeof root === 'object' && root.swagger !== undefined) {
    throw new ScaffoldRefused(`${file} is Swagger ${String(root.swagger)}; convert it to OpenAPI 3 first (for example with swagger2openapi), then add the converted document`);
  }
  throw new ScaffoldRefused(`${file} is not an OpenAPI document (it has no top-level \`openapi: 3.x.y\` field)`);
}

/**
 * Every file below `dir` that a `$ref` takes whole (`paths/pets.yaml`), as absolute paths. A file
 * referenced only into (`../openapi.yaml#/components/…`, as split contracts point back at their
 * root's components) may still be the root; URLs are left out. The `$ref`s are found by their
 * text, not by parsing every file: a folder of thousands of files is read in a blink.
 */
function referencedFiles(files: string[]): Set<string> {
  const referenced = new Set<string>();
  const refPattern = /["']?\$ref["']?\s*:\s*["']?([^"'#\s,}]*)(#[^"'\s,}]*)?/g;
  for (const file of files) {
    for (const [, target = '', fragment = ''] of readFileSync(file, 'utf8').matchAll(refPattern)) {
      if (!target || fragment.replace(/^#\/?/, '') !== '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      try {
        referenced.add(path.resolve(path.dirname(file), decodeURI(target)));
      } catch {
        // Not a URI reference at all: the lint names it if the root reaches it.
      }
    }
  }
  return referenced;
}

/** The root document of a folder: `--root`, else the one OpenAPI document no other file references. */
function findRoot(dir: string, files: string[], rootFile: string | undefined): string {
  if (rootFile !== undefined) {
    const file = path.resolve(dir, rootFile);
    if (path.relative(dir, file).startsWith('..') || !existsSync(file) || !statSync(file).isFile()) {
      throw new ScaffoldRefused(`--root ${rootFile} is not a file inside ${dir}`);
    }
    return file;
  }
  const documents = files.filter(documentFile);
  const referenced = referencedFiles(documents);
  const candidates = documents.filter((file) => {
    if (referenced.has(file)) return false;
    try {
      const parsed = parseDocumentText(readFileSync(file, 'utf8')) as { openapi?: unknown; swagger?: unknown } | null;
      return !!parsed && typeof parsed === 'object' && (parsed.openapi !== undefined || parsed.swagger !== undefined);
    } catch {
      return false;
    }
  });
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length === 0) throw new ScaffoldRefused(`no OpenAPI document in ${dir}: no YAML or JSON file there has a top-level \`openapi\` field`);
  const names = candidates.map((file) => path.relative(dir, file)).join(', ');
  throw new ScaffoldRefused(`${dir} holds ${candidates.length} OpenAPI documents that no other file references (${names}); name the root with --root <file>`);
}

/** What a folder brings: its files, without hidden ones and installed packages. */
function folderFiles(dir: string): string[] {
  return listFiles(dir).filter((file) => !path.relative(dir, file).split(path.sep).some((part) => part.startsWith('.') || part === 'node_modules'));
}

/** Refuses a slug that names a service, a stub, schemas or generated code already there. */
function refuseTaken(projectRoot: string, slug: string): void {
  const taken = ['openapi', 'server-stubs', 'schemas', 'generated'].map((folder) => path.join(folder, slug)).filter((folder) => existsSync(path.join(projectRoot, folder)));
  if (findApiServices(projectRoot).some((service) => service.slug === slug)) taken.push('redocly.yaml apis');
  if (taken.length > 0) throw new ScaffoldRefused(`${slug} exists already (${taken.join(', ')}); nothing was written`);
}

export async function addService(projectRoot: string, slug: string, options: AddServiceOptions): Promise<AddedService> {
  refuseBadSlug(slug);
  refuseTaken(projectRoot, slug);
  const from = path.resolve(options.from);
  if (!existsSync(from)) throw new ScaffoldRefused(`${options.from}: no such file or folder`);
  const isFolder = statSync(from).isDirectory();
  if (!isFolder && options.rootFile !== undefined) throw new ScaffoldRefused('--root names the root inside a folder; --from is a file');
  const sourceDir = isFolder ? from : path.dirname(from);
  const files = isFolder ? folderFiles(from) : [from];
  const sourceRoot = isFolder ? findRoot(from, files, options.rootFile) : from;
  openApiVersionOf(path.relative(process.cwd(), sourceRoot) || sourceRoot, readDocument(sourceRoot));

  // Staged where nothing looks (.cache/ is ignored by git and the build) and moved into place by a
  // rename once the lint passes: a refused document leaves nothing behind, an accepted one appears whole.
  const target = path.join(projectRoot, 'openapi', slug);
  const stagingRoot = path.join(projectRoot, '.cache');
  mkdirSync(stagingRoot, { recursive: true });
  const staging = mkdtempSync(path.join(stagingRoot, `add-service-${slug}-`));
  try {
    const staged = path.join(staging, slug);
    for (const file of files) cpSync(file, path.join(staged, path.relative(sourceDir, file)));
    const stagedRoot = path.join(staged, path.relative(sourceDir, sourceRoot));
    const { lintCandidate, formatLintProblem } = await import('../steps/lint.js');
    // Named where they will be once added; a refusal names them where the user has them.
    const asAdded = (file: string) => path.relative(projectRoot, path.join(target, path.relative(staged, file))).split(path.sep).join('/');
    const problems = await lintCandidate(projectRoot, slug, stagedRoot, IMPORTED_PROFILE, asAdded);
    const errors = problems.filter((p) => p.severity === 'error');
    if (errors.length > 0) {
      const addedPrefix = `openapi/${slug}/`;
      const asGiven = (p: LintProblem) => ({ ...p, where: p.where.startsWith(addedPrefix) ? path.join(path.relative(process.cwd(), sourceDir), p.where.slice(addedPrefix.length)) : p.where });
      const listed = errors.slice(0, 20).map((p) => `  ${formatLintProblem(asGiven(p))}`);
      const more = errors.length > listed.length ? [`  … and ${errors.length - listed.length} more`] : [];
      throw new ScaffoldRefused(`the document is not valid OpenAPI (${errors.length} errors); nothing was written:\n${[...listed, ...more].join('\n')}`);
    }
    mkdirSync(path.dirname(target), { recursive: true });
    renameSync(staged, target);
    const registeredRoot = asAdded(stagedRoot);
    await registerApi(projectRoot, slug, registeredRoot, IMPORTED_PROFILE);
    return {
      slug,
      root: registeredRoot,
      files: files.map((file) => path.relative(projectRoot, path.join(target, path.relative(sourceDir, file))).split(path.sep).join('/')),
      problems,
    };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
