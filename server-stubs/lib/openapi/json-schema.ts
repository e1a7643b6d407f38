/**
 * The JSON Schema model the toolkit's schema walks share (the stubs' compilable copy, the breaking-
 * change diff, the fuzz arbitraries, the docs' reader marks, the type steps). openapi-typescript's
 * `SchemaObject` is a union by `type`, which a walk that reads keyword after keyword cannot use
 * without narrowing every one; this is one object type with the keywords the toolkit reads typed as
 * a valid OpenAPI 3.0 / 3.1 (JSON Schema 2020-12) document has them, and any other keyword `unknown`.
 *
 * A document is validated before any walk reads it, so the declared types hold for what is there;
 * a walk over a document that was not validated still checks values it relies on.
 */
import { deref, type JsonDocument } from './document.js';

/** A subschema: an object, or 2020-12's `true` (anything) / `false` (nothing). */
export type Schema = SchemaNode | boolean;

export interface SchemaNode {
  $ref?: string;
  $id?: string;
  $schema?: string;
  $defs?: Record<string, Schema>;
  /** draft-07 and OpenAPI 3.0 documents */
  definitions?: Record<string, Schema>;
  title?: string;
  description?: string;
  type?: string | string[];
  /** OpenAPI 3.0 */
  nullable?: boolean;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  /** OpenAPI 3.0 and the Schema Object of 3.1 */
  example?: unknown;
  examples?: unknown[];
  deprecated?: boolean;
  readOnly?: boolean;
  writeOnly?: boolean;

  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  not?: Schema;
  if?: Schema;
  then?: Schema;
  else?: Schema;
  discriminator?: { propertyName: string; mapping?: Record<string, string> };

  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  additionalProperties?: Schema;
  unevaluatedProperties?: Schema;
  propertyNames?: Schema;
  dependentSchemas?: Record<string, Schema>;
  required?: string[];
  minProperties?: number;
  maxProperties?: number;

  /** an array in draft-07 and 3.0's tuple form, a schema in 2020-12 */
  items?: Schema | Schema[];
  prefixItems?: Schema[];
  additionalItems?: Schema;
  unevaluatedItems?: Schema;
  contains?: Schema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;

  minimum?: number;
  maximum?: number;
  /** a number in 2020-12, a flag beside `minimum` / `maximum` in OpenAPI 3.0 */
  exclusiveMinimum?: number | boolean;
  exclusiveMaximum?: number | boolean;
  multipleOf?: number;

  minLength?: number;
  maxLength?: number;
  pattern?: string;
  contentMediaType?: string;
  contentEncoding?: string;

  [keyword: string]: unknown;
}

/** A JSON object read without a known shape (an OpenRPC document, an answer's body): members are `unknown`. */
export type JsonObject = { [member: string]: unknown };

/** Whether a value is a JSON object (not an array, not null). */
export const isJsonObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a subschema is an object schema one can read keywords of (not `true`/`false`, not garbage). */
export const isSchemaNode = (value: unknown): value is SchemaNode => isJsonObject(value);

/**
 * The schema object a node stands for, its `$ref`s followed; undefined for `true`/`false`, a missing
 * node or one that is no schema, so a walk reads keywords only where there are some.
 */
export function schemaAt(document: JsonDocument, node: unknown): SchemaNode | undefined {
  const schema = deref(document, node);
  return isSchemaNode(schema) ? schema : undefined;
}
