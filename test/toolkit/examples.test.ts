/**
 * Every example in every contract is valid against its schema: media-type and parameter examples
 * (an event stream's examples are single frames, like its schema), `examples` arrays of schemas, an
 * event stream's raw wire text (`x-wire-example`) frame by frame, and the examples of the standalone
 * schema files through their generated validators.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { createAjv } from '../../server-stubs/lib/openapi/ajv.js';
import type { OpenAPI3 } from 'openapi-typescript';
import { deref, localRef, valueAt } from '../../server-stubs/lib/openapi/document.js';
import { isJsonObject } from '../../server-stubs/lib/openapi/json-schema.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { findApiServices, findSchemaSets } from '../../scripts/lib/project.js';
import { loadContract } from '../../server-stubs/lib/contract.js';
import { parseEventStream } from '../../server-stubs/lib/sse.js';

interface Case {
  where: string;
  schemaPointer: string;
  value: unknown;
  /** for an event stream's `x-wire-example`: the media type's frame examples, which its frames must be */
  frames?: unknown[];
}

const escape = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

function collect(document: OpenAPI3): Case[] {
  const cases: Case[] = [];
  const walk = (value: unknown, pointer: string[], mediaType?: string): void => {
    if (Array.isArray(value)) return value.forEach((item, i) => walk(item, [...pointer, String(i)]));
    if (!isJsonObject(value)) return;
    const node = value;
    // Media types, parameters and headers: `examples` is a map of Example Objects beside `schema`.
    if (node.schema && isJsonObject(node.examples)) {
      const schemaPointer = refPointer(node.schema) ?? [...pointer, 'schema'].map(escape).join('/');
      for (const [name, example] of Object.entries(node.examples)) {
        const value = valueAt(deref(document, example), ['value']);
        cases.push({ where: `${pointer.join(' › ')} › ${name}`, schemaPointer, value });
      }
    }
    // An event stream's whole stream as raw text, beside its frame examples.
    if (mediaType === 'text/event-stream' && node.schema && node['x-wire-example'] !== undefined) {
      const schemaPointer = refPointer(node.schema) ?? [...pointer, 'schema'].map(escape).join('/');
      const frames = isJsonObject(node.examples) ? Object.values(node.examples).map((e) => valueAt(deref(document, e), ['value'])) : [];
      cases.push({ where: `${pointer.join(' › ')} › x-wire-example`, schemaPointer, value: node['x-wire-example'], frames });
    }
    // Schemas: `examples` is an array of instances.
    if (Array.isArray(node.examples) && pointer.at(-1) !== 'enum') {
      node.examples.forEach((value, i) =>
        cases.push({ where: `${pointer.join(' › ')} › examples[${i}]`, schemaPointer: pointer.map(escape).join('/'), value }),
      );
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'examples' || key === 'example' || key === 'x-wire-example') continue;
      walk(value, [...pointer, key], pointer.at(-1) === 'content' ? key : undefined);
    }
  };
  walk(document, []);
  return cases;
}

function refPointer(schema: unknown): string | undefined {
  const ref = localRef(schema);
  return ref === undefined ? undefined : ref.slice(2);
}

describe.each(findApiServices(defaultRoot).map((s) => s.slug))('%s examples', (slug) => {
  const { document } = loadContract(slug);
  const id = `https://contracts.platform.example/bundle/${slug}.json`;
  const ajv = createAjv({ strict: false });
  ajv.addSchema(document, id);
  const cases = collect(document);
  // Looked up in the document ajv holds: each schema, and each one it refers to, is compiled once
  // for all the examples of the service.
  const validatorOf = (pointer: string) => {
    const validate = ajv.getSchema(`${id}#/${pointer}`);
    if (!validate) throw new Error(`no schema at ${id}#/${pointer}`);
    return validate;
  };

  test('there are examples to check', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  // One test for all of a service's examples, each checked and named on its own (expect.soft): a
  // test per example cost the runner more than the checks themselves.
  test('each example is valid against its schema', () => {
    for (const c of cases) {
      const validate = validatorOf(c.schemaPointer);
      if (c.frames) {
        expect.soft(typeof c.value, `${c.where}: x-wire-example is the raw wire text`).toBe('string');
        const { frames } = parseEventStream(String(c.value));
        expect.soft(frames.length, c.where).toBeGreaterThan(0);
        for (const frame of frames) {
          expect.soft(validate(frame) ? [] : validate.errors, c.where).toEqual([]);
          expect.soft(c.frames, `${c.where}: each frame of the wire text is one of the frame examples`).toContainEqual(frame);
        }
        continue;
      }
      expect.soft(validate(c.value) ? [] : validate.errors, c.where).toEqual([]);
    }
  });
});

describe.each(findSchemaSets(defaultRoot).map((s) => [s.slug, s] as const))('%s schema examples', (slug, set) => {
  test.each(set.files.map((f) => [path.basename(f), f] as const))('%s examples pass its generated validator', async (name, file) => {
    const schema = JSON.parse(readFileSync(file, 'utf8'));
    const examples: unknown[] = schema.examples ?? [];
    expect(examples.length, `${name} has no examples`).toBeGreaterThan(0);
    const { validate } = (await import(/* @vite-ignore */ pathToFileURL(path.join(defaultRoot, 'generated/schemas', slug, 'index.gen.ts')).href)) as {
      validate: Record<string, (x: unknown) => { ok: boolean; message?: string }>;
    };
    const check = validate[path.basename(name, '.json')]!;
    for (const example of examples) expect(check(example).ok ? '' : check(example).message).toBe('');
  });
});
