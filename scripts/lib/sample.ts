/**
 * Values built from an OpenAPI document's schemas where it gives no example: a request a client
 * could send, an error body in the declared shape. openapi-sampler (the sampler Redoc uses) does
 * the building; it follows `$ref`s through the document and stops at recursion.
 */
import OpenAPISampler from 'openapi-sampler';
import type { JsonNode } from './operations.js';

export type SampleDirection = 'request' | 'response';

/**
 * A value of `schema`, or `found: false` when the sampler cannot make one. `document` should be the
 * schema view (scripts/lib/schema-view.ts), whose patterns JavaScript can compile: the sampler
 * builds strings from them.
 */
export function sampleOf(document: JsonNode, schema: unknown, direction: SampleDirection, options: { requiredOnly?: boolean } = {}): { found: boolean; value?: unknown } {
  if (!schema || typeof schema !== 'object') return { found: false };
  try {
    const value = OpenAPISampler.sample(schema as Parameters<typeof OpenAPISampler.sample>[0], {
      // A request body gets only what is required: fewer optional oddities (a `default: null` on a
      // string) to get wrong.
      skipNonRequired: options.requiredOnly ?? direction === 'request',
      skipReadOnly: direction === 'request',
      skipWriteOnly: direction === 'response',
      quiet: true,
      enablePatterns: true,
    }, document);
    return value === undefined ? { found: false } : { found: true, value };
  } catch {
    // A schema the sampler trips on (it is best effort on odd compositions): no sample, not a crash.
    return { found: false };
  }
}
