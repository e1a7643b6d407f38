/**
 * Redoc renders descriptions and `x-badges` but ignores the contract's own extensions, so what
 * readers most need to know, that a part is only designed (`x-provisional`) and how often an
 * operation may be called (`x-rate-limit`), would be invisible. This copies the bundle and writes
 * both into what the reference does render; the bundle itself is never changed.
 *
 * Redoc also drops the boolean schema `false` (with a console warning), and with it the fields the
 * contracts forbid on purpose: the "exactly one of" branches (`properties: {template_id: false}`)
 * would read as if either field were allowed. The copy writes each such `false` as `{not: {}}`,
 * which validates nothing either, and says so in a description Redoc shows.
 *
 * An alias the bundle wrote (`x-alias-of`: mail's `/api/v1/...` twins of `/v1/...`, DECISIONS
 * P-2) is the same operation at a second path: the reference says so in its twin's entry rather
 * than drawing it again (mail's page drew 59 more operations, a third of its load).
 */
import type { OpenAPI3 } from 'openapi-typescript';
import { HTTP_METHODS } from '../../../server-stubs/lib/openapi/document.js';
import { isJsonObject, type JsonObject, type SchemaNode } from '../../../server-stubs/lib/openapi/json-schema.js';

export const PROVISIONAL_LABEL = 'Provisional: designed, not published.';
export const PROVISIONAL_BADGE = 'Provisional';
export const FORBIDDEN_FIELD_LABEL = 'Must not be present.';

export interface RateLimit {
  requests: number;
  windowSeconds: number;
  bucket?: string;
  'x-provisional'?: string;
}

export function rateLimitLine(limit: RateLimit): string {
  const shared = limit.bucket ? `, shared by the \`${limit.bucket}\` routes` : '';
  const line = `**Rate limit: ${limit.requests} requests per ${limit.windowSeconds} s**${shared}; beyond it the answer is 429 with \`Retry-After\`.`;
  return limit['x-provisional'] ? `${line} *(${PROVISIONAL_LABEL} ${oneLine(limit['x-provisional'])})*` : line;
}

export function rateLimitBadge(limit: RateLimit): string {
  return `${limit.requests} req / ${limit.windowSeconds} s`;
}

export function provisionalLine(note: string, what?: string): string {
  return `**${PROVISIONAL_LABEL}**${what ? ` (${what})` : ''} ${oneLine(note)}`;
}

/** A marked deep copy of `document`. */
export function markForReaders<T extends OpenAPI3>(document: T): T {
  const copy = structuredClone(document);
  markNode(copy, []);
  for (const item of Object.values(copy.paths ?? {})) markPathItem(item);
  for (const item of Object.values(copy.webhooks ?? {})) markPathItem(item);
  foldAliases(copy);
  return copy;
}

/** Each alias operation as a line in its twin's description; a path left without operations goes. */
function foldAliases(document: OpenAPI3) {
  const paths: JsonObject = isJsonObject(document.paths) ? document.paths : {};
  const byId = new Map<string, JsonObject>();
  for (const item of Object.values(paths)) {
    if (!isJsonObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (isJsonObject(operation) && typeof operation.operationId === 'string') byId.set(operation.operationId, operation);
    }
  }
  for (const [path, item] of Object.entries(paths)) {
    if (!isJsonObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const alias = item[method];
      if (!isJsonObject(alias)) continue;
      const aliasOf = alias['x-alias-of'];
      const twin = typeof aliasOf === 'string' ? byId.get(aliasOf) : undefined;
      if (!twin) continue;
      appendDescription(twin, `**Also served at \`${method.toUpperCase()} ${path}\`** (operationId \`${String(alias.operationId)}\`): the same operation, its rate-limit window shared.`);
      delete item[method];
    }
    if (!HTTP_METHODS.some((method) => isJsonObject(item[method]))) delete paths[path];
  }
}

/** Whether an `x-rate-limit` value says how many requests per how many seconds. */
export const isRateLimit = (value: unknown): value is RateLimit => isJsonObject(value) && typeof value.requests === 'number' && typeof value.windowSeconds === 'number';

function markPathItem(item: unknown) {
  if (!isJsonObject(item)) return;
  const note = item['x-provisional'];
  for (const method of HTTP_METHODS) {
    const operation = item[method];
    if (!isJsonObject(operation)) continue;
    // A provisional path item has no place Redoc renders, so each of its operations says it.
    if (typeof note === 'string' && operation['x-provisional'] === undefined) {
      addBadge(operation, PROVISIONAL_BADGE, '#b35c00');
      prependDescription(operation, provisionalLine(note, 'path'));
    }
    const limit = operation['x-rate-limit'];
    if (isRateLimit(limit)) {
      addBadge(operation, rateLimitBadge(limit), '#37474f');
      appendDescription(operation, rateLimitLine(limit));
    }
  }
}

/** Keywords whose value is one schema; `additionalProperties: false` is left, as Redoc renders it. */
const SCHEMA_KEYWORDS = new Set(['items', 'additionalItems', 'contains', 'not', 'if', 'then', 'else', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties']);
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions']);
/** Keywords whose value lists schemas. */
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

/** `false` as a schema Redoc renders: `{not: {}}` rejects every value as `false` does. */
function forbidden(inMap: boolean): SchemaNode {
  return {
    not: {},
    description: inMap ? `**${FORBIDDEN_FIELD_LABEL}**` : '**Nothing is allowed here** (the schema `false`).',
  };
}

/** Values that are data, not contract: never rewritten even if they hold the same key names. */
const DATA_KEYS = new Set(['example', 'default', 'const', 'enum']);

/**
 * `path` is the keys from the root to `node`, to tell an operation, a media type (which has no
 * description of its own) and an example's value from the rest.
 */
function markNode(node: unknown, path: string[]) {
  if (Array.isArray(node)) {
    if (SCHEMA_LISTS.has(path.at(-1) ?? '')) node.forEach((child, i) => child === false && (node[i] = forbidden(false)));
    return node.forEach((child, i) => markNode(child, [...path, String(i)]));
  }
  if (!isJsonObject(node)) return;
  const note = node['x-provisional'];
  const parent = path.at(-2);
  // A rate limit's note goes into the operation's rate-limit line; a media type's into its holder's description.
  if (typeof note === 'string' && path.at(-1) !== 'x-rate-limit' && parent !== 'content') {
    if (isOperation(path)) addBadge(node, PROVISIONAL_BADGE, '#b35c00');
    prependDescription(node, provisionalLine(note));
  }
  if (isJsonObject(node.content)) {
    for (const [mediaType, media] of Object.entries(node.content)) {
      if (isJsonObject(media) && typeof media['x-provisional'] === 'string') prependDescription(node, provisionalLine(media['x-provisional'], `\`${mediaType}\``));
    }
  }
  const isExample = path.at(-2) === 'examples';
  // In a `properties` map the keys are field names, which may well be `default` or `example`.
  const isNameMap = path.at(-1) === 'properties';
  const isSchemaMap = SCHEMA_MAPS.has(path.at(-1) ?? '') && !isExample;
  for (const [key, child] of Object.entries(node)) {
    if (key === 'x-provisional' || (!isNameMap && (DATA_KEYS.has(key) || (isExample && key === 'value')))) continue;
    // A schema's `examples` list holds values, however much they look like schemas.
    if (!isNameMap && key === 'examples' && Array.isArray(child)) continue;
    if (child === false && (isSchemaMap || (!isNameMap && SCHEMA_KEYWORDS.has(key)))) {
      node[key] = forbidden(isSchemaMap);
      continue;
    }
    markNode(child, [...path, key]);
  }
}

function isOperation(path: string[]): boolean {
  const method = path.at(-1) ?? '';
  return (path.at(-3) === 'paths' || path.at(-3) === 'webhooks') && (HTTP_METHODS as readonly string[]).includes(method);
}

function addBadge(node: JsonObject, name: string, color: string) {
  const badges: unknown[] = Array.isArray(node['x-badges']) ? node['x-badges'] : [];
  if (!badges.some((b) => isJsonObject(b) && b.name === name)) badges.push({ name, color });
  node['x-badges'] = badges;
}

function prependDescription(node: JsonObject, line: string) {
  node.description = typeof node.description === 'string' && node.description.trim() ? `${line}\n\n${node.description}` : line;
}

function appendDescription(node: JsonObject, line: string) {
  node.description = typeof node.description === 'string' && node.description.trim() ? `${node.description.trimEnd()}\n\n${line}` : line;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
