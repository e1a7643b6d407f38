/**
 * The one schema sampler of the toolkit: a value of a schema for a document that gives no example,
 * by openapi-sampler as Redoc renders one, so the stub answers what the reference docs show and a
 * client (the runner, the fuzzer, the tests' requests) sends what a reader of those docs would.
 * `document` should be the schema view (`schemaView` of server-stubs/lib/compilable-document.ts) where the document's patterns
 * are not JavaScript's: the sampler builds strings from them.
 */
import { sample } from 'openapi-sampler';
import type { JSONSchema7 } from 'json-schema';
import type { HeaderObject, MediaTypeObject, OpenAPI3, ParameterObject } from 'openapi-typescript';
import { deref, type JsonDocument } from './openapi/document.js';

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
export function sampleOf(document: JsonDocument, schema: unknown, options: SampleOptions): unknown {
  if (schema === undefined || schema === null || typeof schema !== 'object') return undefined;
  const sampled = (of: unknown) =>
    sample(of as JSONSchema7, {
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
  try {
    const value = sampled(schema);
    // openapi-sampler writes a group of alternatives (`^(0|[1-9][0-9]*|unlimited)$`) as its literal
    // text. For a string schema (a header's, a parameter's) whose sample misses its own pattern, the
    // pattern's first alternatives are sampled instead, kept only where they pass it.
    const resolved: unknown = deref(document, schema);
    if (typeof value !== 'string' || !resolved || typeof resolved !== 'object' || !('pattern' in resolved) || typeof resolved.pattern !== 'string') return value;
    const pattern = compiled(resolved.pattern);
    if (!pattern || pattern.test(value)) return value;
    const retried = sampled({ ...resolved, pattern: firstAlternatives(resolved.pattern) });
    return typeof retried === 'string' && pattern.test(retried) ? retried : value;
  } catch {
    // A schema the sampler trips on (it is best effort on odd compositions): no sample, not a crash.
    return undefined;
  }
}

function compiled(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

/** The pattern with each alternation reduced to its first branch, groups opened and lookarounds dropped: what the sampler can read. */
export function firstAlternatives(pattern: string): string {
  let i = 0;
  const branch = (): string => {
    const found = [''];
    while (i < pattern.length && pattern[i] !== ')') {
      const c = pattern[i]!;
      if (c === '|') {
        found.push('');
        i++;
        continue;
      }
      if (c !== '(') {
        const piece = c === '\\' ? pattern.slice(i, i + 2) : c === '[' ? pattern.slice(i, classEnd(pattern, i)) : c;
        found[found.length - 1] += piece;
        i += piece.length;
        continue;
      }
      i++;
      const prefix = /^\?(?::|<[A-Za-z_$][\w$]*>|<?[=!])/.exec(pattern.slice(i))?.[0] ?? '';
      i += prefix.length;
      const inner = branch();
      i++;
      if (!/[=!]$/.test(prefix)) found[found.length - 1] += inner;
    }
    return found[0]!;
  };
  let out = '';
  // A stray `)` closes nothing: the rest is read on.
  for (; i < pattern.length; i++) out += branch();
  return out;
}

/** Where the character class opening at `start` ends (after its `]`). */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++;
  for (; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === ']') return i + 1;
  }
  return pattern.length;
}

/**
 * The examples a media type (or parameter) offers, best first: the named one asked for, its named
 * examples in order, its `example`, its schema's `examples` and `example`. `externalValue`s are not fetched.
 */
export function declaredExamples(document: OpenAPI3, media: MediaTypeObject | ParameterObject | HeaderObject | undefined, named?: string): unknown[] {
  if (!media) return [];
  const out: unknown[] = [];
  const examples: Record<string, unknown> = media.examples && typeof media.examples === 'object' && !Array.isArray(media.examples) ? media.examples : {};
  const entries = Object.entries(examples);
  if (named !== undefined) entries.sort(([a], [b]) => Number(b === named) - Number(a === named));
  for (const [, example] of entries) {
    const resolved: unknown = deref(document, example);
    if (resolved && typeof resolved === 'object' && 'value' in resolved) out.push(resolved.value);
  }
  if ('example' in media) out.push(media.example);
  const schema: unknown = deref(document, media.schema);
  if (schema && typeof schema === 'object') {
    if ('examples' in schema && Array.isArray(schema.examples)) out.push(...(schema.examples as unknown[]));
    if ('example' in schema) out.push(schema.example);
  }
  return out;
}
