import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { listFiles } from '../project.js';
import type { CatalogueEntry } from './catalogue.js';
import type { SourceLocation } from './source.js';

export type HandlerAnswer = (SourceLocation & { note?: string }) | { note: string };

/** The project's TypeScript files, read once each. */
export class CodeFiles {
  private readonly texts = new Map<string, string[]>();

  constructor(readonly root: string) {}

  /** The `.ts` files below `dir` (relative to the root), relative to the root. */
  under(dir: string): string[] {
    const absolute = path.join(this.root, dir);
    if (!existsSync(absolute)) return [];
    return listFiles(absolute)
      .filter((file) => file.endsWith('.ts'))
      .map((file) => path.relative(this.root, file).split(path.sep).join('/'));
  }

  lines(file: string): string[] {
    let lines = this.texts.get(file);
    if (!lines) {
      lines = readFileSync(path.join(this.root, file), 'utf8').split('\n');
      this.texts.set(file, lines);
    }
    return lines;
  }
}

/** The development controls' handler map is part of the shared server code, not a service folder. */
const handlerHomes: Record<string, string> = { 'stub-controls': 'server-stubs/lib/controls.ts' };

/**
 * The handler of an operation: the entry keyed by its operationId in a handler map of
 * `server-stubs/<slug>/` (mail keeps one `handlers/` folder per domain). A service without an
 * `app.ts` is served from its contract alone, and so is an operation its service has no handler
 * for; an alias without a handler of its own is served by its twin's.
 */
export function handlerOf(code: CodeFiles, entry: CatalogueEntry): HandlerAnswer {
  const { slug } = entry.service;
  const home = handlerHomes[slug];
  if (!home && !['app.ts', 'app.js'].some((name) => existsSync(path.join(code.root, 'server-stubs', slug, name)))) {
    return { note: `served from its contract alone (no server-stubs/${slug}/app.ts)` };
  }
  const files = home ? [home] : code.under(`server-stubs/${slug}`);
  const own = handlerMapEntry(code, files, entry.operation.id);
  if (own) return own;
  const twin: unknown = entry.operation.op['x-alias-of'];
  const twins = typeof twin === 'string' ? handlerMapEntry(code, files, twin) : undefined;
  if (twins) return { ...twins, note: `served by its twin ${String(twin)}'s handler (x-alias-of)` };
  return { note: `served from its contract alone (no handler for ${entry.operation.id} in server-stubs/${slug}/)` };
}

/** The line keying `operationId` in a handler map (`sendEmail: (…) =>`, `async sendEmail(…)`); a `handlers/` file wins over a store's method of the same name. */
function handlerMapEntry(code: CodeFiles, files: string[], operationId: string): SourceLocation | undefined {
  const key = new RegExp(`^\\s*(async\\s+)?(['"]?)${escapeRegExp(operationId)}\\2\\s*[:(]`);
  const hits = files.flatMap((file) => {
    const index = code.lines(file).findIndex((line) => key.test(line));
    return index < 0 ? [] : [{ file, line: index + 1 }];
  });
  return hits.find((hit) => hit.file.includes('/handlers/')) ?? hits.find((hit) => hit.file.endsWith('controls.ts')) ?? hits[0];
}

/** The tests that mention the operation: its operationId, or its route as a client calls it. */
export function testsOf(code: CodeFiles, entry: CatalogueEntry): string[] {
  const id = new RegExp(`\\b${escapeRegExp(entry.operation.id)}\\b`);
  const served = routePattern(entry.servedPath);
  // Within the service's own tests the route may be written without the base path.
  const own = routePattern(entry.operation.path);
  const ownDir = `test/${entry.service.slug}/`;
  return code
    .under('test')
    .filter((file) => {
      const text = code.lines(file).join('\n');
      return id.test(text) || served.test(text) || (file.startsWith(ownDir) && own.test(text));
    })
    .sort();
}

/** A route as it appears in test source: each `{param}` any segment (a literal or `${…}`), not inside a longer path. */
function routePattern(route: string): RegExp {
  const body = route
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '(?:\\$\\{[^}]*\\}|[^/\'"`\\s?]+)' : escapeRegExp(part)))
    .join('');
  return new RegExp(`(?<![\\w-])${body}(?![\\w/{$-])`);
}

/** The line of `operations['<id>']` in `generated/<slug>/types.gen.ts`. */
export function typesOf(code: CodeFiles, entry: CatalogueEntry): SourceLocation | undefined {
  const file = `generated/${entry.service.slug}/types.gen.ts`;
  if (!existsSync(path.join(code.root, file))) return undefined;
  const lines = code.lines(file);
  const start = lines.findIndex((line) => line.startsWith('export interface operations {'));
  if (start < 0) return undefined;
  const key = new RegExp(`^ {4}(["']?)${escapeRegExp(entry.operation.id)}\\1: \\{`);
  const index = lines.findIndex((line, i) => i > start && key.test(line));
  return index < 0 ? undefined : { file, line: index + 1 };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
