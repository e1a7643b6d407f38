import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

/** A service with an OpenAPI document: openapi/<slug>/openapi.yaml. */
export interface ApiService {
  slug: string;
  root: string; // absolute path of the root document (openapi.yaml for the platform's own)
  /** the `extends` of its redocly.yaml entry (`['platform/imported']` for a document brought in), if it has one */
  profile?: string[];
}

/** Whether a service is a document the platform did not write, held to OpenAPI validity only (DECISIONS I-1). */
export const isImported = (service: ApiService) => service.profile?.includes('platform/imported') === true;

/** A folder of standalone JSON Schema files: schemas/<slug>/*.json. */
export interface SchemaSet {
  slug: string;
  dir: string;
  files: string[]; // absolute paths, sorted
}

/**
 * The services: every `openapi/<slug>/openapi.yaml`, and every API of redocly.yaml whose root is a
 * file of any name in `openapi/<name>/` (a document brought in by `npm run add-service` keeps its
 * own root's name: `openapi/petstore/petstore.json`).
 */
export function findApiServices(root: string): ApiService[] {
  const dir = path.join(root, 'openapi');
  if (!existsSync(dir)) return [];
  const found = new Map<string, string>();
  for (const slug of readdirSync(dir)) {
    if (existsSync(path.join(dir, slug, 'openapi.yaml'))) found.set(slug, path.join(dir, slug, 'openapi.yaml'));
  }
  const registered = registeredApis(root);
  for (const [slug, api] of Object.entries(registered)) {
    const absolute = path.resolve(root, api.root);
    if (!found.has(slug) && path.dirname(path.relative(dir, absolute)).split(path.sep)[0] === slug && existsSync(absolute)) found.set(slug, absolute);
  }
  return [...found]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([slug, file]) => ({ slug, root: file, ...(registered[slug]?.extends && { profile: registered[slug].extends }) }));
}

/** `apis.<name>` of redocly.yaml (its root, and its own `extends` if any), by name; none when the file is missing or unreadable. */
function registeredApis(root: string): Record<string, { root: string; extends?: string[] }> {
  const file = path.join(root, 'redocly.yaml');
  if (!existsSync(file)) return {};
  try {
    const apis = (parseYaml(readFileSync(file, 'utf8')) as { apis?: Record<string, { root?: unknown; extends?: unknown }> } | null)?.apis ?? {};
    return Object.fromEntries(
      Object.entries(apis).flatMap(([name, api]) =>
        typeof api?.root === 'string' ? [[name, { root: api.root, ...(Array.isArray(api.extends) && { extends: api.extends.map(String) }) }]] : [],
      ),
    );
  } catch {
    return {};
  }
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
