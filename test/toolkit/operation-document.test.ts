/**
 * The slice of a contract one operation's validators are built from (server-stubs/lib/operation-document.ts):
 * everything the operation reaches, nothing else. The stubs' conformance and fuzz tests check that
 * validation through the slices answers as before; these check the slicing itself.
 */
import { describe, expect, test } from 'vitest';
import { operationDocument } from '../../server-stubs/lib/operation-document.js';
import { loadContract } from '../../server-stubs/lib/contract.js';
import { listOperations, pointerTokens, valueAt } from '../../server-stubs/lib/openapi/document.js';
import { asDocument } from '../helpers/fixture-document.js';

const document = asDocument({
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  security: [{ key: [] }],
  paths: {
    '/pets': {
      parameters: [{ $ref: '#/components/parameters/Trace' }],
      get: { responses: { '200': { $ref: '#/components/responses/Pets' } } },
      post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } } }, responses: { '201': { description: 'ok' } } },
    },
    '/owners': { get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/paths/~1pets/post/requestBody/content/application~1json/schema' } } } } } } },
  },
  webhooks: { born: { post: { responses: { '200': { description: 'ok' } } } } },
  components: {
    securitySchemes: { key: { type: 'http', scheme: 'bearer' } },
    parameters: { Trace: { name: 'trace', in: 'header', schema: { type: 'string' } } },
    responses: { Pets: { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } } } } },
    schemas: {
      Pet: { oneOf: [{ $ref: '#/components/schemas/Cat' }], discriminator: { propertyName: 'kind', mapping: { cat: '#/components/schemas/Cat', dog: 'Dog' } } },
      Cat: { type: 'object', properties: { kind: { const: 'cat' }, toy: { $ref: '#/components/schemas/Toy' } } },
      Dog: { type: 'object', properties: { kind: { const: 'dog' } } },
      Toy: { type: 'string' },
      NewPet: { type: 'object', properties: { name: { type: 'string' } } },
      Unused: { type: 'string' },
    },
  },
});

describe('operationDocument', () => {
  test('keeps the operation, its path-level parameters and what it reaches transitively (refs and discriminator mappings, by ref or by name)', () => {
    const slice = operationDocument(document, '/pets', 'get');
    expect(Object.keys(slice.paths ?? {})).toEqual(['/pets']);
    expect(Object.keys(slice.paths?.['/pets'] ?? {}).sort()).toEqual(['get', 'parameters']);
    expect(Object.keys(slice.components?.schemas ?? {}).sort()).toEqual(['Cat', 'Dog', 'Pet', 'Toy']);
    expect(Object.keys(slice.components?.parameters ?? {})).toEqual(['Trace']);
    expect(Object.keys(slice.components?.responses ?? {})).toEqual(['Pets']);
    expect(slice.components?.securitySchemes).toBe(document.components?.securitySchemes);
    expect(slice.security).toBe(document.security);
    expect(slice.webhooks).toBeUndefined();
    // The source document is left as it was.
    expect(Object.keys(document.paths?.['/pets'] ?? {}).sort()).toEqual(['get', 'parameters', 'post']);
  });

  test('a schema borrowed from another path brings that path item along', () => {
    const slice = operationDocument(document, '/owners', 'get');
    expect(Object.keys(slice.paths ?? {}).sort()).toEqual(['/owners', '/pets']);
    // Whole: the borrowed item's other operations and what they reach too.
    expect(Object.keys(slice.components?.schemas ?? {}).sort()).toEqual(['Cat', 'Dog', 'NewPet', 'Pet', 'Toy']);
  });

  test('every operation of every service slices to a document whose refs all resolve inside it', () => {
    for (const slug of ['seo', 'mail', 'coder', 'dev', 'blog', 'reach', 'social', 'stub-controls']) {
      const contract = loadContract(slug);
      for (const operation of listOperations(contract.document)) {
        const slice = operationDocument(contract.document, operation.path, operation.method);
        const text = JSON.stringify(slice);
        for (const [, ref] of text.matchAll(/"\$ref":"(#\/[^"]+)"/g)) {
          const found = valueAt(slice, pointerTokens(ref!));
          expect(found, `${slug} ${operation.label}: ${ref}`).toBeDefined();
        }
      }
    }
  });
});
