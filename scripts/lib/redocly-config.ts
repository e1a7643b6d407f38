import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ApiService } from './project.js';

/**
 * Makes sure redocly.yaml lists every discovered service under `apis:`, so the one configuration
 * stays complete while adding a service is only adding its folder. Comments and order are kept.
 * Returns the slugs it registered.
 */
export async function registerApis(root: string, services: ApiService[]): Promise<string[]> {
  const file = path.join(root, 'redocly.yaml');
  const { parseDocument, isMap } = await import('yaml');
  const doc = parseDocument(readFileSync(file, 'utf8'));
  if (!isMap(doc.get('apis'))) doc.set('apis', doc.createNode({}));
  const apis = doc.get('apis');
  if (!isMap(apis)) throw new Error('redocly.yaml: `apis` must be a map');
  const registered: string[] = [];
  for (const service of services) {
    if (apis.has(service.slug)) continue;
    apis.set(service.slug, doc.createNode({ root: path.relative(root, service.root).split(path.sep).join('/') }));
    registered.push(service.slug);
  }
  if (registered.length > 0) writeFileSync(file, doc.toString());
  return registered;
}

/**
 * Registers one API under `apis:` with its root and its own `extends` (an imported document's lint
 * profile), keeping the file's comments and order.
 */
export async function registerApi(root: string, slug: string, apiRoot: string, profile: string[]): Promise<void> {
  const file = path.join(root, 'redocly.yaml');
  const { parseDocument, isMap } = await import('yaml');
  const doc = parseDocument(readFileSync(file, 'utf8'));
  if (!isMap(doc.get('apis'))) doc.set('apis', doc.createNode({}));
  const apis = doc.get('apis');
  if (!isMap(apis)) throw new Error('redocly.yaml: `apis` must be a map');
  if (apis.has(slug)) throw new Error(`redocly.yaml already lists ${slug}`);
  apis.set(slug, doc.createNode({ root: apiRoot, extends: profile }));
  writeFileSync(file, doc.toString());
}
