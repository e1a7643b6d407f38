import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const twoUp = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The repository root: scripts/lib/ is two levels below it, and two more in the compiled mirror (.cache/js/). */
export const defaultRoot = path.basename(twoUp) === 'js' && path.basename(path.dirname(twoUp)) === '.cache' ? path.resolve(twoUp, '../..') : twoUp;

/** A service with an OpenAPI document: openapi/<slug>/openapi.yaml. */
export interface ApiService {
  slug: string;
  root: string; // absolute path of openapi.yaml
}

/** A folder of standalone JSON Schema files: schemas/<slug>/*.json. */
export interface SchemaSet {
  slug: string;
  dir: string;
  files: string[]; // absolute paths, sorted
}

export function findApiServices(root: string): ApiService[] {
  const dir = path.join(root, 'openapi');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((slug) => existsSync(path.join(dir, slug, 'openapi.yaml')))
    .sort()
    .map((slug) => ({ slug, root: path.join(dir, slug, 'openapi.yaml') }));
}

/** `*.openrpc.json` and other documents that live beside the schemas are not schemas. */
export function isSchemaFile(name: string): boolean {
  return name.endsWith('.json') && !/\.(openrpc|openapi)\.json$/.test(name);
}

export function findSchemaSets(root: string): SchemaSet[] {
  const dir = path.join(root, 'schemas');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((slug) => statSync(path.join(dir, slug)).isDirectory())
    .sort()
    .map((slug) => {
      const setDir = path.join(dir, slug);
      const files = readdirSync(setDir).filter(isSchemaFile).sort().map((f) => path.join(setDir, f));
      return { slug, dir: setDir, files };
    })
    .filter((set) => set.files.length > 0);
}

/** Every file below `dir`, recursively, sorted, as absolute paths. */
export function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(full));
    else out.push(full);
  }
  return out.sort();
}

/** camelCase/PascalCase name of a slug: `chain-rpc` -> `ChainRpc`. */
export function pascalCase(slug: string): string {
  return slug
    .split(/[^a-zA-Z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
