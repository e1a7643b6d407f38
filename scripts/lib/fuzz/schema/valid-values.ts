/** Values a schema accepts, one generator per JSON type; `valid` in arbitraries.ts picks among them. */
import fc from 'fast-check';
import type { SchemaNode } from '../../../../server-stubs/lib/openapi/json-schema.js';
import { scalarString, webUrl } from '../scalar-strings.js';
import { examplesOf, MAX_DEPTH, mergeSchemas, typesOf, type SchemaWalk } from './walk.js';

/** Mostly this century; sometimes anywhere RFC 3339 can write (years 1 to 9999), its last instant included. */
const dates = fc.oneof(
  { arbitrary: fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }), weight: 6 },
  { arbitrary: fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }), weight: 1 },
  { arbitrary: fc.constant(new Date('9999-12-31T23:59:59.999Z')), weight: 1 },
);

/** A resolved schema's values: its `const` or `enum`, one of its alternatives, else one of its types. */
export function validOf(walk: SchemaWalk, s: SchemaNode, depth: number): fc.Arbitrary<unknown> {
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...s.enum);
  const alternatives = s.oneOf ?? s.anyOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    const { oneOf: _o, anyOf: _a, ...base } = s;
    return fc.oneof(...alternatives.map((alt) => validOf(walk, mergeSchemas(base, walk.resolve(alt)), depth + 1)));
  }
  if (depth > MAX_DEPTH) return fc.constant(null);
  const types = typesOf(s);
  if (types.length === 0) return fc.jsonValue({ maxDepth: 1 });
  return fc.oneof(...types.map((type) => validOfType(walk, s, type, depth)));
}

function validOfType(walk: SchemaWalk, s: SchemaNode, type: string, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number':
      return validNumber(s, type === 'integer');
    case 'string':
      return validString(s);
    case 'array':
      return validArray(walk, s, depth);
    case 'object':
      return validObject(walk, s, depth);
    default:
      return fc.constant(null);
  }
}

/** minimum, maximum, exclusiveMinimum/Maximum (2020-12's numbers) and multipleOf. */
function validNumber(s: SchemaNode, integer: boolean): fc.Arbitrary<number> {
  const step = integer ? 1 : 0;
  const min = s.minimum ?? (typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + step : -1_000_000);
  const max = s.maximum ?? (typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum - step : Math.max(min, 0) + 1_000_000);
  if (typeof s.multipleOf === 'number' && s.multipleOf > 0) {
    const m = s.multipleOf;
    const lo = Math.ceil(min / m);
    const hi = Math.max(lo, Math.floor(max / m));
    return fc.integer({ min: lo, max: hi }).map((k) => Number((k * m).toPrecision(12)));
  }
  // The bounds themselves, often: off-by-one and overflow bugs live there.
  const bounds = [s.minimum, s.maximum].filter((b): b is number => typeof b === 'number');
  const withBounds = (arb: fc.Arbitrary<number>) => (bounds.length ? fc.oneof({ arbitrary: fc.constantFrom(...bounds), weight: 1 }, { arbitrary: arb, weight: 3 }) : arb);
  if (integer) return withBounds(fc.integer({ min: Math.ceil(min), max: Math.floor(Math.max(min, max)) }));
  return withBounds(
    fc.oneof(
      fc.integer({ min: Math.ceil(min), max: Math.floor(Math.max(min, max)) }),
      fc.double({
        min,
        max: Math.max(min, max),
        noNaN: true,
        noDefaultInfinity: true,
        minExcluded: typeof s.exclusiveMinimum === 'number',
        maxExcluded: typeof s.exclusiveMaximum === 'number',
      }),
    ),
  );
}

/** minLength, maxLength, format, pattern, and the schema's examples. */
function validString(s: SchemaNode): fc.Arbitrary<string> {
  const minLength = s.minLength ?? 0;
  const maxLength = Math.min(s.maxLength ?? minLength + 24, minLength + 40);
  const examples = examplesOf(s).filter((e): e is string => typeof e === 'string');
  const regex = typeof s.pattern === 'string' ? safeRegExp(s.pattern) : undefined;
  const byFormat = typeof s.format === 'string' ? formatted(s.format) : undefined;
  if (byFormat) {
    // Format and pattern together (`uri` that must start `https://`): keep the formatted value
    // when it also matches, else an example of the schema; ajv has the last word.
    const fitted = regex ? byFormat.map((v) => (regex.test(v) ? v : (examples[0] ?? v))) : byFormat;
    return examples.length ? fc.oneof({ arbitrary: fitted, weight: 3 }, fc.constantFrom(...examples)) : fitted;
  }
  if (typeof s.pattern === 'string') {
    const matching = matchingPattern(s.pattern);
    if (matching) {
      const sized = matching.map((v) => (v.length > (s.maxLength ?? Infinity) ? v.slice(0, s.maxLength) : v));
      return examples.length ? fc.oneof({ arbitrary: sized, weight: 3 }, fc.constantFrom(...examples)) : sized;
    }
    if (examples.length) return fc.constantFrom(...examples);
  }
  return fc.oneof(
    { arbitrary: fc.string({ minLength, maxLength }), weight: 4 },
    // Any code point is a valid JSON Schema string too (length counts code points).
    { arbitrary: scalarString({ minLength, maxLength }), weight: 1 },
  );
}

/** One generator per format, for the reason given at `matchingPatterns`: fast-check's email, URL and domain generators are costly to build. */
const formattedGenerators = new Map<string, fc.Arbitrary<string> | undefined>();

function formatted(format: string): fc.Arbitrary<string> | undefined {
  if (!formattedGenerators.has(format)) formattedGenerators.set(format, generatorForFormat(format));
  return formattedGenerators.get(format);
}

function generatorForFormat(format: string): fc.Arbitrary<string> | undefined {
  switch (format) {
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.emailAddress();
    case 'uri':
    case 'url':
      return webUrl;
    case 'hostname':
      return fc.domain();
    case 'date-time':
      return dates.map((d) => d.toISOString());
    case 'date':
      return dates.map((d) => d.toISOString().slice(0, 10));
    default:
      return undefined;
  }
}

/**
 * One generator per pattern: many schemas share one, every contract run builds its families again,
 * and fast-check prepares a new `stringMatching` generator's character classes each time, the
 * costliest step of generating a request. A generator holds no state, so one serves every schema.
 */
const matchingPatterns = new Map<string, fc.Arbitrary<string> | undefined>();

function matchingPattern(pattern: string): fc.Arbitrary<string> | undefined {
  if (matchingPatterns.has(pattern)) return matchingPatterns.get(pattern);
  let matching: fc.Arbitrary<string> | undefined;
  try {
    matching = fc.stringMatching(new RegExp(pattern));
  } catch {
    matching = undefined; // a regex feature stringMatching does not support: fall back to plain strings
  }
  matchingPatterns.set(pattern, matching);
  return matching;
}

function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

/** items, minItems, maxItems, uniqueItems. */
function validArray(walk: SchemaWalk, s: SchemaNode, depth: number): fc.Arbitrary<unknown[]> {
  const minLength = s.minItems ?? 0;
  const maxLength = Math.min(s.maxItems ?? minLength + 4, minLength + 4);
  const item = walk.valid(s.items ?? {}, depth + 1);
  return s.uniqueItems ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) }) : fc.array(item, { minLength, maxLength });
}

/** properties (a caller's own values for some), required, additionalProperties, minProperties. */
function validObject(walk: SchemaWalk, s: SchemaNode, depth: number): fc.Arbitrary<unknown> {
  // A request leaves `readOnly` properties out, and their `required` holds for answers only (OpenAPI 3.0 §4.7.25.1).
  const properties = Object.fromEntries(Object.entries(s.properties ?? {}).filter(([, sub]) => walk.resolve(sub).readOnly !== true));
  const required = new Set((s.required ?? []).filter((key) => !(key in (s.properties ?? {})) || key in properties));
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, sub] of Object.entries(properties)) {
    const own = walk.propertyHook?.(key, walk.resolve(sub));
    model[key] = own ? fc.oneof(own, walk.valid(sub, depth + 1)) : walk.valid(sub, depth + 1);
  }
  for (const key of required) if (!(key in model)) model[key] = fc.jsonValue({ maxDepth: 1 });
  const keys = Object.keys(model);
  const minProperties = s.minProperties ?? 0;
  if (keys.length === 0) {
    const extra = s.additionalProperties && typeof s.additionalProperties === 'object' ? walk.valid(s.additionalProperties, depth + 1) : fc.jsonValue({ maxDepth: 1 });
    return fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), extra, { minKeys: minProperties, maxKeys: Math.max(minProperties, 3) });
  }
  const record = fc.record(model, { requiredKeys: [...required] });
  // Optional keys appear about half of the time, so this filter passes often.
  return minProperties > required.size && keys.length >= minProperties ? record.filter((o) => Object.keys(o).length >= minProperties) : record;
}
