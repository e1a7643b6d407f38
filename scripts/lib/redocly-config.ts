import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ApiService } from './project.js';

/** An API entry under `apis:`: its root, and its own `extends` (an imported document's lint profile). */
interface ApiEntry {
  slug: string;
  root: string;
  extends?: string[];
}

/**
 * Adds entries under redocly.yaml's `apis:`, keeping the file's comments and order; an entry whose
 * name is listed already is left as it is. Returns the names it added.
 */
async function addApis(root: string, entries: ApiEntry[]): Promise<string[]> {
  const file = path.join(root, 'redocly.yaml');
  const { parseDocument, isMap } = await import('yaml');
  const doc = parseDocument(readFileSync(file, 'utf8'));
  if (!isMap(doc.get('apis'))) doc.set('apis', doc.createNode({}));
  const apis = doc.get('apis');
  if (!isMap(apis)) throw new Error('redocly.yaml: `apis` must be a map');
  const added: string[] = [];
  for (const { slug, ...entry } of entries) {
    if (apis.has(slug)) continue;
    apis.set(slug, doc.createNode(entry));
    added.push(slug);
  }
  if (added.length > 0) writeFileSync(file, doc.toString());
  return added;
}

/**
 * Makes sure redocly.yaml lists every discovered service under `apis:`, so the one configuration
 * stays complete while adding a service is only adding its folder. Returns the slugs it registered.
 */
export function registerApis(root: string, services: ApiService[]): Promise<string[]> {
  return addApis(root, services.map((service) => ({ slug: service.slug, root: path.relative(root, service.root).split(path.sep).join('/') })));
}

/** Registers one API with its root and its own lint profile (`npm run add-service`). */
export async function registerApi(root: string, slug: string, apiRoot: string, profile: string[]): Promise<void> {
  const added = await addApis(root, [{ slug, root: apiRoot, extends: profile }]);
  if (added.length === 0) throw new Error(`redocly.yaml already lists ${slug}`);
}
