/**
 * Request bodies are open (DECISIONS G-1): no request schema says `additionalProperties: false`, so a
 * fuzzer, Prism and any validator reading the contract accept an unknown property as the stubs do.
 * The stubs still ignore it: the tolerant reader drops a property a request schema does not name
 * before validation, so no handler sees a field its exact type does not have.
 */
import { asDocument } from '../helpers/fixture-document.js';
import { describe, expect, test } from 'vitest';
import { createAjv } from '../../server-stubs/lib/openapi/ajv.js';
import type { OpenAPI3 } from 'openapi-typescript';
import { deref, listOperations, requestBodyOf } from '../../server-stubs/lib/openapi/document.js';
import { isJsonObject } from '../../server-stubs/lib/openapi/json-schema.js';
import { findApiServices } from '../../scripts/lib/project.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { loadContract } from '../../server-stubs/lib/contract.js';
import { pruneBody } from '../../server-stubs/lib/request-body.js';

// The development controls are the platform's own switches, not a service's interface: their
// `oneOf` of closed branches is how "exactly one of advanceSeconds or set" is said.
const services = findApiServices(defaultRoot)
  .map((s) => s.slug)
  .filter((slug) => !loadContract(slug).basePath.startsWith('/_stub'));

const jsonMedia = (type: string) => /^application\/(?:[\w.+-]+\+)?json\b/.test(type);

/** Every place under a request schema (through its `$ref`s) that says `additionalProperties: false`. */
function closedPlaces(document: OpenAPI3, schema: unknown, at: string, seen = new Set<string>()): string[] {
  if (Array.isArray(schema)) return schema.flatMap((s, i) => closedPlaces(document, s, `${at}/${i}`, seen));
  if (!isJsonObject(schema)) return [];
  const node = schema;
  if (typeof node.$ref === 'string') {
    if (seen.has(node.$ref)) return [];
    seen.add(node.$ref);
    return closedPlaces(document, deref(document, node), node.$ref, seen);
  }
  const here = node.additionalProperties === false ? [at] : [];
  return [
    ...here,
    ...Object.entries(node)
      // `not` says what a branch forbids; examples are data.
      .filter(([key]) => !['examples', 'example', 'not', 'enum', 'const', 'default'].includes(key))
      .flatMap(([key, value]) => closedPlaces(document, value, `${at}/${key}`, seen)),
  ];
}

describe.each(services)('%s', (slug) => {
  const { document } = loadContract(slug);
  const bodies = listOperations(document).flatMap((o) => {
    return Object.entries(requestBodyOf(document, o)?.content ?? {})
      .filter(([type]) => jsonMedia(type))
      .map(([type, media]) => ({ label: `${o.label} ${type}`, media: deref(document, media) }));
  });

  test('no request body schema says additionalProperties: false', () => {
    expect(bodies.flatMap((b) => closedPlaces(document, b.media.schema, b.label))).toEqual([]);
  });

  test('each request example with an unknown property still validates against the contract', () => {
    const id = `https://contracts.platform.example/bundle/${slug}.json`;
    const ajv = createAjv({ strict: false });
    ajv.addSchema(document, id);
    let checked = 0;
    const refused: string[] = [];
    for (const { label, media } of bodies) {
      if (!media.schema) continue;
      const ref: unknown = '$ref' in media.schema ? media.schema.$ref : undefined;
      const validate = ajv.compile(typeof ref === 'string' ? { $ref: `${id}${ref}` } : media.schema);
      for (const [name, example] of Object.entries(media.examples ?? {})) {
        const value: unknown = deref(document, example).value;
        if (!isJsonObject(value) || !validate(value)) continue;
        checked++;
        if (!validate({ ...value, unknown_property_from_a_newer_client: { nested: true } })) refused.push(`${label} › ${name}: ${ajv.errorsText(validate.errors)}`);
      }
    }
    if (bodies.length > 0) expect(checked).toBeGreaterThan(0);
    expect(refused).toEqual([]);
  });
});

describe('the tolerant reader', () => {
  const document = asDocument({
    components: {
      schemas: {
        Named: { type: 'object', properties: { name: { type: 'string' }, inner: { $ref: '#/components/schemas/Inner' } } },
        Inner: { type: 'object', properties: { a: { type: 'integer' } } },
        Map: { type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: { type: 'string' } },
        Open: { type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: true },
        Free: { type: 'object' },
        Pick: {
          oneOf: [
            { type: 'object', required: ['kind'], properties: { kind: { const: 'x' }, x: { type: 'string' } } },
            { type: 'object', required: ['kind'], properties: { kind: { const: 'y' }, y: { type: 'string' } } },
          ],
        },
      },
    },
  });
  const pruned = (name: string, body: Record<string, unknown>) => {
    const copy = structuredClone(body);
    expect(pruneBody(document, { $ref: `#/components/schemas/${name}` }, copy)).toEqual([]);
    return copy;
  };

  test('drops what an open request schema does not name, at every depth', () => {
    expect(pruned('Named', { name: 'n', later: 1, inner: { a: 1, b: 2 } })).toEqual({ name: 'n', inner: { a: 1 } });
  });

  test('keeps what a schema allows beyond its names, and any key of a free-form object', () => {
    expect(pruned('Map', { a: 1, b: 'x' })).toEqual({ a: 1, b: 'x' });
    expect(pruned('Open', { a: 1, b: 2 })).toEqual({ a: 1, b: 2 });
    expect(pruned('Free', { anything: [1] })).toEqual({ anything: [1] });
  });

  test('a oneOf branch decides what is known', () => {
    expect(pruned('Pick', { kind: 'y', x: 'dropped', y: 'kept' })).toEqual({ kind: 'y', y: 'kept' });
  });
});
