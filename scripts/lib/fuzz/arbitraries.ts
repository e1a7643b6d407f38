/**
 * JSON Schema → fast-check: `valid(schema)` generates values the schema accepts (best effort: the
 * callers check the result with ajv before calling a request valid), `invalid(schema)` generates
 * values broken in one place, saying how (`wrong type`, `missing required`, ...).
 *
 * Only the keywords the contracts use are interpreted (type, const, enum, properties, required,
 * minProperties, items, min/maxItems, uniqueItems, min/maxLength, pattern, format, minimum,
 * maximum, exclusiveMinimum/Maximum, multipleOf, oneOf, anyOf, allOf); anything else is left to
 * the ajv check. Everything is built from fast-check combinators, so values shrink.
 */
import fc from 'fast-check';
import type { JsonNode } from '../../../server-stubs/lib/openapi/document.js';

export type JsonSchema = JsonNode;
/** Follows one `$ref` (OpenAPI `#/...` or a schema file name); undefined when it cannot. */
export type RefResolver = (ref: string) => JsonSchema | undefined;

/**
 * A raw JSON token spliced into the encoded body where JSON.stringify cannot write it: `1e309`
 * (parses to Infinity), `-1e309`, `NaN` (not JSON at all).
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** `times` copies of `item` as a JSON array, or `times` copies of a character as a string: oversized values that stay small until sent. */
export class Repeat {
  constructor(
    readonly item: unknown,
    readonly times: number,
    readonly asString = false,
  ) {}
}

export type MutationKind =
  | 'wrong type'
  | 'missing required'
  | 'out of range'
  | 'non-finite number'
  | 'oversized'
  | 'not in enum'
  | 'bad format';

export interface Mutant {
  value: unknown;
  mutation: MutationKind;
  /** JSON pointer of the broken place */
  at: string;
  /** the schema bounds what was broken, so the value is invalid even where it is too big to check */
  certain: boolean;
}

const MAX_DEPTH = 6;

/** Mostly this century; sometimes anywhere RFC 3339 can write (years 1 to 9999), its last instant included. */
const dates = fc.oneof(
  { arbitrary: fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }), weight: 6 },
  { arbitrary: fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }), weight: 1 },
  { arbitrary: fc.constant(new Date('9999-12-31T23:59:59.999Z')), weight: 1 },
);

/** Strings a careful server must survive: NUL, lone surrogates, bidi overrides, zero-width and combining characters, BOM, U+FFFF, line separators. */
export const nastyStrings = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\u202egnp.exe',
  'zero\u200bwidth',
  '\ufeffbom',
  'e\u0301\u0301\u0301',
  '\uffff\ufffe',
  'line\u2028sep\u2029',
  '𝕏🧪👩‍👩‍👧',
  '\u001b[31mred',
  '%00%2e%2e',
  "'\"\\`",
  '<script>alert(1)</script>',
  '${7*7}{{7*7}}',
];

export function nastyString(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...nastyStrings),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
    fc.tuple(fc.constantFrom(...nastyStrings), fc.string({ maxLength: 6 })).map(([a, b]) => `${b}${a}${b}`),
  );
}

export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Lets a caller offer its own values for a named property (ids that exist on the server). */
export type PropertyHook = (name: string, schema: JsonSchema) => fc.Arbitrary<unknown> | undefined;

export function createSchemaArbitraries(resolveRef: RefResolver, propertyHook?: PropertyHook) {
  /** The schema with its `$ref` followed (siblings kept) and `allOf` merged: what the generators read. */
  function resolve(schema: unknown, seen: Set<string> = new Set()): JsonSchema {
    if (!schema || typeof schema !== 'object') return {};
    let s = schema as JsonSchema;
    for (let hops = 0; typeof s.$ref === 'string' && hops < 20; hops++) {
      if (seen.has(s.$ref)) return {};
      const target = resolveRef(s.$ref);
      const { $ref: _ref, ...siblings } = s;
      s = { ...(target ?? {}), ...siblings };
    }
    if (Array.isArray(s.allOf)) {
      const { allOf, ...rest } = s;
      s = (allOf as unknown[]).map((part) => resolve(part, seen)).reduce(merge, rest);
    }
    return s;
  }

  function merge(a: JsonSchema, b: JsonSchema): JsonSchema {
    return {
      ...a,
      ...b,
      properties: { ...(a.properties ?? {}), ...(b.properties ?? {}) },
      required: [...new Set([...(a.required ?? []), ...(b.required ?? [])])],
    };
  }

  function typesOf(s: JsonSchema): string[] {
    if (Array.isArray(s.type)) return s.type as string[];
    if (typeof s.type === 'string') return [s.type];
    if (s.properties || s.required || s.additionalProperties !== undefined) return ['object'];
    if (s.items) return ['array'];
    if (s.pattern || s.format || s.minLength !== undefined) return ['string'];
    if (s.minimum !== undefined || s.maximum !== undefined) return ['number'];
    return [];
  }

  function examplesOf(s: JsonSchema): unknown[] {
    return [...(Array.isArray(s.examples) ? s.examples : []), ...('example' in s ? [s.example] : [])];
  }

  const cache = new WeakMap<object, fc.Arbitrary<unknown>>();

  /** Values the schema accepts, as far as the keywords above go. */
  function valid(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
    if (schema && typeof schema === 'object' && depth === 0) {
      const hit = cache.get(schema);
      if (hit) return hit;
      const built = buildValid(resolve(schema), depth);
      cache.set(schema, built);
      return built;
    }
    return buildValid(resolve(schema), depth);
  }

  function buildValid(s: JsonSchema, depth: number): fc.Arbitrary<unknown> {
    if ('const' in s) return fc.constant(s.const);
    if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...(s.enum as unknown[]));
    const alternatives = (s.oneOf ?? s.anyOf) as unknown[] | undefined;
    if (Array.isArray(alternatives) && alternatives.length > 0) {
      const { oneOf: _o, anyOf: _a, ...base } = s;
      return fc.oneof(...alternatives.map((alt) => buildValid(merge(base, resolve(alt)), depth + 1)));
    }
    if (depth > MAX_DEPTH) return fc.constant(null);
    const types = typesOf(s);
    if (types.length === 0) return fc.jsonValue({ maxDepth: 1 });
    return fc.oneof(...types.map((type) => validOfType(s, type, depth)));
  }

  function validOfType(s: JsonSchema, type: string, depth: number): fc.Arbitrary<unknown> {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
      case 'number':
        return numberArb(s, type === 'integer');
      case 'string':
        return stringArb(s);
      case 'array': {
        const minLength = s.minItems ?? 0;
        const maxLength = Math.min(s.maxItems ?? minLength + 4, minLength + 4);
        const item = valid(s.items ?? {}, depth + 1);
        return s.uniqueItems
          ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
          : fc.array(item, { minLength, maxLength });
      }
      case 'object':
        return objectArb(s, depth);
      default:
        return fc.constant(null);
    }
  }

  function numberArb(s: JsonSchema, integer: boolean): fc.Arbitrary<number> {
    const step = integer ? 1 : 0;
    const min: number = s.minimum ?? (typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + step : -1_000_000);
    const max: number = s.maximum ?? (typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum - step : Math.max(min, 0) + 1_000_000);
    if (typeof s.multipleOf === 'number' && s.multipleOf > 0) {
      const m = s.multipleOf as number;
      const lo = Math.ceil(min / m);
      const hi = Math.max(lo, Math.floor(max / m));
      return fc.integer({ min: lo, max: hi }).map((k) => Number((k * m).toPrecision(12)));
    }
    // The bounds themselves, often: off-by-one and overflow bugs live there.
    const bounds = [s.minimum, s.maximum].filter((b): b is number => typeof b === 'number');
    const withBounds = (arb: fc.Arbitrary<number>) => (bounds.length ? fc.oneof({ arbitrary: fc.constantFrom(...bounds), weight: 1 }, { arbitrary: arb, weight: 3 }) : arb);
    if (integer) return withBounds(fc.integer({ min: Math.ceil(min), max: Math.floor(Math.max(min, max)) }));
    return withBounds(fc.oneof(
      fc.integer({ min: Math.ceil(min), max: Math.floor(Math.max(min, max)) }),
      fc.double({
        min,
        max: Math.max(min, max),
        noNaN: true,
        noDefaultInfinity: true,
        minExcluded: typeof s.exclusiveMinimum === 'number',
        maxExcluded: typeof s.exclusiveMaximum === 'number',
      }),
    ));
  }

  function formatArb(format: string): fc.Arbitrary<string> | undefined {
    switch (format) {
      case 'uuid':
        return fc.uuid();
      case 'email':
        return fc.emailAddress();
      case 'uri':
      case 'url':
        return fc.webUrl();
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

  function patternArb(pattern: string): fc.Arbitrary<string> | undefined {
    try {
      return fc.stringMatching(new RegExp(pattern));
    } catch {
      return undefined; // a regex feature stringMatching does not support: fall back to plain strings
    }
  }

  function stringArb(s: JsonSchema): fc.Arbitrary<string> {
    const minLength: number = s.minLength ?? 0;
    const maxLength = Math.min(s.maxLength ?? minLength + 24, minLength + 40);
    const examples = examplesOf(s).filter((e): e is string => typeof e === 'string');
    const regex = typeof s.pattern === 'string' ? safeRegExp(s.pattern) : undefined;
    const byFormat = typeof s.format === 'string' ? formatArb(s.format) : undefined;
    if (byFormat) {
      // Format and pattern together (`uri` that must start `https://`): keep the formatted value
      // when it also matches, else an example of the schema; ajv has the last word.
      const fitted = regex ? byFormat.map((v) => (regex.test(v) ? v : (examples[0] ?? v))) : byFormat;
      return examples.length ? fc.oneof({ arbitrary: fitted, weight: 3 }, fc.constantFrom(...examples)) : fitted;
    }
    if (typeof s.pattern === 'string') {
      const matching = patternArb(s.pattern);
      if (matching) {
        const sized = matching.map((v) => (v.length > (s.maxLength ?? Infinity) ? v.slice(0, s.maxLength) : v));
        return examples.length ? fc.oneof({ arbitrary: sized, weight: 3 }, fc.constantFrom(...examples)) : sized;
      }
      if (examples.length) return fc.constantFrom(...examples);
    }
    return fc.oneof(
      { arbitrary: fc.string({ minLength, maxLength }), weight: 4 },
      // Any code point is a valid JSON Schema string too (length counts code points).
      { arbitrary: fc.string({ unit: 'binary', minLength, maxLength }), weight: 1 },
    );
  }

  function objectArb(s: JsonSchema, depth: number): fc.Arbitrary<unknown> {
    // A request leaves `readOnly` properties out, and their `required` holds for answers only (OpenAPI 3.0 §4.7.25.1).
    const properties: Record<string, unknown> = Object.fromEntries(Object.entries<unknown>(s.properties ?? {}).filter(([, sub]) => resolve(sub)?.readOnly !== true));
    const required = new Set<string>((s.required ?? []).filter((key: string) => !(key in (s.properties ?? {})) || key in properties));
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [key, sub] of Object.entries(properties)) {
      const own = propertyHook?.(key, resolve(sub));
      model[key] = own ? fc.oneof(own, valid(sub, depth + 1)) : valid(sub, depth + 1);
    }
    for (const key of required) if (!(key in model)) model[key] = fc.jsonValue({ maxDepth: 1 });
    const keys = Object.keys(model);
    if (keys.length === 0) {
      const extra = s.additionalProperties && typeof s.additionalProperties === 'object' ? valid(s.additionalProperties, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      return fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), extra, { minKeys: s.minProperties ?? 0, maxKeys: Math.max(s.minProperties ?? 0, 3) });
    }
    const record = fc.record(model, { requiredKeys: [...required] });
    const minProperties: number = s.minProperties ?? 0;
    // Optional keys appear about half of the time, so this filter passes often.
    return minProperties > required.size && keys.length >= minProperties ? record.filter((o) => Object.keys(o).length >= minProperties) : record;
  }

  /** A value of a JSON type the schema does not allow. */
  function wrongType(s: JsonSchema): fc.Arbitrary<unknown> | undefined {
    const types = typesOf(s);
    if (types.length === 0) return undefined;
    const allowed = (v: unknown) => {
      const t = jsonTypeOf(v);
      return types.includes(t) || (t === 'integer' && types.includes('number'));
    };
    const candidates = [42, 1.5, true, null, 'text', '', [], ['x'], {}, { a: 1 }].filter((v) => !allowed(v));
    return candidates.length ? fc.constantFrom(...candidates) : undefined;
  }

  /** Values broken in exactly one place (at this level or in one nested property or item). */
  function invalid(schema: unknown, depth = 0): fc.Arbitrary<Mutant> | undefined {
    const s = resolve(schema);
    if (depth > MAX_DEPTH) return undefined;
    const here = (value: unknown, mutation: MutationKind, certain = true): Mutant => ({ value, mutation, at: '', certain });
    const options: Array<fc.Arbitrary<Mutant>> = [];
    const wrong = wrongType(s);
    if (wrong) options.push(wrong.map((v) => here(v, 'wrong type')));
    if (Array.isArray(s.enum)) options.push(fc.constantFrom('not-in-enum', 'NOT_AN_ENUM_VALUE', '').filter((v) => !s.enum.includes(v)).map((v) => here(v, 'not in enum')));
    const types = typesOf(s);
    if (types.includes('string') && !Array.isArray(s.enum) && !('const' in s)) {
      if (typeof s.maxLength === 'number') {
        options.push(fc.integer({ min: s.maxLength + 1, max: s.maxLength + 64 }).map((n) => here('x'.repeat(n), 'out of range')));
      }
      if (typeof s.minLength === 'number' && s.minLength > 0) options.push(fc.constant(here('x'.repeat(s.minLength - 1), 'out of range')));
      // Far beyond any sensible length: 100 k to 1 M characters.
      options.push(fc.integer({ min: 100_000, max: 1_000_000 }).map((n) => here(new Repeat('x', n, true), 'oversized', typeof s.maxLength === 'number')));
      if (typeof s.format === 'string' || typeof s.pattern === 'string') {
        options.push(fc.constantFrom('not a valid value', ' ', 'x', '0', '..%2F..%2Fetc%2Fpasswd').map((v) => here(v, 'bad format', false)));
      }
    }
    if (types.includes('integer') || types.includes('number')) {
      const integer = !types.includes('number');
      if (typeof s.minimum === 'number') options.push(fc.integer({ min: 1, max: 1000 }).map((d) => here(s.minimum - (integer ? d : d / 8), 'out of range')));
      if (typeof s.maximum === 'number') options.push(fc.integer({ min: 1, max: 1000 }).map((d) => here(s.maximum + (integer ? d : d / 8), 'out of range')));
      if (typeof s.exclusiveMinimum === 'number') options.push(fc.constant(here(s.exclusiveMinimum, 'out of range')));
      if (integer) options.push(fc.constantFrom(0.5, 1.25, -2.5).map((v) => here(v, 'wrong type')));
      // 1e309 parses to Infinity; NaN and Infinity are not JSON at all.
      options.push(fc.constantFrom('1e309', '-1e309', 'Infinity', '-Infinity', 'NaN').map((t) => here(new RawJson(t), 'non-finite number')));
    }
    if (types.includes('array')) {
      const item = s.items ?? {};
      if (typeof s.maxItems === 'number') {
        options.push(fc.array(valid(item, depth + 1), { minLength: s.maxItems + 1, maxLength: s.maxItems + 3 }).map((v) => here(v, 'out of range')));
      }
      if (typeof s.minItems === 'number' && s.minItems > 0) options.push(fc.constant(here([], 'out of range')));
      options.push(
        fc.tuple(valid(item, depth + 1), fc.integer({ min: 20_000, max: 200_000 })).map(([v, n]) => here(new Repeat(v, n), 'oversized', typeof s.maxItems === 'number')),
      );
      const itemBroken = invalid(item, depth + 1);
      if (itemBroken) {
        options.push(
          fc.tuple(fc.array(valid(item, depth + 1), { maxLength: 2 }), itemBroken).map(([rest, m]) => ({ ...m, value: [...rest, m.value], at: `/${rest.length}${m.at}` })),
        );
      }
    }
    if (types.includes('object')) {
      const properties: Record<string, unknown> = s.properties ?? {};
      const required: string[] = (s.required ?? []).filter((k: string) => k in properties);
      if (required.length > 0) {
        options.push(
          fc.tuple(valid(s, depth), fc.constantFrom(...required)).map(([value, key]) => {
            const copy = { ...(value as Record<string, unknown>) };
            delete copy[key];
            return { value: copy, mutation: 'missing required' as const, at: `/${key}`, certain: true };
          }),
        );
      }
      const nested = Object.entries(properties)
        .map(([key, sub]) => [key, invalid(sub, depth + 1)] as const)
        .filter((e): e is readonly [string, fc.Arbitrary<Mutant>] => e[1] !== undefined);
      if (nested.length > 0) {
        options.push(
          fc.integer({ min: 0, max: nested.length - 1 }).chain((i) => {
            const [key, broken] = nested[i]!;
            return fc.tuple(valid(s, depth), broken).map(([value, m]) => ({ ...m, value: { ...(value as object), [key]: m.value }, at: `/${key}${m.at}` }));
          }),
        );
      }
    }
    return options.length ? fc.oneof(...options) : undefined;
  }

  return { resolve, valid, invalid, typesOf };
}

export type SchemaArbitraries = ReturnType<typeof createSchemaArbitraries>;

function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

/**
 * JSON text of a generated value as body parts: `RawJson` tokens spliced in, `Repeat` values kept
 * as repeat parts, and own `__proto__` keys written out (JSON.stringify writes own properties).
 */
export function encodeJson(value: unknown): Array<string | { repeat: string; times: number }> {
  const specials: Array<RawJson | Repeat> = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof RawJson || v instanceof Repeat) {
      specials.push(v);
      return `@@FUZZ${specials.length - 1}@@`;
    }
    return v;
  });
  if (text === undefined) return ['null'];
  const parts: Array<string | { repeat: string; times: number }> = [];
  let rest = text;
  for (let i = 0; i < specials.length; i++) {
    const marker = `"@@FUZZ${i}@@"`;
    const at = rest.indexOf(marker);
    if (at < 0) continue;
    parts.push(rest.slice(0, at));
    const special = specials[i]!;
    if (special instanceof RawJson) parts.push(special.text);
    else if (special.asString) parts.push('"', { repeat: String(special.item), times: special.times }, '"');
    else if (special.times > 0) parts.push('[', { repeat: `${JSON.stringify(special.item)},`, times: special.times - 1 }, `${JSON.stringify(special.item)}]`);
    else parts.push('[]');
    rest = rest.slice(at + marker.length);
  }
  parts.push(rest);
  return parts.filter((p) => typeof p !== 'string' || p.length > 0);
}

/** `obj` with an own property `key` (also `__proto__`, which plain assignment would not create). */
export function withOwnKey(obj: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) Object.defineProperty(copy, k, { value: v, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}
