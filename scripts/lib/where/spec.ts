import path from 'node:path';
import { isMap } from 'yaml';
import type { CatalogueEntry } from './catalogue.js';
import { SourceFiles, type SourceLocation } from './source.js';

/** Where an operation is written: the `get:`/`post:` line of its path item in the source, not the bundle. */
export interface SpecAnswer extends SourceLocation {
  /** set when the operation is written by a bundle decorator rather than in a source file */
  note?: string;
  /** the source of the operation object, for the schema walk */
  pointer: string[];
}

export interface SchemaAnswer extends SourceLocation {
  name: string;
}

/**
 * The operation's source. An alias (`x-alias-of`) has none of its own: the `platform/path-aliases`
 * decorator writes it from its twin at bundle time, so the answer is the twin's source and says so.
 */
export function specOf(sources: SourceFiles, entry: CatalogueEntry, entries: CatalogueEntry[]): SpecAnswer | undefined {
  const written = writtenAt(sources, entry);
  if (written) return written;
  const twinId: unknown = entry.operation.op['x-alias-of'];
  const twin = entries.find((other) => other.service.slug === entry.service.slug && other.operation.id === twinId);
  const twinWritten = twin && writtenAt(sources, twin);
  if (!twinWritten) return undefined;
  const declared = sources.find(entry.service.root, ['x-path-aliases']);
  const where = declared ? ` (${sources.relative(entry.service.root)}:${declared.line})` : '';
  return { ...twinWritten, note: `an alias of ${String(twinId)}, written from it at bundle time by x-path-aliases${where}` };
}

function writtenAt(sources: SourceFiles, entry: CatalogueEntry): SpecAnswer | undefined {
  const { root } = entry.service;
  const { path: route, method } = entry.operation;
  const item = sources.find(root, ['paths', route]);
  if (!item) return undefined;
  const ref = isMap(item.node) ? item.node.get('$ref') : undefined;
  const target = typeof ref === 'string' ? SourceFiles.resolveRef(root, ref) : { file: root, pointer: ['paths', route] };
  const pointer = [...target.pointer, method];
  const operation = sources.find(target.file, pointer);
  return operation && { file: sources.relative(target.file), line: operation.line, pointer };
}

/**
 * The named schemas the operation uses directly (its parameters', bodies' and responses'), found by
 * following its `$ref`s through responses, parameters and request bodies until a schema: a file under
 * a `schemas` folder or a `components/schemas` entry. What those schemas use in turn is theirs.
 */
export function schemasOf(sources: SourceFiles, spec: SpecAnswer): SchemaAnswer[] {
  const found = new Map<string, SchemaAnswer>();
  const visited = new Set<string>();
  const visit = (file: string, pointer: string[]) => {
    const key = `${file}#${pointer.join('/')}`;
    if (visited.has(key)) return;
    visited.add(key);
    const node = sources.find(file, pointer)?.node;
    if (!node) return;
    forEachRef(node.toJSON(), (ref) => {
      const target = SourceFiles.resolveRef(file, ref);
      const kind = refKind(target);
      if (kind === 'schema') {
        const name = target.pointer.at(-1) ?? path.basename(target.file).replace(/\.(ya?ml|json)$/, '');
        const line = target.pointer.length > 0 ? (sources.find(target.file, target.pointer)?.line ?? 1) : 1;
        found.set(`${target.file}#${name}`, { name, file: sources.relative(target.file), line });
      } else if (kind === 'follow') visit(target.file, target.pointer);
    });
  };
  visit(path.resolve(sources.root, spec.file), spec.pointer);
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function refKind({ file, pointer }: { file: string; pointer: string[] }): 'schema' | 'example' | 'follow' {
  const section = pointer.length > 0 ? pointer[pointer.length - 2] : path.basename(path.dirname(file));
  if (section === 'schemas' || (pointer.length === 0 && /\.json$/.test(file) && file.includes(`${path.sep}schemas${path.sep}`))) return 'schema';
  return section === 'examples' ? 'example' : 'follow';
}

function forEachRef(value: unknown, onRef: (ref: string) => void): void {
  if (Array.isArray(value)) for (const item of value) forEachRef(item, onRef);
  else if (value && typeof value === 'object') {
    for (const [key, member] of Object.entries(value)) {
      if (key === '$ref' && typeof member === 'string') onRef(member);
      else forEachRef(member, onRef);
    }
  }
}
