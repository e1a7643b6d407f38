import type { OpenAPI3 } from 'openapi-typescript';
import { banner } from '../lib/banner.js';
import { identifierFor, isIdentifier, propertyKey } from '../lib/identifiers.js';
import { deref, listOperations, requestBodyOf } from '../../server-stubs/lib/openapi/document.js';
import { schemaAt, isSchemaNode, type SchemaNode } from '../../server-stubs/lib/openapi/json-schema.js';

/** TypeScript types of a bundled document: paths, operations, components, webhooks, request defaults. */
export async function generateApiTypes(slug: string, document: OpenAPI3): Promise<string> {
  const { astToString, tsLiteral, tsUnion, NULL } = await import('openapi-typescript');
  const ast = await transformBundle(structuredClone(document), {
    // Left on, a `default` would make the field required in requests too, where it is optional.
    defaultNonNullable: false,
    // `Project` beside `components['schemas']['Project']`, for every component schema, response and parameter.
    rootTypes: true,
    rootTypesNoSchemaPrefix: true,
    rootTypesKeepCasing: true,
    transform(schema: SchemaNode) {
      const values = enumBranchValues(schema);
      if (!values) return undefined;
      const nullable = Array.isArray(schema.type) && schema.type.includes('null');
      return tsUnion([...values.map((v) => tsLiteral(v)), ...(nullable ? [NULL] : [])]);
    },
  });
  return `${banner(`generated/${slug}/openapi.json (openapi-typescript)`)}\n${usableRootTypes(withoutPathReferences(astToString(ast)))}\n${requestDefaults(document)}`;
}

/**
 * openapi-typescript's own entry (`openapiTS`) with its Redocly lint and bundle left out: it parses,
 * lints and bundles its input again, and the input here is the bundle the lint step passed: two
 * whole-document walks for nothing, long on a large document. The options are
 * openapi-typescript 7.13's (pinned): the ones this toolkit sets, the rest at that version's defaults.
 */
async function transformBundle(schema: OpenAPI3, options: { defaultNonNullable: boolean; rootTypes: boolean; rootTypesNoSchemaPrefix: boolean; rootTypesKeepCasing: boolean; transform: (schema: SchemaNode) => unknown }) {
  const { transformSchema, scanDiscriminators, resolveRef } = await import('openapi-typescript');
  const ctx = {
    additionalProperties: false,
    alphabetize: false,
    arrayLength: false,
    discriminators: scanDiscriminators(schema, {}),
    emptyObjectsUnknown: false,
    enum: false,
    enumValues: false,
    conditionalEnums: false,
    dedupeEnums: false,
    excludeDeprecated: false,
    exportType: false,
    immutable: false,
    injectFooter: [],
    pathParamsAsTypes: false,
    postTransform: undefined,
    propertiesRequiredByDefault: false,
    silent: true,
    inject: undefined,
    transformProperty: undefined,
    makePathsEnum: false,
    generatePathParams: false,
    readWriteMarkers: false,
    ...options,
    resolve: ($ref: string) => resolveRef(schema, $ref, { silent: true }),
  };
  return transformSchema(schema, ctx as never);
}

/**
 * A `$ref` into `paths` or `webhooks` (`#/paths/~1anything/post/requestBody/…/properties/x`, valid
 * but rare) becomes an indexed access openapi-typescript gets wrong: through an optional
 * `requestBody` and a `schema` key the type does not have, so it does not compile. Such a type is
 * `unknown`: loose, where the alternative is a file that does not compile.
 */
function withoutPathReferences(text: string): string {
  return text.replace(/\b(?:paths|webhooks)(?:\["(?:[^"\\]|\\.)*"\])+/g, 'unknown');
}

/** The file's own exports, which no root type may take. */
const moduleNames = ['paths', 'webhooks', 'components', '$defs', 'operations', 'operationDefaults'];

/**
 * openapi-typescript writes a root type per component under its name as it is (`export type
 * Links-Self = …`), which does not compile for a name that is not an identifier. Such an alias is
 * written under a mapped name (`LinksSelf`) or, where that is taken, left out: the type is still
 * `components['schemas']['Links-Self']`.
 */
function usableRootTypes(text: string): string {
  const keepsName = (name: string) => isIdentifier(name) && !moduleNames.includes(name);
  const alias = /^export type (.+?) = (components\[(?:'[^']*'|"[^"]*")\]\[(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\]);$/;
  const lines = text.split('\n');
  const taken = new Set<string>(moduleNames);
  for (const line of lines) {
    const name = alias.exec(line)?.[1];
    if (name !== undefined && keepsName(name)) taken.add(name);
  }
  return lines
    .flatMap((line) => {
      const m = alias.exec(line);
      if (!m) return [line];
      const [, name, target] = m as unknown as [string, string, string];
      if (keepsName(name)) return [line];
      const mapped = identifierFor(name, taken);
      if (!mapped) return [];
      taken.add(mapped);
      return [`export type ${mapped} = ${target};`];
    })
    .join('\n');
}

/**
 * The values of a schema that is a choice of enums: `{type: string, anyOf: [{enum: published}, {enum:
 * designed, x-provisional}]}` is how a contract marks part of an enum provisional. openapi-typescript
 * would write `string | (...) | (...)`, which accepts any string; the contract accepts only these.
 */
function enumBranchValues(schema: SchemaNode): unknown[] | undefined {
  const branches = schema.anyOf ?? schema.oneOf;
  if (!Array.isArray(branches) || branches.length === 0 || schema.enum || schema.const !== undefined) return undefined;
  const values: unknown[] = [];
  for (const branch of branches) {
    if (!isSchemaNode(branch)) return undefined;
    if (Array.isArray(branch.enum)) values.push(...branch.enum);
    else if ('const' in branch) values.push(branch.const);
    else return undefined;
  }
  return [...new Set(values)].filter((v) => v !== null);
}

/**
 * Per operation, the request fields that have a contract `default`. Clients may leave them out; the
 * stubs' validator fills them in, so handler types (server-stubs/lib/handlers.ts) see them present.
 */
function requestDefaults(document: OpenAPI3): string {
  const rows: string[] = [];
  for (const operation of listOperations(document)) {
    const parts: Record<string, string[]> = {};
    for (const parameter of operation.op.parameters) {
      if (deref(document, parameter.schema)?.default !== undefined) (parts[parameter.in] ??= []).push(parameter.name);
    }
    const media = deref(document, requestBodyOf(document, operation)?.content?.['application/json']);
    const body = schemaAt(document, media?.schema);
    for (const part of [body, ...(body?.allOf ?? [])].map((s) => schemaAt(document, s))) {
      for (const [name, property] of Object.entries(part?.properties ?? {})) {
        if (schemaAt(document, property)?.default !== undefined) (parts.body ??= []).push(name);
      }
    }
    const fields = Object.entries(parts).map(([where, names]) => `${where}: ${[...new Set(names)].map((n) => JSON.stringify(n)).join(' | ')}`);
    if (fields.length > 0) rows.push(`    ${propertyKey(operation.id)}: { ${fields.join('; ')} };`);
  }
  return `/** Request fields with a contract \`default\`, by operation: the stubs' validator fills them in. */
export interface operationDefaults {
${rows.join('\n')}
}
`;
}
