/**
 * A document as a validator can compile it: what vendors' documents legally say, but Ajv cannot
 * compile or applies wrongly, rewritten to mean the same (DECISIONS I-1: the document itself is never
 * edited; these are copies for checking). Two validators read it, in two dialects, so there are two
 * views built on one set of rules of what compiles (formats, patterns, which members are values):
 *
 * - `compilableDocument`, for express-openapi-validator (the stubs' request and response checks),
 *   which compiles a 3.0 document as 3.0 (draft 4 bounds, `nullable`) and a 3.1 one as 2020-12;
 * - `schemaView`, for the toolkit's own Ajv, which speaks 2020-12 only (the mock's contract, the
 *   contract runner and checker, the fuzzer): every document is turned into 2020-12.
 *
 * It lives in the stubs' lib, the house's one place for server-side mechanisms the mock and the
 * scripts share: the stubs' validation is the consumer that runs in every served process, and the
 * mock and the scripts already import from here.
 */
import type { OpenAPI3 } from 'openapi-typescript';
import { isJsonObject, isSchemaNode, type JsonObject, type SchemaNode } from './openapi/json-schema.js';

/** Members whose values are data, not schemas or OpenAPI objects: never rewritten. */
const dataKeys = new Set(['example', 'examples', 'default', 'enum', 'const', 'value', 'x-examples', 'x-wire-example']);

const JSON_TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'integer', 'string']);

/** Patterns and formats already warned about: one warning each per process, not one per operation. */
const warnedPatterns = new Set<string>();
const warnedFormats = new Set<string>();

/** The formats the validators check (ajv-formats' full set, which server-stubs/lib/openapi/ajv.ts loads too, and OpenAPI's own). */
const knownFormats = new Set([
  ...['date', 'time', 'date-time', 'iso-time', 'iso-date-time', 'duration', 'uri', 'uri-reference', 'uri-template', 'url', 'email', 'hostname', 'ipv4', 'ipv6', 'regex', 'uuid'],
  ...['json-pointer', 'json-pointer-uri-fragment', 'relative-json-pointer', 'byte', 'int32', 'int64', 'float', 'double', 'password', 'binary'],
]);

/**
 * The `format`s of a document the validator does not know (`uriref`, `int8`, `iso-country-code`):
 * not checked, as JSON Schema says of unknown formats, with one warning each per process rather
 * than Ajv's two per operation.
 */
export function unknownFormats(document: OpenAPI3): string[] {
  const found = new Set<string>();
  const visit = (node: unknown, seen: Set<object>) => {
    if (node === null || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (isSchemaNode(node) && typeof node.format === 'string' && !knownFormats.has(node.format)) found.add(node.format);
    for (const [key, value] of Object.entries(node)) if (!dataKeys.has(key)) visit(value, seen);
  };
  visit(document, new Set());
  for (const format of found) {
    if (warnedFormats.has(format)) continue;
    warnedFormats.add(format);
    console.warn(`format ${JSON.stringify(format)} is not one the validator knows; it is not checked`);
  }
  return [...found];
}

/** A deep copy of `document` that the validator compiles and applies as the document means it. */
export function compilableDocument(document: OpenAPI3): OpenAPI3 {
  const copy = structuredClone(document);
  rewrite(copy, new Set(), !String(copy.openapi ?? '').startsWith('3.1'));
  for (const content of contents(copy)) mediaWithoutSchema(content);
  return copy;
}

/** The `content` maps of the document's request bodies, responses and parameters. */
function contents(document: OpenAPI3): JsonObject[] {
  const out: JsonObject[] = [];
  // The copy is walked as JSON, not as the document's types: a `$ref` holder has no `content`, and a
  // vendor's document may hold anything where a holder should be.
  const holders = (map: unknown): unknown[] => (isJsonObject(map) ? Object.values(map) : []);
  const take = (holder: unknown) => {
    if (isJsonObject(holder) && isJsonObject(holder.content)) out.push(holder.content);
  };
  for (const item of holders(document.paths)) {
    if (!isJsonObject(item)) continue;
    for (const parameter of Array.isArray(item.parameters) ? item.parameters : []) take(parameter);
    for (const op of Object.values(item)) {
      if (!isJsonObject(op)) continue;
      take(op.requestBody);
      for (const parameter of Array.isArray(op.parameters) ? op.parameters : []) take(parameter);
      for (const response of holders(op.responses)) take(response);
    }
  }
  for (const kind of ['responses', 'requestBodies', 'parameters'] as const) for (const holder of holders(document.components?.[kind])) take(holder);
  return out;
}

/**
 * A media type with examples but no schema takes (and gives) anything; without a schema the
 * validator would find no response validator for its status and fail every answer.
 */
function mediaWithoutSchema(content: JsonObject): void {
  for (const media of Object.values(content)) if (isJsonObject(media) && media.schema === undefined) media.schema = {};
}

function rewrite(node: unknown, seen: Set<object>, version30: boolean): void {
  if (node === null || typeof node !== 'object' || seen.has(node)) return;
  seen.add(node);
  if (Array.isArray(node)) {
    for (const item of node) rewrite(item, seen, version30);
    return;
  }
  // Every object met is read as a schema: the rules below look at their keywords' values before
  // relying on them, and those of other OpenAPI objects are left as they are.
  if (!isSchemaNode(node)) return;
  const object = node;
  nullableWithoutType(object);
  exclusiveBounds(object, version30);
  foreignPattern(object);
  unusableDefault(object);
  parameterWithoutSchema(object);
  foreignKeywords(object, version30);
  for (const [key, value] of Object.entries<unknown>(object)) if (!dataKeys.has(key)) rewrite(value, seen, version30);
}

/**
 * OpenAPI 3.0 `nullable: true` on a schema without `type` (any value, or a `$ref`/composition): the
 * validator's Ajv refuses to compile it. Without a type there is nothing null would be refused by
 * but an `enum`, which gets `null`.
 */
function nullableWithoutType(schema: SchemaNode): void {
  if (typeof schema.nullable !== 'boolean' || schema.type !== undefined) return;
  if (schema.nullable && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  delete schema.nullable;
}

/**
 * `exclusiveMinimum`/`exclusiveMaximum` in the form of the other dialect: OpenAPI 3.0 (JSON Schema
 * draft 4) writes `exclusiveMinimum: true` beside `minimum`, 3.1 (2020-12) the bound itself. Vendors
 * mix them up, and the validator compiles each version with its own meta-schema only.
 */
function exclusiveBounds(schema: SchemaNode, version30: boolean): void {
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    const value: unknown = schema[exclusive];
    if (version30 && typeof value === 'number') {
      // 3.0 wants the boolean: the tighter of the two bounds becomes the exclusive one.
      const keep = typeof schema[bound] !== 'number' || (bound === 'minimum' ? value >= schema[bound] : value <= schema[bound]);
      if (keep) {
        schema[bound] = value;
        schema[exclusive] = true;
      } else delete schema[exclusive];
    } else if (!version30 && typeof value === 'boolean') {
      if (value && typeof schema[bound] === 'number') {
        schema[exclusive] = schema[bound];
        delete schema[bound];
      } else delete schema[exclusive];
    }
  }
}

/**
 * A `pattern` written for another regex engine (`\Z`, `(?i)`, an escape JavaScript's `u` flag
 * refuses) cannot be checked here: it is left out, with one warning, rather than failing every
 * request of the operation.
 */
function foreignPattern(schema: SchemaNode): void {
  if (typeof schema.pattern !== 'string' || compilablePattern(schema.pattern)) return;
  if (!warnedPatterns.has(schema.pattern)) {
    warnedPatterns.add(schema.pattern);
    console.warn(`pattern ${JSON.stringify(schema.pattern)} is not a JavaScript regular expression; it is not checked`);
  }
  delete schema.pattern;
}

/** Whether JavaScript compiles a JSON Schema `pattern` as Ajv will (unicode mode). */
export function compilablePattern(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/** The `type`s of security schemes, which the walk meets beside schemas' own. */
const securityTypes = new Set(['apiKey', 'http', 'oauth2', 'openIdConnect', 'mutualTLS']);

/**
 * What no dialect the validator speaks compiles, as the 2020-12 view (`schemaView`) drops it too: a
 * `type` that is no JSON type (`file`, from Swagger 2), a schema's boolean `required` (draft 3), and in
 * 3.1 a tuple written as an `items` array. Parameters, headers, bodies and security schemes have a
 * `type` or `required` of their own, and are left alone.
 */
function foreignKeywords(object: SchemaNode, version30: boolean): void {
  if ('in' in object || 'schema' in object || 'content' in object || (typeof object.type === 'string' && securityTypes.has(object.type))) return;
  if (typeof object.type === 'string' && !JSON_TYPES.has(object.type)) delete object.type;
  else if (Array.isArray(object.type) && object.type.some((t) => !JSON_TYPES.has(String(t)))) object.type = object.type.filter((t) => JSON_TYPES.has(String(t)));
  if (typeof object.required === 'boolean') delete object.required;
  if (!version30 && Array.isArray(object.items) && !Array.isArray(object.prefixItems)) {
    object.prefixItems = object.items;
    delete object.items;
  }
}

/**
 * A `readOnly` property with a `default`: the validator fills the default into a request and then
 * refuses the request for carrying a read-only property. A request never carries it; its default is
 * the server's business.
 */
function unusableDefault(schema: SchemaNode): void {
  if (schema.readOnly === true && 'default' in schema) delete schema.default;
  // A `default: null` the schema itself refuses (no `nullable`, no null type): filled in, it would fail the request it was filled into.
  if (schema.default === null && schema.nullable !== true && ![schema.type].flat().includes('null') && schema.type !== undefined) delete schema.default;
}

/**
 * A parameter with examples but neither `schema` nor `content` takes any value; one without `style`
 * gets the default the specification gives it, which the validator's mutator needs spelled out.
 */
function parameterWithoutSchema(object: JsonObject): void {
  if (typeof object.in !== 'string' || typeof object.name !== 'string') return;
  if (object.schema === undefined && object.content === undefined) object.schema = {};
  if (object.content !== undefined) return;
  object.style ??= object.in === 'query' || object.in === 'cookie' ? 'form' : 'simple';
  object.explode ??= object.style === 'form';
  // Label and matrix path parameters are read before validation (parameter-styles.ts); the
  // validator's mutator refuses those styles, and has nothing left to split.
  if (object.in === 'path' && (object.style === 'label' || object.style === 'matrix')) object.style = 'simple';
}

export interface SchemaView {
  /** the document with its schemas in the form above (the input when nothing needed changing) */
  document: OpenAPI3;
  /** one line per keyword dropped, naming where */
  notes: string[];
}

/**
 * An imported document's schemas as the toolkit's Ajv reads them. Ajv speaks JSON Schema 2020-12 and compiles
 * `pattern` with the `u` flag, so a valid OpenAPI 3.0 document can still stop it cold:
 *
 * - 3.0 `nullable: true` is a type union with null (Ajv throws on `nullable` without `type`);
 * - 3.0 boolean `exclusiveMinimum`/`exclusiveMaximum` beside `minimum`/`maximum` are the numeric
 *   2020-12 forms;
 * - 3.0 `items` given as an array (a tuple, as some generators write) is `prefixItems`;
 * - a `format` Ajv does not know is left out (an annotation in 2020-12, which Ajv warns about);
 * - a `pattern` JavaScript cannot compile under `u` (`\Z`, `(?i)`, `\:`), a `type` that is no JSON
 *   type (`file`), a `required` that is not a list: the keyword is dropped with one note each,
 *   so everything else of the schema is still checked.
 *
 * Examples, defaults, enums and extensions are values, not schemas: the walk never enters them.
 */
export function schemaView(document: OpenAPI3): SchemaView {
  const notes: string[] = [];
  const legacy = !/^3\.1/.test(String(document.openapi ?? ''));

  /** Copies `node` only where a member changes, so an untouched document comes back as itself. */
  const mapMembers = (node: JsonObject, visit: (key: string, value: unknown) => unknown): JsonObject => {
    let out: JsonObject | undefined;
    for (const [key, value] of Object.entries(node)) {
      const next = visit(key, value);
      if (next !== value) (out ??= { ...node })[key] = next;
    }
    return out ?? node;
  };
  const mapItems = (list: unknown[], visit: (index: number, item: unknown) => unknown): unknown[] => {
    const out = list.map((item, i) => visit(i, item));
    return out.every((item, i) => item === list[i]) ? list : out;
  };

  /** A schema: its fixes, then its subschemas. */
  const inSchema = (node: unknown, at: string): unknown => {
    if (!isSchemaNode(node)) return node;
    const fixed = schemaFixes(node, at, legacy, notes);
    return mapMembers(fixed, (key, value) => {
      if (SUBSCHEMA.has(key)) return inSchema(value, `${at}/${key}`);
      if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) return mapItems(value, (i, item) => inSchema(item, `${at}/${key}/${i}`));
      if (SUBSCHEMA_MAPS.has(key) && isJsonObject(value)) return mapMembers(value, (name, item) => inSchema(item, `${at}/${key}/${name}`));
      return value;
    });
  };

  /** Any other OpenAPI object: schemas are found under `schema` and `components.schemas`. */
  const inDocument = (node: unknown, at: string): unknown => {
    if (Array.isArray(node)) return mapItems(node, (i, item) => inDocument(item, `${at}/${i}`));
    if (!isJsonObject(node)) return node;
    return mapMembers(node, (key, value) => {
      if (dataKeys.has(key) || key.startsWith('x-')) return value;
      if (key === 'schema') return inSchema(value, `${at}/${key}`);
      if (key === 'schemas' && at === '#/components' && isJsonObject(value)) return mapMembers(value, (name, item) => inSchema(item, `${at}/schemas/${name}`));
      return inDocument(value, `${at}/${key}`);
    });
  };

  return { document: inDocument(document, '#') as OpenAPI3, notes };
}

const SUBSCHEMA = new Set(['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema', 'additionalItems']);
const SUBSCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** The fixes above for one node, when it is a schema that needs them; the node itself otherwise. */
function schemaFixes(node: SchemaNode, at: string, legacy: boolean, notes: string[]): SchemaNode {
  let s = node;
  const own = () => (s === node ? (s = { ...node }) : s);
  if (typeof s.pattern === 'string' && !compilablePattern(s.pattern)) {
    notes.push(`${at}: pattern ${JSON.stringify(s.pattern)} is not a JavaScript regular expression; that keyword is not checked`);
    delete own().pattern;
  }
  if (s.type !== undefined && typeof s.type !== 'object' && !JSON_TYPES.has(String(s.type))) {
    notes.push(`${at}: type ${JSON.stringify(s.type)} is not a JSON Schema type; that keyword is not checked`);
    delete own().type;
  } else if (Array.isArray(s.type) && s.type.some((t) => !JSON_TYPES.has(String(t)))) {
    own().type = s.type.filter((t) => JSON_TYPES.has(String(t)));
  }
  if (typeof s.required === 'boolean') delete own().required;
  // A format nobody defined (`uriref`, `iso-country-code`) is an annotation in 2020-12 and ignored
  // anyway; Ajv would warn about it on every compile.
  if (typeof s.format === 'string' && !knownFormats.has(s.format)) delete own().format;
  for (const [exclusive, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof s[exclusive] !== 'boolean') continue;
    const copy = own();
    if (copy[exclusive] && typeof copy[bound] === 'number') {
      copy[exclusive] = copy[bound];
      delete copy[bound];
    } else delete copy[exclusive];
  }
  const items = s.items;
  if (Array.isArray(items) && !Array.isArray(s.prefixItems)) {
    const copy = own();
    copy.prefixItems = items;
    delete copy.items;
  }
  if ('nullable' in s && typeof s.nullable === 'boolean') {
    const { nullable, ...rest } = own();
    s = rest;
    // In 3.1 `nullable` is no keyword at all: a 3.1 schema says null in its `type`.
    if (nullable && legacy) s = withNull(rest);
  }
  return s;
}

/** A 3.0 schema with `nullable: true`: null is allowed besides what it says. */
function withNull(schema: SchemaNode): SchemaNode {
  if (typeof schema.type === 'string' || Array.isArray(schema.type)) {
    const types = [schema.type].flat();
    const out: SchemaNode = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
    return out;
  }
  const constrained = ['$ref', 'allOf', 'anyOf', 'oneOf', 'enum', 'const', 'not'].some((k) => k in schema);
  return constrained ? { anyOf: [schema, { type: 'null' }] } : schema;
}
