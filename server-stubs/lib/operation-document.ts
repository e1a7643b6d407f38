/**
 * One operation's slice of a contract: the document with only that operation under `paths`, and
 * only the components it reaches through `$ref`s and discriminator mappings, transitively (security
 * schemes are named, not referenced: all of them stay).
 *
 * express-openapi-validator resolves, preprocesses and compiles whatever document it is given.
 * Given the whole contract, a service's first request paid for every operation, a cost that grows
 * with the contract (bench/RESULTS.md, cold start). Given the slice, it pays for what it validates.
 */
import type { OpenAPI3 } from 'openapi-typescript';
import { deref, HTTP_METHODS, pointerTokens, type JsonNode } from './openapi/document.js';

const methods = new Set<string>(HTTP_METHODS);

export function operationDocument(document: OpenAPI3, path: string, method: string): OpenAPI3 {
  // The slice is cut along `$ref` pointers, whatever objects they name: the document read as plain JSON.
  const json: JsonNode = document;
  const item: JsonNode = {};
  // A path item may be a `$ref` to another one (3.1 and 3.0 alike): the slice carries the item itself.
  const source = deref<JsonNode | undefined>(document, document.paths?.[path]) ?? {};
  for (const [key, value] of Object.entries<unknown>(source)) if (!methods.has(key) || key === method) item[key] = value;
  const slice: JsonNode = { ...document, paths: { [path]: item }, components: {} };
  delete slice.webhooks;
  if (document.components?.securitySchemes) slice.components.securitySchemes = document.components.securitySchemes;

  const taken = new Set<string>();
  const take = (ref: string) => {
    if (!ref.startsWith('#/')) return;
    const [root, kind, name] = pointerTokens(ref);
    if (root === 'components' && kind !== undefined && name !== undefined) {
      const value = json.components?.[kind]?.[name];
      if (value === undefined || taken.has(`${kind}/${name}`)) return;
      taken.add(`${kind}/${name}`);
      (slice.components[kind] ??= {})[name] = value;
      visit(value);
    } else if (root === 'paths' && kind !== undefined && !(kind in slice.paths) && json.paths?.[kind]) {
      // A schema borrowed from another path: that path item comes along whole.
      slice.paths[kind] = json.paths[kind];
      visit(json.paths[kind]);
    } else if (root === 'paths' && kind !== undefined && name !== undefined && slice.paths[kind] === item && !(name in item) && json.paths?.[kind]?.[name] !== undefined) {
      // A schema borrowed from another operation of the same path: that operation comes along.
      item[name] = json.paths[kind][name];
      visit(item[name]);
    }
  };
  const visit = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const value of node) visit(value);
      return;
    }
    const object = node as JsonNode;
    if (typeof object.$ref === 'string') take(object.$ref);
    const mapping = object.discriminator?.mapping;
    if (mapping && typeof mapping === 'object') for (const target of Object.values<unknown>(mapping)) if (typeof target === 'string') take(target.startsWith('#') ? target : `#/components/schemas/${target}`);
    for (const value of Object.values<unknown>(object)) visit(value);
  };
  visit(item);
  return slice as OpenAPI3;
}
