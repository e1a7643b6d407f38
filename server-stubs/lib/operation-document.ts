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
import { deref, HTTP_METHODS, pointerTokens, valueAt } from './openapi/document.js';
import { isJsonObject } from './openapi/json-schema.js';

const methods = new Set<string>(HTTP_METHODS);

export function operationDocument(document: OpenAPI3, path: string, method: string): OpenAPI3 {
  // The slice is cut along `$ref` pointers, whatever objects they name: it is built as plain JSON.
  const item: Record<string, unknown> = {};
  // A path item may be a `$ref` to another one (3.1 and 3.0 alike): the slice carries the item itself.
  const source = deref(document, document.paths?.[path]) ?? {};
  for (const [key, value] of Object.entries(source)) if (!methods.has(key) || key === method) item[key] = value;
  const paths: Record<string, unknown> = { [path]: item };
  const components: Record<string, Record<string, unknown>> = {};
  const { webhooks: _webhooks, ...rest } = document;
  const slice = { ...rest, paths, components };
  if (document.components?.securitySchemes) components.securitySchemes = document.components.securitySchemes;

  const taken = new Set<string>();
  const take = (ref: string) => {
    if (!ref.startsWith('#/')) return;
    const [root, kind, name] = pointerTokens(ref);
    if (root === 'components' && kind !== undefined && name !== undefined) {
      const value = valueAt(document, ['components', kind, name]);
      if (value === undefined || taken.has(`${kind}/${name}`)) return;
      taken.add(`${kind}/${name}`);
      (components[kind] ??= {})[name] = value;
      visit(value);
    } else if (root === 'paths' && kind !== undefined && !(kind in paths) && document.paths?.[kind]) {
      // A schema borrowed from another path: that path item comes along whole.
      paths[kind] = document.paths[kind];
      visit(document.paths[kind]);
    } else if (root === 'paths' && kind !== undefined && name !== undefined && paths[kind] === item && !(name in item) && valueAt(document, ['paths', kind, name]) !== undefined) {
      // A schema borrowed from another operation of the same path: that operation comes along.
      item[name] = valueAt(document, ['paths', kind, name]);
      visit(item[name]);
    }
  };
  const visit = (node: unknown) => {
    if (Array.isArray(node)) {
      for (const value of node) visit(value);
      return;
    }
    if (!isJsonObject(node)) return;
    if (typeof node.$ref === 'string') take(node.$ref);
    const mapping = isJsonObject(node.discriminator) ? node.discriminator.mapping : undefined;
    if (isJsonObject(mapping)) for (const target of Object.values(mapping)) if (typeof target === 'string') take(target.startsWith('#') ? target : `#/components/schemas/${target}`);
    for (const value of Object.values(node)) visit(value);
  };
  visit(item);
  return slice as OpenAPI3;
}
