/** Values a schema refuses, broken in exactly one place, one family of keywords at a time; `invalid` in arbitraries.ts offers them all. */
import fc from 'fast-check';
import type { SchemaNode } from '../../../../server-stubs/lib/openapi/json-schema.js';
import { chainOnce } from '../chain-once.js';
import { RawJson, Repeat } from './raw-values.js';
import { MAX_DEPTH, typesOf, type Mutant, type MutationKind, type SchemaWalk } from './walk.js';

/** A value broken at this level (its pointer is empty). */
const here = (value: unknown, mutation: MutationKind, certain = true): Mutant => ({ value, mutation, at: '', certain });

export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Values broken in exactly one place (at this level or in one nested property or item) of a resolved schema. */
export function mutantsOf(walk: SchemaWalk, s: SchemaNode, depth: number): fc.Arbitrary<Mutant> | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const types = typesOf(s);
  const options: Array<fc.Arbitrary<Mutant>> = [...wrongType(types), ...notInEnum(s)];
  if (types.includes('string') && !Array.isArray(s.enum) && !('const' in s)) options.push(...stringMutants(s));
  if (types.includes('integer') || types.includes('number')) options.push(...numberMutants(s, !types.includes('number')));
  if (types.includes('array')) options.push(...arrayMutants(walk, s, depth));
  if (types.includes('object')) options.push(...objectMutants(walk, s, depth));
  return options.length ? fc.oneof(...options) : undefined;
}

/** A value of a JSON type the schema does not allow. */
function wrongType(types: string[]): Array<fc.Arbitrary<Mutant>> {
  if (types.length === 0) return [];
  const allowed = (v: unknown) => {
    const t = jsonTypeOf(v);
    return types.includes(t) || (t === 'integer' && types.includes('number'));
  };
  const candidates = [42, 1.5, true, null, 'text', '', [], ['x'], {}, { a: 1 }].filter((v) => !allowed(v));
  return candidates.length ? [fc.constantFrom(...candidates).map((v) => here(v, 'wrong type'))] : [];
}

function notInEnum(s: SchemaNode): Array<fc.Arbitrary<Mutant>> {
  const allowed = s.enum;
  if (!Array.isArray(allowed)) return [];
  return [fc.constantFrom('not-in-enum', 'NOT_AN_ENUM_VALUE', '').filter((v) => !allowed.includes(v)).map((v) => here(v, 'not in enum'))];
}

/** Past maxLength, short of minLength, far too long, or not the format or pattern. */
function stringMutants(s: SchemaNode): Array<fc.Arbitrary<Mutant>> {
  const { maxLength, minLength } = s;
  const options: Array<fc.Arbitrary<Mutant>> = [];
  if (typeof maxLength === 'number') options.push(fc.integer({ min: maxLength + 1, max: maxLength + 64 }).map((n) => here('x'.repeat(n), 'out of range')));
  if (typeof minLength === 'number' && minLength > 0) options.push(fc.constant(here('x'.repeat(minLength - 1), 'out of range')));
  // Far beyond any sensible length: 100 k to 1 M characters.
  options.push(fc.integer({ min: 100_000, max: 1_000_000 }).map((n) => here(new Repeat('x', n, true), 'oversized', typeof maxLength === 'number')));
  if (typeof s.format === 'string' || typeof s.pattern === 'string') {
    options.push(fc.constantFrom('not a valid value', ' ', 'x', '0', '..%2F..%2Fetc%2Fpasswd').map((v) => here(v, 'bad format', false)));
  }
  return options;
}

/** Below minimum, above maximum, at an exclusive minimum, a fraction for an integer, or not finite. */
function numberMutants(s: SchemaNode, integer: boolean): Array<fc.Arbitrary<Mutant>> {
  const { minimum, maximum, exclusiveMinimum } = s;
  const options: Array<fc.Arbitrary<Mutant>> = [];
  if (typeof minimum === 'number') options.push(fc.integer({ min: 1, max: 1000 }).map((d) => here(minimum - (integer ? d : d / 8), 'out of range')));
  if (typeof maximum === 'number') options.push(fc.integer({ min: 1, max: 1000 }).map((d) => here(maximum + (integer ? d : d / 8), 'out of range')));
  if (typeof exclusiveMinimum === 'number') options.push(fc.constant(here(exclusiveMinimum, 'out of range')));
  if (integer) options.push(fc.constantFrom(0.5, 1.25, -2.5).map((v) => here(v, 'wrong type')));
  // 1e309 parses to Infinity; NaN and Infinity are not JSON at all.
  options.push(fc.constantFrom('1e309', '-1e309', 'Infinity', '-Infinity', 'NaN').map((t) => here(new RawJson(t), 'non-finite number')));
  return options;
}

/** Past maxItems, short of minItems, far too long, or one item broken. */
function arrayMutants(walk: SchemaWalk, s: SchemaNode, depth: number): Array<fc.Arbitrary<Mutant>> {
  const item = s.items ?? {};
  const { maxItems, minItems } = s;
  const options: Array<fc.Arbitrary<Mutant>> = [];
  if (typeof maxItems === 'number') {
    options.push(fc.array(walk.valid(item, depth + 1), { minLength: maxItems + 1, maxLength: maxItems + 3 }).map((v) => here(v, 'out of range')));
  }
  if (typeof minItems === 'number' && minItems > 0) options.push(fc.constant(here([], 'out of range')));
  options.push(
    fc.tuple(walk.valid(item, depth + 1), fc.integer({ min: 20_000, max: 200_000 })).map(([v, n]) => here(new Repeat(v, n), 'oversized', typeof maxItems === 'number')),
  );
  const itemBroken = walk.invalid(item, depth + 1);
  if (itemBroken) {
    options.push(fc.tuple(fc.array(walk.valid(item, depth + 1), { maxLength: 2 }), itemBroken).map(([rest, m]) => ({ ...m, value: [...rest, m.value], at: `/${rest.length}${m.at}` })));
  }
  return options;
}

/** A required property left out, or one property broken. */
function objectMutants(walk: SchemaWalk, s: SchemaNode, depth: number): Array<fc.Arbitrary<Mutant>> {
  const properties = s.properties ?? {};
  const required = (s.required ?? []).filter((k) => k in properties);
  const options: Array<fc.Arbitrary<Mutant>> = [];
  if (required.length > 0) {
    options.push(
      fc.tuple(walk.valid(s, depth), fc.constantFrom(...required)).map(([value, key]) => {
        const copy = { ...(value as Record<string, unknown>) };
        delete copy[key];
        return { value: copy, mutation: 'missing required' as const, at: `/${key}`, certain: true };
      }),
    );
  }
  const nested = Object.entries(properties)
    .map(([key, sub]) => [key, walk.invalid(sub, depth + 1)] as const)
    .filter((e): e is readonly [string, fc.Arbitrary<Mutant>] => e[1] !== undefined);
  if (nested.length > 0) {
    options.push(
      chainOnce(fc.integer({ min: 0, max: nested.length - 1 }), (i) => {
        const [key, broken] = nested[i]!;
        return fc.tuple(walk.valid(s, depth), broken).map(([value, m]) => ({ ...m, value: { ...(value as object), [key]: m.value }, at: `/${key}${m.at}` }));
      }),
    );
  }
  return options;
}
