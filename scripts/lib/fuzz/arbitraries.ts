/**
 * JSON Schema → fast-check: `valid(schema)` generates values the schema accepts (best effort: the
 * callers check the result with ajv before calling a request valid), `invalid(schema)` generates
 * values broken in one place, saying how (`wrong type`, `missing required`, ...).
 *
 * Only the keywords the contracts use are interpreted (type, const, enum, properties, required,
 * minProperties, items, min/maxItems, uniqueItems, min/maxLength, pattern, format, minimum,
 * maximum, exclusiveMinimum/Maximum, multipleOf, oneOf, anyOf, allOf); anything else is left to
 * the ajv check. Everything is built from fast-check combinators, so values shrink. The generators
 * of each keyword family are in schema/: valid-values.ts and mutants.ts.
 */
import fc from 'fast-check';
import type { SchemaNode } from '../../../server-stubs/lib/openapi/json-schema.js';
import { scalarString } from './scalar-strings.js';
import { mutantsOf } from './schema/mutants.js';
import { RawJson, Repeat } from './schema/raw-values.js';
import { validOf } from './schema/valid-values.js';
import { schemaResolver, typesOf, type PropertyHook, type RefResolver, type SchemaWalk } from './schema/walk.js';

export { jsonTypeOf } from './schema/mutants.js';
export type { Mutant, MutationKind } from './schema/walk.js';
export { RawJson, Repeat } from './schema/raw-values.js';
export type { PropertyHook, RefResolver } from './schema/walk.js';

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
    scalarString({ minLength: 1, maxLength: 12 }),
    fc.tuple(fc.constantFrom(...nastyStrings), fc.string({ maxLength: 6 })).map(([a, b]) => `${b}${a}${b}`),
  );
}

export function createSchemaArbitraries(resolveRef: RefResolver, propertyHook?: PropertyHook) {
  const resolve = schemaResolver(resolveRef);
  // A schema's generator is built once per schema object (the top-level ones are asked for again and again).
  const cache = new WeakMap<object, fc.Arbitrary<unknown>>();
  const walk: SchemaWalk = {
    resolve,
    propertyHook,
    /** Values the schema accepts, as far as the keywords above go. */
    valid(schema, depth = 0) {
      if (schema && typeof schema === 'object' && depth === 0) {
        const hit = cache.get(schema);
        if (hit) return hit;
        const built = validOf(walk, resolve(schema), depth);
        cache.set(schema, built);
        return built;
      }
      return validOf(walk, resolve(schema), depth);
    },
    /** Values broken in exactly one place (at this level or in one nested property or item). */
    invalid: (schema, depth = 0) => mutantsOf(walk, resolve(schema), depth),
  };
  return { resolve, valid: walk.valid, invalid: walk.invalid, typesOf };
}

export type SchemaArbitraries = ReturnType<typeof createSchemaArbitraries>;

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
