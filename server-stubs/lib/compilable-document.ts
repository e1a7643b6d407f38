/**
 * What express-openapi-validator is given: an operation's slice of the contract with what vendors'
 * documents legally say, but its Ajv cannot compile or applies wrongly, rewritten to mean the same.
 * The contract itself is left as it is (the answers and the docs read it).
 */
import type { JsonNode } from '../../scripts/lib/operations.js';

/** Keys whose values are data, not schemas or OpenAPI objects: never rewritten. */
const dataKeys = new Set(['example', 'examples', 'default', 'enum', 'const', 'value', 'x-examples']);

/** Patterns and formats already warned about: one warning each per process, not one per operation. */
const warnedPatterns = new Set<string>();
const warnedFormats = new Set<string>();

/** The formats the validator checks (ajv-formats' full set and OpenAPI's own). */
const knownFormats = new Set([
  ...['date', 'time', 'date-time', 'iso-time', 'iso-date-time', 'duration', 'uri', 'uri-reference', 'uri-template', 'url', 'email', 'hostname', 'ipv4', 'ipv6', 'regex', 'uuid'],
  ...['json-pointer', 'json-pointer-uri-fragment', 'relative-json-pointer', 'byte', 'int32', 'int64', 'float', 'double', 'password', 'binary'],
]);

/**
 * The `format`s of a document the validator does not know (`uriref`, `int8`, `iso-country-code`):
 * not checked, as JSON Schema says of unknown formats, with one warning each per process rather
 * than Ajv's two per operation.
 */
export function unknownFormats(document: JsonNode): string[] {
  const found = new Set<string>();
  const visit = (node: unknown, seen: Set<object>) => {
    if (node === null || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    const object = node as JsonNode;
    if (typeof object.format === 'string' && !knownFormats.has(object.format)) found.add(object.format);
    for (const [key, value] of Object.entries<unknown>(object)) if (!dataKeys.has(key)) visit(value, seen);
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
export function compilableDocument(document: JsonNode): JsonNode {
  const copy = structuredClone(document);
  rewrite(copy, new Set(), !String(copy.openapi ?? '').startsWith('3.1'));
  for (const content of contents(copy)) mediaWithoutSchema(content);
  return copy;
}

/** The `content` maps of the document's request bodies, responses and parameters. */
function contents(document: JsonNode): JsonNode[] {
  const out: JsonNode[] = [];
  const holders = (map: unknown) => (map && typeof map === 'object' ? Object.values<JsonNode>(map as JsonNode) : []);
  const take = (holder: JsonNode | undefined) => {
    if (holder && typeof holder === 'object' && holder.content && typeof holder.content === 'object') out.push(holder.content);
  };
  for (const item of holders(document.paths)) {
    for (const parameter of item?.parameters ?? []) take(parameter);
    for (const op of Object.values<JsonNode>(item ?? {})) {
      if (!op || typeof op !== 'object' || Array.isArray(op)) continue;
      take(op.requestBody);
      for (const parameter of Array.isArray(op.parameters) ? op.parameters : []) take(parameter);
      for (const response of holders(op.responses)) take(response);
    }
  }
  for (const kind of ['responses', 'requestBodies', 'parameters']) for (const holder of holders(document.components?.[kind])) take(holder);
  return out;
}

/**
 * A media type with examples but no schema takes (and gives) anything; without a schema the
 * validator would find no response validator for its status and fail every answer.
 */
function mediaWithoutSchema(content: JsonNode): void {
  for (const media of Object.values<unknown>(content)) if (media && typeof media === 'object' && (media as JsonNode).schema === undefined) (media as JsonNode).schema = {};
}

function rewrite(node: unknown, seen: Set<object>, version30: boolean): void {
  if (node === null || typeof node !== 'object' || seen.has(node)) return;
  seen.add(node);
  if (Array.isArray(node)) {
    for (const item of node) rewrite(item, seen, version30);
    return;
  }
  const object = node as JsonNode;
  nullableWithoutType(object);
  exclusiveBounds(object, version30);
  foreignPattern(object);
  unusableDefault(object);
  parameterWithoutSchema(object);
  for (const [key, value] of Object.entries<unknown>(object)) if (!dataKeys.has(key)) rewrite(value, seen, version30);
}

/**
 * OpenAPI 3.0 `nullable: true` on a schema without `type` (any value, or a `$ref`/composition): the
 * validator's Ajv refuses to compile it. Without a type there is nothing null would be refused by
 * but an `enum`, which gets `null`.
 */
function nullableWithoutType(schema: JsonNode): void {
  if (typeof schema.nullable !== 'boolean' || schema.type !== undefined) return;
  if (schema.nullable && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  delete schema.nullable;
}

/**
 * `exclusiveMinimum`/`exclusiveMaximum` in the form of the other dialect: OpenAPI 3.0 (JSON Schema
 * draft 4) writes `exclusiveMinimum: true` beside `minimum`, 3.1 (2020-12) the bound itself. Vendors
 * mix them up, and the validator compiles each version with its own meta-schema only.
 */
function exclusiveBounds(schema: JsonNode, version30: boolean): void {
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
function foreignPattern(schema: JsonNode): void {
  if (typeof schema.pattern !== 'string') return;
  try {
    new RegExp(schema.pattern, 'u');
  } catch {
    if (!warnedPatterns.has(schema.pattern)) {
      warnedPatterns.add(schema.pattern);
      console.warn(`pattern ${JSON.stringify(schema.pattern)} is not a JavaScript regular expression; it is not checked`);
    }
    delete schema.pattern;
  }
}

/**
 * A `readOnly` property with a `default`: the validator fills the default into a request and then
 * refuses the request for carrying a read-only property. A request never carries it; its default is
 * the server's business.
 */
function unusableDefault(schema: JsonNode): void {
  if (schema.readOnly === true && 'default' in schema) delete schema.default;
  // A `default: null` the schema itself refuses (no `nullable`, no null type): filled in, it would fail the request it was filled into.
  if (schema.default === null && schema.nullable !== true && ![schema.type].flat().includes('null') && schema.type !== undefined) delete schema.default;
}

/**
 * A parameter with examples but neither `schema` nor `content` takes any value; one without `style`
 * gets the default the specification gives it, which the validator's mutator needs spelled out.
 */
function parameterWithoutSchema(object: JsonNode): void {
  if (typeof object.in !== 'string' || typeof object.name !== 'string') return;
  if (object.schema === undefined && object.content === undefined) object.schema = {};
  if (object.content !== undefined) return;
  object.style ??= object.in === 'query' || object.in === 'cookie' ? 'form' : 'simple';
  object.explode ??= object.style === 'form';
  // Label and matrix path parameters are read before validation (parameter-styles.ts); the
  // validator's mutator refuses those styles, and has nothing left to split.
  if (object.in === 'path' && (object.style === 'label' || object.style === 'matrix')) object.style = 'simple';
}
