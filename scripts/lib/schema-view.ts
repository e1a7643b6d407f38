/**
 * An imported document's schemas as the toolkit's validators read them (DECISIONS I-1: the document
 * itself is never edited; this is a copy for checking). Ajv speaks JSON Schema 2020-12 and compiles
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
import type { JsonNode } from './operations.js';

export interface SchemaView {
  /** the document with its schemas in the form above (the input when nothing needed changing) */
  document: JsonNode;
  /** one line per keyword dropped, naming where */
  notes: string[];
}

/** The formats ajv-formats checks (scripts/lib/ajv.ts loads them all). */
const KNOWN_FORMATS = new Set(['date', 'time', 'date-time', 'iso-time', 'iso-date-time', 'duration', 'uri', 'uri-reference', 'uri-template', 'url', 'email', 'hostname', 'ipv4', 'ipv6', 'regex', 'uuid', 'json-pointer', 'json-pointer-uri-fragment', 'relative-json-pointer', 'byte', 'int32', 'int64', 'float', 'double', 'password', 'binary']);
const JSON_TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'integer', 'string']);
/** Members holding values, not schemas or OpenAPI objects. */
const VALUES = new Set(['example', 'examples', 'default', 'const', 'enum', 'x-wire-example']);

/** Whether JavaScript compiles a JSON Schema `pattern` as Ajv will (unicode mode). */
export function compilablePattern(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

export function schemaView(document: JsonNode): SchemaView {
  const notes: string[] = [];
  const legacy = !/^3\.1/.test(String(document.openapi ?? ''));

  /** Copies `node` only where a member changes, so an untouched document comes back as itself. */
  const mapMembers = (node: JsonNode, visit: (key: string, value: unknown) => unknown): JsonNode => {
    let out: JsonNode | undefined;
    for (const [key, value] of Object.entries(node)) {
      const next = visit(key, value);
      if (next !== value) (out ??= (Array.isArray(node) ? [...node] : { ...node }) as JsonNode)[key] = next;
    }
    return out ?? node;
  };

  /** A schema: its fixes, then its subschemas. */
  const inSchema = (node: unknown, at: string): unknown => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return node;
    const fixed = schemaFixes(node as JsonNode, at, legacy, notes);
    return mapMembers(fixed, (key, value) => {
      if (SUBSCHEMA.has(key)) return inSchema(value, `${at}/${key}`);
      if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) return mapMembers(value, (i, item) => inSchema(item, `${at}/${key}/${i}`));
      if (SUBSCHEMA_MAPS.has(key) && value && typeof value === 'object') return mapMembers(value as JsonNode, (name, item) => inSchema(item, `${at}/${key}/${name}`));
      return value;
    });
  };

  /** Any other OpenAPI object: schemas are found under `schema` and `components.schemas`. */
  const inDocument = (node: unknown, at: string): unknown => {
    if (!node || typeof node !== 'object') return node;
    return mapMembers(node as JsonNode, (key, value) => {
      if (VALUES.has(key) || key.startsWith('x-')) return value;
      if (key === 'schema') return inSchema(value, `${at}/${key}`);
      if (key === 'schemas' && at === '#/components' && value && typeof value === 'object') return mapMembers(value as JsonNode, (name, item) => inSchema(item, `${at}/schemas/${name}`));
      return inDocument(value, `${at}/${key}`);
    });
  };

  return { document: inDocument(document, '#') as JsonNode, notes };
}

const SUBSCHEMA = new Set(['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema', 'additionalItems']);
const SUBSCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** The fixes above for one node, when it is a schema that needs them; the node itself otherwise. */
function schemaFixes(node: JsonNode, at: string, legacy: boolean, notes: string[]): JsonNode {
  let s = node;
  const own = () => (s === node ? (s = { ...node }) : s);
  if (typeof s.pattern === 'string' && !compilablePattern(s.pattern)) {
    notes.push(`${at}: pattern ${JSON.stringify(s.pattern)} is not a JavaScript regular expression; that keyword is not checked`);
    delete own().pattern;
  }
  if (s.type !== undefined && typeof s.type !== 'object' && !JSON_TYPES.has(String(s.type))) {
    notes.push(`${at}: type ${JSON.stringify(s.type)} is not a JSON Schema type; that keyword is not checked`);
    delete own().type;
  } else if (Array.isArray(s.type) && s.type.some((t: unknown) => !JSON_TYPES.has(String(t)))) {
    own().type = s.type.filter((t: unknown) => JSON_TYPES.has(String(t)));
  }
  if (typeof s.required === 'boolean') delete own().required;
  // A format nobody defined (`uriref`, `iso-country-code`) is an annotation in 2020-12 and ignored
  // anyway; Ajv would warn about it on every compile.
  if (typeof s.format === 'string' && !KNOWN_FORMATS.has(s.format)) delete own().format;
  for (const [exclusive, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof s[exclusive] !== 'boolean') continue;
    const copy = own();
    if (copy[exclusive] && typeof copy[bound] === 'number') {
      copy[exclusive] = copy[bound];
      delete copy[bound];
    } else delete copy[exclusive];
  }
  if (Array.isArray(s.items) && !Array.isArray(s.prefixItems)) {
    const copy = own();
    copy.prefixItems = copy.items;
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
function withNull(schema: JsonNode): JsonNode {
  if (typeof schema.type === 'string' || Array.isArray(schema.type)) {
    const types = [schema.type].flat();
    const out: JsonNode = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
    return out;
  }
  const constrained = ['$ref', 'allOf', 'anyOf', 'oneOf', 'enum', 'const', 'not'].some((k) => k in schema);
  return constrained ? { anyOf: [schema, { type: 'null' }] } : schema;
}
