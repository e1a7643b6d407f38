/**
 * A value of a schema for a document that gives no example: openapi-sampler, as Redoc renders one, so
 * the stub answers what the reference docs show.
 */
import { sample } from 'openapi-sampler';
import type { JSONSchema7 } from 'json-schema';
import { deref, type JsonNode } from '../../scripts/lib/operations.js';

export interface SampleOptions {
  /** an answer leaves out `writeOnly` properties, a request `readOnly` ones */
  direction: 'response' | 'request';
  /** an XML text instead of a value */
  xml?: boolean;
}

/** The sample, or undefined where the schema has none (no schema, or one the sampler cannot walk). */
export function sampleOf(document: JsonNode, schema: unknown, options: SampleOptions): unknown {
  if (schema === undefined || schema === null || typeof schema !== 'object') return undefined;
  try {
    return sample(schema as JSONSchema7, {
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
