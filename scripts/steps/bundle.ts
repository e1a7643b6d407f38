import path from 'node:path';
import type { OpenAPI3 } from 'openapi-typescript';
import type { ApiService } from '../lib/project.js';

export interface BundleOutput {
  document: OpenAPI3;
  /** Every file the bundle was made from (the root and all it references), absolute paths. */
  inputs: string[];
}

/**
 * Bundles a service's multi-file document into one: the single input of every later tool.
 *
 * Schemas from schemas/ carry `$id` so they stand alone; once inlined under components, a 2020-12
 * `$id` would make `#/components/...` references resolve against that `$id` instead of the document.
 * The platform plugin's `strip-schema-ids` preprocessor (redocly.yaml) drops them, for lint and
 * bundle alike.
 */
export async function bundleService(root: string, service: ApiService): Promise<BundleOutput> {
  const { loadConfig, bundle } = await import('@redocly/openapi-core');
  const config = await loadConfig({ configPath: path.join(root, 'redocly.yaml') });
  const { specificationResolver } = await import('../lib/redocly-resolver.js');
  const result = await bundle({ ref: service.root, config, dereference: false, removeUnusedComponents: false, externalRefResolver: await specificationResolver() });
  const errors = result.problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`bundle ${service.slug}: ${errors.map((e) => e.message).join('; ')}`);
  }
  const document = result.bundle.parsed as OpenAPI3;
  return { document, inputs: [service.root, ...result.fileDependencies].sort() };
}

export function stringifyBundle(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
