/**
 * The pieces that let the mock and `npm run contract` take any valid document (issue 25), without a
 * server: the schema view Ajv can compile, parameters written by their style, credentials in the
 * declared scheme, samples of recursive schemas, and the fuzzer's requests for an awkward document.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { createAjv } from '../../server-stubs/lib/openapi/ajv.js';
import { credentialCarrier, placeholderCredentials } from '../../scripts/lib/credentials.js';
import { buildServiceModel } from '../../scripts/lib/fuzz/contract-model.js';
import { httpRequestArbitrary } from '../../scripts/lib/fuzz/requests.js';
import { serializeParameter, type SerializedParameter } from '../../scripts/lib/parameter-style.js';
import { sampleOf } from '../../server-stubs/lib/schema-sample.js';
import { schemaView } from '../../server-stubs/lib/compilable-document.js';
import { contractOf } from '../../server-stubs/lib/contract.js';
import { quirks } from '../helpers/imported-documents.js';
import { asDocument } from '../helpers/fixture-document.js';
import type { ParameterObject } from 'openapi-typescript';
import { valueAt } from '../../server-stubs/lib/openapi/document.js';

describe('schema view', () => {
  const { document, notes } = schemaView(quirks);
  // The view read as the JSON it is: the test looks at what each rewrite left.
  const at = (...tokens: string[]) => valueAt(document, tokens);
  const thingProperty = (name: string) => at('components', 'schemas', 'Thing', 'properties', name);

  test('3.0 nullable, boolean exclusive bounds and an uncompilable pattern become what Ajv reads, with one note', () => {
    expect(thingProperty('note')).toEqual({ type: ['string', 'null'] });
    expect(thingProperty('score')).toEqual({ type: 'number', exclusiveMinimum: 0 });
    expect(thingProperty('name')).toEqual({ type: 'string', maxLength: 40 });
    expect(at('components', 'schemas', 'Page', 'properties', 'next')).toEqual({});
    expect(notes).toEqual([expect.stringMatching(/^#\/components\/schemas\/Thing\/properties\/name: pattern "\^\[a-z\]\+\\\\Z" is not a JavaScript regular expression/)]);
    // Parameters and security schemes are no schemas: their `required` and `type` stay.
    expect(at('paths', '/things', 'get', 'parameters', '0', 'required')).toBe(true);
    expect(at('components', 'securitySchemes', 'key', 'type')).toBe('apiKey');
    expect(at('paths', '/things', 'get', 'parameters', '1', 'schema')).toEqual({ type: 'integer', exclusiveMinimum: 0, maximum: 100 });
  });

  test('examples are values: never rewritten', () => {
    const withExample = asDocument({ openapi: '3.0.3', paths: {}, components: { schemas: { A: { type: 'object', example: { nullable: true, pattern: '(?i)x' } } } } });
    const view = schemaView(withExample).document;
    expect(valueAt(view, ['components', 'schemas', 'A', 'example'])).toEqual({ nullable: true, pattern: '(?i)x' });
    expect(schemaView(withExample).notes).toEqual([]);
  });

  test('the whole view compiles, and what the document means still holds', () => {
    const ajv = createAjv({ strict: false });
    ajv.addSchema(document, 'quirks');
    const thing = ajv.compile({ $ref: 'quirks#/components/schemas/Thing' });
    expect(thing({ name: 'kettle', note: null, score: 0.5, parent: { name: 'pot' } })).toBe(true);
    expect(thing({ name: 'kettle', score: 0 })).toBe(false);
    expect(thing({ name: 'kettle', parent: { name: 1 } })).toBe(false);
  });

  test('an untouched document comes back as itself', () => {
    const plain = asDocument({ openapi: '3.1.0', paths: {}, components: { schemas: { A: { type: ['string', 'null'] } } } });
    expect(schemaView(plain).document).toBe(plain);
  });
});

describe('parameters by style', () => {
  const object = { color: 'red', size: 'L' };
  test.each<[ParameterObject, SerializedParameter]>([
    [{ name: 'f', in: 'query', schema: { type: 'object' } }, { query: [['color', 'red'], ['size', 'L']] }],
    [{ name: 'f', in: 'query', explode: false, schema: { type: 'object' } }, { query: [['f', 'color,red,size,L']] }],
    [{ name: 'f', in: 'query', style: 'deepObject', explode: true, schema: { type: 'object' } }, { query: [['f[color]', 'red'], ['f[size]', 'L']] }],
    [{ name: 'f', in: 'query', style: 'spaceDelimited', explode: false, schema: { type: 'object' } }, { query: [['f', 'color red size L']] }],
    [{ name: 'f', in: 'path', schema: { type: 'object' } }, { path: 'color,red,size,L' }],
    [{ name: 'f', in: 'path', explode: true, schema: { type: 'object' } }, { path: 'color=red,size=L' }],
    [{ name: 'f', in: 'path', style: 'matrix', explode: true, schema: { type: 'object' } }, { path: ';color=red;size=L' }],
    [{ name: 'f', in: 'path', style: 'label', schema: { type: 'object' } }, { path: '.color,red,size,L' }],
    [{ name: 'f', in: 'header', schema: { type: 'object' } }, { header: 'color,red,size,L' }],
  ])('%j', (parameter, expected) => {
    expect(serializeParameter(parameter, object)).toEqual(expected);
  });

  test('arrays: exploded form repeats the name, the delimited styles join', () => {
    expect(serializeParameter({ name: 'a', in: 'query', schema: { type: 'array' } }, [1, 2])).toEqual({ query: [['a', '1'], ['a', '2']] });
    expect(serializeParameter({ name: 'a', in: 'query', style: 'pipeDelimited', explode: false, schema: { type: 'array' } }, [1, 2])).toEqual({ query: [['a', '1|2']] });
    expect(serializeParameter({ name: 'a', in: 'cookie', explode: false, schema: { type: 'array' } }, [1, 2])).toEqual({ cookie: 'a=1,2' });
  });
});

describe('credentials as the document declares them', () => {
  const document = asDocument({
    components: {
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic' },
        bearer: { type: 'http', scheme: 'bearer' },
        query: { type: 'apiKey', in: 'query', name: 'api_key' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'sid' },
        oauth: { type: 'oauth2', flows: {} },
      },
    },
  });
  test('Basic is base64 of user:password; apiKeys go to the query or a cookie; OAuth is a bearer token', () => {
    expect(credentialCarrier(document, 'basic', 'user:pass').headers).toEqual({ Authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` });
    expect(credentialCarrier(document, 'bearer', 't').headers).toEqual({ Authorization: 'Bearer t' });
    expect(credentialCarrier(document, 'query', 'k')).toEqual({ headers: {}, query: [['api_key', 'k']] });
    expect(credentialCarrier(document, 'cookie', 'k').headers).toEqual({ Cookie: 'sid=k' });
    expect(credentialCarrier(document, 'oauth', 't').headers).toEqual({ Authorization: 'Bearer t' });
    expect(placeholderCredentials(document).find((c) => c.scheme === 'basic')?.value).toMatch(/^user:/);
  });
});

describe('samples and fuzz requests of an awkward document', () => {
  test('a recursive schema is sampled without end', () => {
    const { document } = schemaView(quirks);
    const sample = sampleOf(document, { $ref: '#/components/schemas/Thing' }, { direction: 'response' });
    expect(sample).toBeDefined();
    expect(sample).toMatchObject({ name: expect.any(String) });
  });

  test('a string whose pattern has alternatives samples its first one, where the sampler wrote the group as text', () => {
    const pattern = '^(0|[1-9][0-9]*|unlimited)$';
    expect(sampleOf({}, { type: 'string', pattern }, { direction: 'response' })).toBe('0');
    expect(sampleOf({}, { type: 'string', pattern: '^(?:draft|published)-[a-z]{3}$' }, { direction: 'response' })).toMatch(/^draft-[a-z]{3}$/);
  });

  test('the fuzzer builds requests for it without throwing, its apiKey in the query, its filter in deepObject style', () => {
    const contract = contractOf('quirks', schemaView(quirks).document);
    const model = buildServiceModel('quirks', [{ slug: 'quirks', credentials: placeholderCredentials(quirks) }], undefined, contract);
    const requests = fc.sample(httpRequestArbitrary(model), { seed: 7, numRuns: 300 });
    const valid = requests.filter((r) => r.case === 'valid' && r.aim === 'GET /things');
    expect(valid.length).toBeGreaterThan(0);
    for (const r of valid) {
      expect(r.query.map(([k]) => k)).toContain('api_key');
      expect(r.query.map(([k]) => k)).toContain('filter[color]');
    }
  });
});

describe('contracts kept by content', () => {
  test('the same document read twice is one contract; another slug or another content is another', () => {
    const document = schemaView(quirks).document;
    const first = contractOf('quirks', document);
    expect(contractOf('quirks', structuredClone(document))).toBe(first);
    expect(contractOf('quirks-again', structuredClone(document))).not.toBe(first);
    const changed = structuredClone(document);
    changed.info = { ...changed.info, version: `${changed.info.version}-changed` };
    expect(contractOf('quirks', changed)).not.toBe(first);
  });
});
