/**
 * A copy of part of the project in a temporary folder, for tests that edit contracts or stubs: the
 * tracked tree is never written while other test files read it. The copy resolves packages through
 * a link to the project's node_modules.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isMap, parseDocument } from 'yaml';
import { defaultRoot } from '../../server-stubs/lib/root.js';

export interface ProjectCopy {
  root: string;
  remove(): void;
}

/** Copies `parts` (paths relative to the project root: files or folders) into a new temporary root. */
export function copyProject(parts: string[]): ProjectCopy {
  const root = mkdtempSync(path.join(os.tmpdir(), 'contracts-project-'));
  for (const part of parts) cpSync(path.join(defaultRoot, part), path.join(root, part), { recursive: true });
  symlinkSync(path.join(defaultRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

export interface ToolkitCopyOptions {
  /** the platform's services the copy keeps (openapi/, schemas/, generated/ and redocly.yaml's `apis`); the others are left out, and so are the HTML docs (generated/docs/, not committed) */
  services: string[];
  /** more parts of the project to copy as they are (`server-stubs`, `clients`, `tsconfig.json`…) */
  parts?: string[];
  /**
   * Keep the project's build state (.cache/build-state.json), so that the copy's build redoes only
   * what the project's would (nothing, after a build) rather than every unit. A unit's hash covers
   * redocly.yaml, and a service's docs page is a unit whose output is the page: the copy keeps
   * redocly.yaml whole (the absent services' entries are never read) and the kept services' pages.
   * A project never built has no state, and the copy builds every unit, as the project would.
   */
  buildState?: boolean;
}

/** What the pipeline reads besides the services: the scripts, their configuration, the tool versions. */
const TOOLKIT = ['scripts', '.spectral.yaml', 'breaking-allowlist.yaml', 'package-lock.json'];

/**
 * The toolkit with a chosen few of the platform's services: building, checking or serving the
 * others again is work a test of the toolkit does not need (`npm run check` builds and checks them
 * all). Their contracts, schema sets, generated code and `apis` entries are left out together, so
 * the copy is a consistent project of its own: a check of it finds nothing missing or stale.
 */
export function copyToolkit(options: ToolkitCopyOptions): ProjectCopy {
  const { services, parts = [], buildState = false } = options;
  const copy = copyProject([...TOOLKIT, ...parts]);
  const copyIfPresent = (part: string) => {
    if (existsSync(path.join(defaultRoot, part))) cpSync(path.join(defaultRoot, part), path.join(copy.root, part), { recursive: true });
  };
  for (const slug of services) {
    if (!existsSync(path.join(defaultRoot, 'openapi', slug))) throw new Error(`copyToolkit: openapi/${slug} does not exist`);
    for (const part of [`openapi/${slug}`, `generated/${slug}`, `schemas/${slug}`, `generated/schemas/${slug}`]) copyIfPresent(part);
  }
  copyIfPresent('generated/schemas/validation.gen.ts');
  const file = path.join(copy.root, 'redocly.yaml');
  if (buildState) {
    for (const slug of services) copyIfPresent(`generated/docs/${slug}.html`);
    copyIfPresent('.cache/build-state.json');
    cpSync(path.join(defaultRoot, 'redocly.yaml'), file);
    return copy;
  }
  const config = parseDocument(readFileSync(path.join(defaultRoot, 'redocly.yaml'), 'utf8'));
  const apis = config.get('apis');
  if (!isMap(apis)) throw new Error('redocly.yaml: `apis` is not a map');
  for (const name of apis.items.map((item) => String(item.key))) if (!services.includes(name)) apis.delete(name);
  writeFileSync(file, config.toString());
  return copy;
}
