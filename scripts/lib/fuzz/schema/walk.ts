/**
 * What the generators of one JSON Schema keyword family share: the schema read as they read it
 * (`$ref` followed, `allOf` merged), and the generators of subschemas (properties, items,
 * alternatives), so each family recurses through the same cached walk.
 */
import type fc from 'fast-check';
import { isSchemaNode, type SchemaNode } from '../../../../server-stubs/lib/openapi/json-schema.js';

/** Follows one `$ref` (OpenAPI `#/...` or a schema file name); undefined when it cannot. */
export type RefResolver = (ref: string) => SchemaNode | undefined;

/** Lets a caller offer its own values for a named property (ids that exist on the server). */
export type PropertyHook = (name: string, schema: SchemaNode) => fc.Arbitrary<unknown> | undefined;

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

export interface SchemaWalk {
  resolve(schema: unknown): SchemaNode;
  valid(schema: unknown, depth?: number): fc.Arbitrary<unknown>;
  invalid(schema: unknown, depth?: number): fc.Arbitrary<Mutant> | undefined;
  propertyHook?: PropertyHook;
}

/** Past this depth of nesting, values are `null` and nothing more is broken. */
export const MAX_DEPTH = 6;

/** The schema with its `$ref` followed (siblings kept) and `allOf` merged: what the generators read. */
export function schemaResolver(resolveRef: RefResolver): (schema: unknown) => SchemaNode {
  const resolve = (schema: unknown): SchemaNode => {
    if (!isSchemaNode(schema)) return {};
    let s = schema;
    // A cycle of references stops after a bounded number of hops.
    for (let hops = 0; typeof s.$ref === 'string' && hops < 20; hops++) {
      const target = resolveRef(s.$ref);
      const { $ref: _ref, ...siblings } = s;
      s = { ...(target ?? {}), ...siblings };
    }
    if (Array.isArray(s.allOf)) {
      const { allOf, ...rest } = s;
      s = allOf.map(resolve).reduce(mergeSchemas, rest);
    }
    return s;
  };
  return resolve;
}

/** Two schemas that must both hold, as one: properties and `required` joined, the second's other keywords winning. */
export function mergeSchemas(a: SchemaNode, b: SchemaNode): SchemaNode {
  return {
    ...a,
    ...b,
    properties: { ...(a.properties ?? {}), ...(b.properties ?? {}) },
    required: [...new Set([...(a.required ?? []), ...(b.required ?? [])])],
  };
}

/** The JSON types a schema allows: its `type`, or the one its keywords imply; none when anything goes. */
export function typesOf(s: SchemaNode): string[] {
  if (Array.isArray(s.type)) return s.type;
  if (typeof s.type === 'string') return [s.type];
  if (s.properties || s.required || s.additionalProperties !== undefined) return ['object'];
  if (s.items) return ['array'];
  if (s.pattern || s.format || s.minLength !== undefined) return ['string'];
  if (s.minimum !== undefined || s.maximum !== undefined) return ['number'];
  return [];
}

export function examplesOf(s: SchemaNode): unknown[] {
  return [...(Array.isArray(s.examples) ? s.examples : []), ...('example' in s ? [s.example] : [])];
}
