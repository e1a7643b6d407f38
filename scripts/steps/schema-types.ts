import { readFileSync } from 'node:fs';
import path from 'node:path';
import { banner } from '../lib/banner.js';
import { pascalCase, type SchemaSet } from '../lib/project.js';

export interface SchemaSetOutput {
  /** file name (in generated/schemas/<slug>/) -> contents */
  files: Record<string, string>;
}

interface LoadedSchema {
  name: string; // the file's base name, which is also its title
  id: string;
  schema: Record<string, any>;
}

function load(set: SchemaSet): LoadedSchema[] {
  return set.files.map((file) => {
    const schema = JSON.parse(readFileSync(file, 'utf8'));
    const name = path.basename(file, '.json');
    if (typeof schema.$id !== 'string') throw new Error(`${path.relative(process.cwd(), file)}: no $id`);
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
  const { createAjv } = await import('../lib/ajv.js');
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
  // Standalone code requires ajv's runtime helpers (formats, unicode length) CommonJS-style; a
  // module-local require keeps their interop the same under Node and under Vite.
  const preamble = code.includes('require(')
    ? "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n"
    : '';
  return `${banner(source + ' (ajv standalone)')}${preamble}${code}\n`;
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
