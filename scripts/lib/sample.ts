/**
 * Transitional: the sampler is server-stubs/lib/schema-sample.ts. This keeps the old name and
 * signature for callers being changed on another branch (mock/errors.ts); remove it when they move.
 */
import { sampleOf as sample } from '../../server-stubs/lib/schema-sample.js';
import type { JsonNode } from './operations.js';

export type SampleDirection = 'request' | 'response';

/** @deprecated use `sampleOf` of server-stubs/lib/schema-sample.ts */
export function sampleOf(document: JsonNode, schema: unknown, direction: SampleDirection, options: { requiredOnly?: boolean } = {}): { found: boolean; value?: unknown } {
  const value = sample(document, schema, { direction, requiredOnly: options.requiredOnly ?? direction === 'request' });
  return value === undefined ? { found: false } : { found: true, value };
}
