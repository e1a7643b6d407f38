import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { OpenAPI3 } from 'openapi-typescript';
import { listOperations, mountPathOf, type Operation } from '../../../server-stubs/lib/openapi/document.js';
import { findApiServices, type ApiService } from '../project.js';

/** One operation of one service, as its bundle (`generated/<slug>/openapi.json`) holds it. */
export interface CatalogueEntry {
  service: ApiService;
  bundle: OpenAPI3;
  operation: Operation;
  /** the path a client calls: the service's base path joined to the operation's */
  servedPath: string;
}

/**
 * Every operation of every service. Read from the bundles because they hold what is served,
 * including what bundle decorators write (mail's `/api/v1/...` aliases are in no source file).
 */
export function operationCatalogue(root: string): CatalogueEntry[] {
  return findApiServices(root).flatMap((service) => {
    const file = path.join(root, 'generated', service.slug, 'openapi.json');
    if (!existsSync(file)) return [];
    const bundle = JSON.parse(readFileSync(file, 'utf8')) as OpenAPI3;
    const base = mountPathOf(service.slug, bundle).replace(/\/$/, '');
    return listOperations(bundle).map((operation) => ({ service, bundle, operation, servedPath: `${base}${operation.path}` }));
  });
}

/**
 * The operations a query names: an operationId (every service's, so a name two services share
 * answers twice), or `METHOD /path` with the path as a client calls it (`POST /mail/v1/send`, a
 * concrete `/blog/v1/articles/my-post` or the template) or as the contract writes it (`/v1/send`).
 */
export function lookUp(catalogue: CatalogueEntry[], query: string): CatalogueEntry[] {
  const route = /^([A-Za-z]+)\s+(\/\S*)$/.exec(query.trim());
  if (!route) return catalogue.filter((entry) => entry.operation.id === query.trim());
  const method = route[1]!.toLowerCase();
  const wanted = route[2]!.split('?')[0]!.replace(/(.)\/$/, '$1');
  const sameMethod = catalogue.filter((entry) => entry.operation.method === method);
  for (const exact of [true, false]) {
    const found = sameMethod.filter((entry) => [entry.servedPath, entry.operation.path].some((p) => (exact ? p === wanted : templateMatches(p, wanted))));
    if (found.length > 0) return found;
  }
  return [];
}

/** Whether a concrete path fills a path template (`/v1/drafts/{draftId}/publish`). */
function templateMatches(template: string, concrete: string): boolean {
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`).test(concrete);
}

/** Up to five names a mistyped query was probably meant to be: operationIds and routes, nearest first. */
export function closeMatches(catalogue: CatalogueEntry[], query: string): string[] {
  const wanted = query.trim().toLowerCase();
  const names = catalogue.flatMap((entry) => [entry.operation.id, `${entry.operation.method.toUpperCase()} ${entry.servedPath}`]);
  return [...new Set(names)]
    .map((name) => ({ name, score: name.toLowerCase().includes(wanted) ? 0 : editDistance(name.toLowerCase(), wanted) }))
    .filter(({ name, score }) => score <= Math.max(3, Math.floor(name.length / 3)))
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, 5)
    .map(({ name }) => name);
}

/** Levenshtein distance (the installed `leven` is only a transitive dependency, not one of ours). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
