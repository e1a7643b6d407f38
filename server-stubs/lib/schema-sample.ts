/**
 * The one schema sampler of the toolkit: a value of a schema for a document that gives no example,
 * by openapi-sampler as Redoc renders one, so the stub answers what the reference docs show and a
 * client (the runner, the fuzzer, the tests' requests) sends what a reader of those docs would.
 * `document` should be the schema view (`schemaView` of server-stubs/lib/compilable-document.ts) where the document's patterns
 * are not JavaScript's: the sampler builds strings from them.
 */
import { sample } from 'openapi-sampler';
import type { JSONSchema7 } from 'json-schema';
import { deref, type JsonNode } from '../../scripts/lib/operations.js';

export interface SampleOptions {
  /** an answer leaves out `writeOnly` properties, a request `readOnly` ones */
  direction: 'response' | 'request';
  /** an XML text instead of a value */
  xml?: boolean;
  /**
   * only required properties: a JSON request body has fewer optional oddities (a `default: null`
   * on a string) to get wrong, while a form without a single field is no form
   */
  requiredOnly?: boolean;
}

/** The sample, or undefined where the schema has none (no schema, or one the sampler cannot walk). */
export function sampleOf(document: JsonNode, schema: unknown, options: SampleOptions): unknown {
  if (schema === undefined || schema === null || typeof schema !== 'object') return undefined;
  try {
    return sample(schema as JSONSchema7, {
      skipNonRequired: options.requiredOnly ?? false,
      skipReadOnly: options.direction === 'request',
      skipWriteOnly: options.direction === 'response',
      quiet: true,
      // Patterns give strings that pass the contract's own `pattern`s.
      enablePatterns: true,
      ...(options.xml ? { format: 'xml' as const } : {}),
      // Recursive schemas stop here.
      maxSampleDepth: 8,
    }, document);
  } catch {
    // A schema the sampler trips on (it is best effort on odd compositions): no sample, not a crash.
    return undefined;
  }
}

/**
 * The examples a media type (or parameter) offers, best first: the named one asked for, its named
 * examples in order, its `example`, its schema's `examples` and `example`. `externalValue`s are not fetched.
 */
export function declaredExamples(document: JsonNode, media: JsonNode | undefined, named?: string): unknown[] {
  if (!media) return [];
  const out: unknown[] = [];
  const examples: Record<string, unknown> = media.examples && typeof media.examples === 'object' && !Array.isArray(media.examples) ? media.examples : {};
  const entries = Object.entries(examples);
  if (named !== undefined) entries.sort(([a], [b]) => Number(b === named) - Number(a === named));
  for (const [, example] of entries) {
    const resolved = deref<JsonNode | undefined>(document, example);
    if (resolved && typeof resolved === 'object' && 'value' in resolved) out.push(resolved.value);
  }
  if ('example' in media) out.push(media.example);
  const schema = deref<JsonNode | undefined>(document, media.schema);
  if (schema && typeof schema === 'object') {
    if (Array.isArray(schema.examples)) out.push(...(schema.examples as unknown[]));
    if ('example' in schema) out.push(schema.example);
  }
  return out;
}
