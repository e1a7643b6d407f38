import { readFileSync } from 'node:fs';
import path from 'node:path';
import { banner } from '../lib/banner.js';
import { pascalCase, type SchemaSet } from '../lib/project.js';
import { isSchemaNode, type SchemaNode } from '../../server-stubs/lib/openapi/json-schema.js';

export interface SchemaSetOutput {
  /** file name (in generated/schemas/<slug>/) -> contents */
  files: Record<string, string>;
}

interface LoadedSchema {
  name: string; // the file's base name, which is also its title
  id: string;
  schema: SchemaNode;
}

function load(set: SchemaSet): LoadedSchema[] {
  return set.files.map((file) => {
    const schema: unknown = JSON.parse(readFileSync(file, 'utf8'));
    const name = path.basename(file, '.json');
    if (!isSchemaNode(schema) || typeof schema.$id !== 'string') throw new Error(`${path.relative(process.cwd(), file)}: no $id`);
    if (schema.title !== name) throw new Error(`${file}: title must be the file name (${name})`);
    return { name, id: schema.$id, schema };
  });
}

/**
 * Types (json-schema-to-typescript) and precompiled validators (ajv 2020, standalone) for one
 * folder of schemas, plus an index that pairs each type with its validator.
 */
export async function generateSchemaSet(set: SchemaSet): Promise<SchemaSetOutput> {
  const schemas = load(set);
  const source = `schemas/${set.slug}/*.json`;
  return {
    files: {
      'types.gen.ts': await generateTypes(set, schemas, source),
      'validators.gen.js': await generateValidators(schemas, source),
      'validators.gen.d.ts': validatorDeclarations(schemas, source),
      'index.gen.ts': generateIndex(schemas, source),
    },
  };
}

async function generateTypes(set: SchemaSet, schemas: LoadedSchema[], source: string): Promise<string> {
  const { compile } = await import('json-schema-to-typescript');
  // One synthetic root that references every file, so each type is declared once, by its title.
  const rootName = `${pascalCase(set.slug)}SchemaIndex`;
  const root = {
    title: rootName,
    type: 'object',
    properties: Object.fromEntries(schemas.map((s) => [s.name, { $ref: `${s.name}.json` }])),
    additionalProperties: false,
  };
  const ts = await compile(root as never, rootName, {
    cwd: set.dir,
    bannerComment: '',
    unreachableDefinitions: true,
    additionalProperties: false,
    // "2 to 5 variants" would otherwise become a union of four tuple types; the count is the
    // validators' business, the type says "an array of variants" like openapi-typescript does.
    ignoreMinAndMaxItems: true,
    format: true,
  });
  const withoutRoot = ts.replace(new RegExp(`export interface ${rootName} \\{[\\s\\S]*?\\n\\}\\n`), '');
  return `${banner(source + ' (json-schema-to-typescript)')}\n${withoutRoot.trim()}\n`;
}

async function generateValidators(schemas: LoadedSchema[], source: string): Promise<string> {
  const { createAjv } = await import('../../server-stubs/lib/openapi/ajv.js');
  const { default: standaloneCode } = await import('ajv/dist/standalone/index.js');
  // strictSchema catches misspelt keywords; the type and required checks would reject idiomatic 2020-12.
  const ajv = createAjv({
    code: { source: true, esm: true, lines: true },
    strict: true,
    strictTypes: false,
    strictRequired: false,
    strictTuples: false,
  });
  for (const s of schemas) ajv.addSchema(s.schema);
  const code = (standaloneCode as unknown as (a: unknown, refs: Record<string, string>) => string)(
    ajv,
    Object.fromEntries(schemas.map((s) => [s.name, s.id])),
  );
  return `${banner(source + ' (ajv standalone)')}${withoutRequire(code)}\n`;
}

/**
 * ajv's standalone code reaches its runtime helpers with CommonJS `require`, even with `esm: true`.
 * The validators must also run in browsers, where there is no `require` and `node:module` does not
 * bundle. So ajv-formats is imported as an ES module (a named export reads the same under every
 * CommonJS interop), and ajv's `default`-exported helpers, whose interop differs between Node and
 * bundlers, are replaced by small local functions.
 */
const RUNTIME: Record<string, { name: string; source: string }> = {
  'ajv-formats/dist/formats': { name: 'ajvFormats', source: "import * as ajvFormats from 'ajv-formats/dist/formats.js';" },
  // JSON Schema string length counts code points (a surrogate pair is one), as ajv's ucs2length does.
  'ajv/dist/runtime/ucs2length.default': {
    name: 'ucs2length',
    source: 'function ucs2length(str) {\n  let length = 0;\n  for (const _ of str) length++;\n  return length;\n}',
  },
  // Equality of JSON values for const, enum and uniqueItems. Own keys only: unlike ajv's helper
  // (fast-deep-equal), data with a key such as `valueOf` or `constructor` cannot make it throw.
  'ajv/dist/runtime/equal.default': {
    name: 'jsonEqual',
    source: [
      'function jsonEqual(a, b) {',
      '  if (a === b) return true;',
      "  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a !== a && b !== b;",
      '  if (Array.isArray(a) !== Array.isArray(b)) return false;',
      '  if (Array.isArray(a)) return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));',
      '  const keys = Object.keys(a);',
      '  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));',
      '}',
    ].join('\n'),
  },
};

export function withoutRequire(code: string): string {
  const used = new Set<string>();
  const out = code.replace(/require\("([^"]+)"\)(\.default)?/g, (call, id: string, dflt: string | undefined) => {
    const key = `${id}${dflt ?? ''}`;
    if (!Object.hasOwn(RUNTIME, key)) throw new Error(`schema-types: the validators need ${call}; make it browser-safe in RUNTIME (scripts/steps/schema-types.ts)`);
    used.add(key);
    return RUNTIME[key]!.name;
  });
  const preamble = Object.entries(RUNTIME).filter(([key]) => used.has(key)).map(([, helper]) => `${helper.source}\n`);
  return `${preamble.join('')}${out}`;
}

function validatorDeclarations(schemas: LoadedSchema[], source: string): string {
  const lines = schemas.map(
    (s) => `export declare const ${s.name}: ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };`,
  );
  return `${banner(source + ' (ajv standalone)')}import type { ErrorObject } from 'ajv';\n\n${lines.join('\n')}\n`;
}

/** The validation runtime every schema set's index shares: generated/schemas/validation.gen.ts. */
export function generateValidationRuntime(): string {
  return `${banner('scripts/steps/schema-types.ts')}
import type { ErrorObject } from 'ajv';

export interface ValidationIssue {
  /** JSON Pointer of the offending value; '' is the value itself. */
  path: string;
  message: string;
}

export type ValidationResult<T> =
  | { ok: true; value: T }
  | { ok: false; errors: ValidationIssue[]; message: string };

export type CompiledValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

function describe(error: ErrorObject): ValidationIssue {
  const params = error.params as Record<string, unknown>;
  const detail =
    error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties'
      ? \`: \${String(params.additionalProperty ?? params.unevaluatedProperty)}\`
      : error.keyword === 'enum'
        ? \`: \${JSON.stringify(params.allowedValues)}\`
        : error.keyword === 'const'
          ? \`: \${JSON.stringify(params.allowedValue)}\`
          : '';
  return { path: error.instancePath, message: \`\${error.message ?? error.keyword}\${detail}\` };
}

/** A precompiled ajv validator as a function that returns the value typed, or readable errors. */
export function wrap<T>(name: string, check: CompiledValidator): (data: unknown) => ValidationResult<T> {
  return (data) => {
    if (check(data)) return { ok: true, value: data as T };
    const errors = (check.errors ?? []).map(describe);
    const message = \`invalid \${name}: \${errors.map((e) => \`\${e.path || '(root)'} \${e.message}\`).join('; ')}\`;
    return { ok: false, errors, message };
  };
}
`;
}

function generateIndex(schemas: LoadedSchema[], source: string): string {
  const names = schemas.map((s) => s.name);
  return `${banner(source)}
import * as compiled from './validators.gen.js';
import type { ${names.join(', ')} } from './types.gen.js';
import { wrap } from '../validation.gen.js';

export type * from './types.gen.js';
export type { ValidationIssue, ValidationResult } from '../validation.gen.js';

/** \`validate.<Type>(value)\`: the value typed, or readable errors. Precompiled: no ajv at run time. */
export const validate = {
${names.map((n) => `  ${n}: wrap<${n}>('${n}', compiled.${n}),`).join('\n')}
};

/** The names of the schemas of this set. */
export const schemaNames = ${JSON.stringify(names)} as const;
`;
}
