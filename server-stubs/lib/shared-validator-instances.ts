/**
 * express-openapi-validator's ajv instances, shared by the operations of one document (per side:
 * request or response, and per validation settings).
 *
 * The library makes ajv instances for each validator it builds, registers the document's component
 * schemas in each, and compiles every root schema (an operation's parameters, its body, one of its
 * responses) with the document's `components` embedded: ajv resolves a root's `$ref` to
 * `#/components/schemas/X` inside that root, so a component used by forty operations was compiled
 * forty times, in forty instances. Here the operations of a document share the instances, and a root's
 * `$ref` to a component is pointed at the component the instance registered (an alias in `ajv.refs`,
 * ajv's own mechanism for ids), which ajv then compiles once and calls from every root.
 *
 * What is shared must be what each operation would have compiled alone:
 * - a slice's component schemas are compared with those registered (by their JSON); a slice whose
 *   components differ gets instances of its own, as before (they never should: slices are cut from
 *   one document, and the preprocessor's changes to a schema depend on that schema alone);
 * - a root's `$ref` is pointed at a registered component only when everything that component refers
 *   to, transitively, is a component schema too (a registered component resolves its `$ref`s from
 *   itself, where `#/paths/...` or `#/components/schemas/X/properties/y` are not found);
 * - a slice whose schemas carry ids, anchors or their own `$schema` keeps instances of its own (ajv
 *   registers ids per instance, and would find one operation's from another's root);
 * - the ajv options are the same for every root of an instance (they come from the same settings),
 *   and the formats a slice brings that the validator does not know are added before it compiles.
 */
import { createRequire } from 'node:module';
import type { OpenAPI3 } from 'openapi-typescript';

const require = createRequire(import.meta.url);
const eov = 'express-openapi-validator/dist';
const { createRequestAjv, createResponseAjv } = require(`${eov}/framework/ajv/index.js`);
// The ajv and json-schema-traverse the library itself loads.
const libraryRequire = createRequire(require.resolve('express-openapi-validator'));
const { resolveUrl, normalizeId } = libraryRequire('ajv/dist/compile/resolve.js');
const traverse: (schema: unknown, options: { allKeys: boolean }, visit: (schema: Record<string, unknown>) => void) => void = libraryRequire('json-schema-traverse');

/** What this module and the adapter use of the library's ajv instances. */
export interface LibraryAjv {
  addSchema(schema: unknown, key: string): unknown;
  addFormat(name: string, format: true): unknown;
  errorsText(errors: unknown, options: { dataVar: string }): string;
  readonly refs: Record<string, unknown>;
  readonly opts: { uriResolver: unknown };
}

const COMPONENT = '#/components/schemas/';
/** Names whose `$ref` is the name itself: no JSON-pointer or URI escaping between the two. */
const PLAIN_NAME = /^[\w.-]+$/;
const componentRef = (ref: unknown): string | undefined => {
  if (typeof ref !== 'string' || !ref.startsWith(COMPONENT)) return undefined;
  const name = ref.slice(COMPONENT.length);
  return PLAIN_NAME.test(name) ? name : undefined;
};

/** Schema keywords by which ajv registers a schema apart from its key, or reads it in another dialect (the id is `id` in draft 4, OpenAPI 3.0's dialect). */
const identifying = (version: unknown) => [String(version).startsWith('3.0') ? 'id' : '$id', '$anchor', '$dynamicAnchor', '$recursiveAnchor', '$dynamicRef', '$recursiveRef', '$schema'];

/** Whether ajv, walking a slice's schemas as it does when it registers a root, would meet an id, an anchor or a `$schema`. */
export function carriesSchemaIds(apiDoc: OpenAPI3): boolean {
  const keywords = identifying(apiDoc.openapi);
  let found = false;
  const visit = (schema: Record<string, unknown>) => {
    if (!found && keywords.some((keyword) => typeof schema[keyword] === 'string')) found = true;
  };
  traverse({ paths: apiDoc.paths, components: apiDoc.components }, { allKeys: true }, visit);
  return found;
}

/** Deletes the `x-stoplight` notes the library's `createAjv` deletes from every document it is given (once per slice here, not once per instance). */
export function dropStoplightNotes(document: OpenAPI3): void {
  traverse(document, { allKeys: true }, (schema) => {
    if ('x-stoplight' in schema) delete schema['x-stoplight'];
  });
}

/** Every `$ref` string anywhere in `node`. */
function refsIn(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refsIn(item, out);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else refsIn(value, out);
    }
  }
  return out;
}

/** The instances of one side of one document, with the component schemas registered in them. */
class SharedSide {
  private instances: LibraryAjv[] | undefined;
  /** component name → the JSON of the schema registered under it */
  private readonly registered = new Map<string, string>();
  private readonly schemas = new Map<string, unknown>();
  private readonly formats = new Set<string>();
  private readonly aliasable = new Map<string, boolean>();

  constructor(private readonly create: (apiDoc: OpenAPI3) => LibraryAjv[]) {}

  /** The shared instances for a slice (its component schemas registered), or none when its components differ from those registered. */
  instancesFor(apiDoc: OpenAPI3, formats: string[]): LibraryAjv[] | undefined {
    if (carriesSchemaIds(apiDoc)) return undefined;
    const fresh: Array<[string, unknown, string]> = [];
    for (const [name, schema] of Object.entries<unknown>(apiDoc.components?.schemas ?? {})) {
      let text: string;
      try {
        text = JSON.stringify(schema);
      } catch {
        return undefined;
      }
      const known = this.registered.get(name);
      if (known === undefined) fresh.push([name, schema, text]);
      else if (known !== text) return undefined;
    }
    // Made from the first slice (the options of every slice are the same); its components are registered below like any other's.
    const instances = (this.instances ??= this.create({ openapi: apiDoc.openapi, info: apiDoc.info, paths: {} } as OpenAPI3).map((ajv) => this.aliasing(ajv)));
    for (const [name, schema, text] of fresh) {
      for (const ajv of instances) ajv.addSchema(schema, `${COMPONENT}${name}`);
      this.registered.set(name, text);
      this.schemas.set(name, schema);
    }
    for (const format of formats) {
      if (this.formats.has(format)) continue;
      this.formats.add(format);
      for (const ajv of instances) ajv.addFormat(format, true);
    }
    return instances;
  }

  /**
   * The instance, with each root it is given pointed at the registered components it embeds. The
   * library adds its roots itself (`useAjvCache`), under keys it makes: the alias is set as a root is added.
   */
  private aliasing(ajv: LibraryAjv): LibraryAjv {
    const addSchema = ajv.addSchema.bind(ajv);
    ajv.addSchema = (schema: unknown, key: string) => {
      if (typeof key === 'string' && !key.startsWith(COMPONENT) && schema !== null && typeof schema === 'object') {
        const embedded: unknown = (schema as { components?: { schemas?: unknown } }).components?.schemas;
        const baseId: string = normalizeId(key);
        if (embedded !== null && typeof embedded === 'object') {
          for (const name of Object.keys(embedded)) {
            if (!PLAIN_NAME.test(name) || !this.isAliasable(name)) continue;
            ajv.refs[resolveUrl(ajv.opts.uriResolver, baseId, `${COMPONENT}${name}`)] = `${COMPONENT}${name}`;
          }
        }
      }
      return addSchema(schema, key);
    };
    return ajv;
  }

  /** Whether `name` and every schema it reaches refer only to registered component schemas. */
  private isAliasable(name: string): boolean {
    let known = this.aliasable.get(name);
    if (known !== undefined) return known;
    known = true;
    const seen = new Set([name]);
    const queue = [name];
    while (known && queue.length > 0) {
      const next = queue.shift()!;
      if (!this.schemas.has(next)) known = false;
      for (const ref of known ? refsIn(this.schemas.get(next)) : []) {
        const target = componentRef(ref);
        if (target === undefined) known = false;
        else if (!seen.has(target)) {
          seen.add(target);
          queue.push(target);
        }
      }
    }
    this.aliasable.set(name, known);
    return known;
  }
}

/** The shared sides of one document and settings. */
export interface SharedInstances {
  /** the request side's `[ajv, ajvBody]`, as the library's RequestValidator makes them */
  request(apiDoc: OpenAPI3, formats: string[]): [LibraryAjv, LibraryAjv] | undefined;
  /** the response side's `ajvBody`, as the library's ResponseValidator makes it */
  response(apiDoc: OpenAPI3, formats: string[]): LibraryAjv | undefined;
}

type AjvOptions = Record<string, unknown>;

/**
 * Shared instances for the library's request and response ajv options (as its `AjvOptions.request`
 * and `.response` give them; the formats come slice by slice). The request side makes the two
 * instances of the library's RequestValidator: the first always coerces types (it checks
 * parameters), the second as told.
 */
export function sharedInstances(requestOptions: () => AjvOptions, responseOptions: () => AjvOptions): SharedInstances {
  const request = new SharedSide((apiDoc) => {
    const options: AjvOptions = { ...requestOptions(), formats: {} };
    return [createRequestAjv(apiDoc, options.coerceTypes ? options : { ...options, coerceTypes: true }), createRequestAjv(apiDoc, options)];
  });
  const response = new SharedSide((apiDoc) => [createResponseAjv(apiDoc, { ...responseOptions(), formats: {} })]);
  return {
    request: (apiDoc, formats) => request.instancesFor(apiDoc, formats) as [LibraryAjv, LibraryAjv] | undefined,
    response: (apiDoc, formats) => response.instancesFor(apiDoc, formats)?.[0],
  };
}
