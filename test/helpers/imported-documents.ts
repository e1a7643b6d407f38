/**
 * Documents the platform did not write, as `npm run add-service` leaves them: a bundle at
 * `<dir>/<slug>/openapi.json`. Third-party documents come from the installed @readme/oas-examples
 * package and are bundled in memory (never copied into the repository); the rest are small
 * documents of this test's own, for what no published example shows.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { OpenAPI3 } from 'openapi-typescript';
import { asDocument } from './fixture-document.js';

/** A stack frame, as a crash would print it: never in what a tool says of a document it was given. */
export const STACK_FRAME = /\n\s+at (?:async )?\S+ \(|\n\s+at \/|node_modules\/.*:\d+/;

const examplesDir = path.dirname(createRequire(import.meta.url).resolve('@readme/oas-examples/package.json'));

/** `3.0/petstore` -> the document of node_modules/@readme/oas-examples/3.0/json/petstore.json, bundled. */
export async function bundleExample(name: string): Promise<OpenAPI3> {
  const { bundle, createConfig } = await import('@redocly/openapi-core');
  const [version, file] = name.split('/');
  const config = await createConfig({});
  const result = await bundle({ ref: path.join(examplesDir, version!, 'json', `${file}.json`), config, dereference: false });
  const errors = result.problems.filter((p) => p.severity === 'error');
  if (errors.length) throw new Error(`bundle ${name}: ${errors.map((e) => e.message).join('; ')}`);
  return result.bundle.parsed as OpenAPI3;
}

export function writeBundle(dir: string, slug: string, document: object | string): void {
  mkdirSync(path.join(dir, slug), { recursive: true });
  writeFileSync(path.join(dir, slug, 'openapi.json'), typeof document === 'string' ? document : JSON.stringify(document, null, 2));
}

/**
 * A 3.0 document with what trips validators and generators: a relative server URL, an apiKey in
 * the query, a required deepObject query parameter, 3.0 `nullable` without a type, boolean
 * `exclusiveMinimum`, a pattern JavaScript cannot compile (`\Z`), a recursive schema, a `default`
 * error response, a media type with an example and no schema, a body with no example at all.
 */
export const quirks = asDocument({
  openapi: '3.0.3',
  info: { title: 'Quirks', version: '1.0.0' },
  servers: [{ url: '/api/v2' }],
  security: [{ key: [] }],
  paths: {
    '/things': {
      get: {
        operationId: 'listThings',
        parameters: [
          {
            name: 'filter',
            in: 'query',
            required: true,
            style: 'deepObject',
            explode: true,
            schema: { type: 'object', required: ['color'], properties: { color: { type: 'string', enum: ['red', 'blue'] } } },
            example: { color: 'red' },
          },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 100 } },
        ],
        responses: {
          '200': { description: 'A page', content: { 'application/json': { schema: { $ref: '#/components/schemas/Page' }, example: { items: [{ name: 'kettle', note: null, score: 2 }], next: null } } } },
          default: { $ref: '#/components/responses/Error' },
        },
      },
      post: {
        operationId: 'createThing',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
        responses: {
          '201': { description: 'Created', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' }, example: { name: 'kettle', note: 'hot', score: 1.5 } } } },
          default: { $ref: '#/components/responses/Error' },
        },
      },
    },
    '/legacy': {
      get: {
        operationId: 'legacyText',
        security: [],
        responses: { '200': { description: 'Text', content: { 'text/plain': { example: 'hello' } } } },
      },
    },
  },
  components: {
    securitySchemes: { key: { type: 'apiKey', in: 'query', name: 'api_key' } },
    responses: {
      Error: { description: 'Any error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: { code: 0, message: 'Something went wrong' } } } },
    },
    schemas: {
      Thing: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', pattern: '^[a-z]+\\Z', maxLength: 40 },
          note: { type: 'string', nullable: true },
          score: { type: 'number', minimum: 0, exclusiveMinimum: true },
          parent: { $ref: '#/components/schemas/Thing' },
        },
      },
      Page: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Thing' } }, next: { nullable: true } } },
      Error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' } } },
    },
  },
});

/** A valid document whose one answer contradicts its own schema: the example says `id` is text. */
export const liar = asDocument({
  openapi: '3.1.0',
  info: { title: 'Liar', version: '1.0.0' },
  paths: {
    '/widgets/{id}': {
      get: {
        operationId: 'getWidget',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' }, example: 7 }],
        responses: {
          '200': {
            description: 'A widget',
            content: { 'application/json': { schema: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } }, example: { id: 'seven' } } },
          },
        },
      },
    },
  },
});

/** Valid JSON, but Prism cannot load it: a `$ref` to a file that is not there. */
export const unloadable = asDocument({
  openapi: '3.0.3',
  info: { title: 'Unloadable', version: '1.0.0' },
  paths: { '/a': { get: { responses: { '200': { $ref: 'missing-file.yaml#/components/responses/Ok' } } } } },
});
