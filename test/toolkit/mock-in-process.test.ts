/**
 * The mock runs Prism's libraries in its own process, one instance per document (issue 26): what
 * Prism throws while answering is that request's 500, in the service's error body, and the mock goes
 * on serving; a document's own json-schema-faker options (`x-json-schema-faker`, as `prism mock`
 * reads them) shape its dynamic answers only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPrismService } from '../../mock/prism.js';
import { startMockServer, type MockServer } from '../../mock/server.js';
import type { JsonObject } from '../../server-stubs/lib/openapi/json-schema.js';
import { writeBundle } from '../helpers/imported-documents.js';

const problem = { description: 'Failure', content: { 'application/problem+json': { schema: { type: 'object', properties: { title: { type: 'string' } } } } } };
const thing = { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1 }, note: { type: 'string', maxLength: 8 } } };

/** Fields drawn by faker's own generators (json-schema-faker's `x-faker` keyword), as Prism offers them. */
const person = {
  type: 'object',
  required: ['email', 'uuid'],
  properties: { email: { type: 'string', 'x-faker': 'internet.email' }, uuid: { type: 'string', 'x-faker': 'datatype.uuid' } },
};

/** A document answering `/thing` from its schema alone, and `/text` with an object Prism cannot write as text. */
const documentWith = (extensions: JsonObject) => ({
  openapi: '3.1.0',
  info: { title: 'In process', version: '1.0.0' },
  ...extensions,
  paths: {
    '/thing': { get: { operationId: 'getThing', responses: { '200': { description: 'A thing', content: { 'application/json': { schema: thing } } }, default: problem } } },
    '/text': { get: { operationId: 'getText', responses: { '200': { description: 'Text', content: { 'text/plain': { example: { not: 'text' } } } }, default: problem } } },
  },
});

const dir = mkdtempSync(path.join(os.tmpdir(), 'mock-in-process-'));
let mock: MockServer;
let origin: string;

beforeAll(async () => {
  writeBundle(dir, 'alpha', documentWith({ 'x-json-schema-faker': { 'required-only': true } }));
  writeBundle(dir, 'beta', documentWith({}));
  writeBundle(dir, 'gamma', {
    openapi: '3.1.0',
    info: { title: 'Faker keywords', version: '1.0.0' },
    paths: { '/person': { get: { operationId: 'getPerson', responses: { '200': { description: 'A person', content: { 'application/json': { schema: person } } } } } } },
  });
  mock = await startMockServer(0, '127.0.0.1', { bundlesDir: dir });
  origin = `http://127.0.0.1:${mock.port}`;
}, 120_000);

afterAll(async () => {
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('an error Prism meets while answering', () => {
  test('is that request 500 in the document error shape, and the mock goes on serving', async () => {
    const failed = await fetch(`${origin}/alpha/text`);
    expect(failed.status).toBe(500);
    expect(failed.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await failed.json()).toMatchObject({ title: expect.stringMatching(/could not answer.*complex objects as text\/plain/) });
    expect((await fetch(`${origin}/alpha/thing`)).status).toBe(200);
    expect((await fetch(`${origin}/beta/thing`)).status).toBe(200);
  });

  test('a TypeError thrown by Prism itself comes back as its refusal, and the instance answers the next request', async () => {
    // Prism 5.14 splits a missing optional header of an array schema (mock/prism.ts mends the copy it serves).
    const prism = await createPrismService({
      openapi: '3.1.0',
      info: { title: 'Trips Prism', version: '1.0.0' },
      paths: {
        '/a': {
          get: {
            parameters: [{ name: 'x-list', in: 'header', schema: { type: 'array', items: { type: 'string' } } }],
            responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' }, example: { ok: true } } } } },
          },
        },
      },
    });
    const thrown = await prism.answer({ method: 'GET', url: '/a', headers: {}, body: Buffer.alloc(0) });
    expect(thrown).toMatchObject({ kind: 'problem', status: 500, problem: { type: 'https://stoplight.io/prism/errors#UNKNOWN', title: expect.stringMatching(/split/) } });
    const answered = await prism.answer({ method: 'GET', url: '/a', headers: { 'x-list': 'a,b' }, body: Buffer.alloc(0) });
    expect(answered).toMatchObject({ kind: 'answer', status: 200, body: '{"ok":true}' });
  });
});

describe("a document's x-json-schema-faker options", () => {
  test('shape its own dynamic answers and no other document', async () => {
    const dynamic = { prefer: 'dynamic=true' };
    for (let round = 0; round < 3; round++) {
      const alpha = await (await fetch(`${origin}/alpha/thing`, { headers: dynamic })).json();
      expect(Object.keys(alpha), 'required-only: the optional note is left out').toEqual(['id']);
      const beta = await (await fetch(`${origin}/beta/thing`, { headers: dynamic })).json();
      expect(Object.keys(beta).sort(), "Prism's own default: optional properties filled").toEqual(['id', 'note']);
    }
  });
});

describe("a schema's x-faker keyword", () => {
  test("draws from faker's generator of that name (mock/faker-english.ts gives Prism faker's English instance)", async () => {
    for (let round = 0; round < 3; round++) {
      const answer = await fetch(`${origin}/gamma/person`, { headers: { prefer: 'dynamic=true' } });
      expect(answer.status).toBe(200);
      const drawn = await answer.json();
      expect(drawn.email).toMatch(/^[^@\s]+@[^@\s]+\.[a-z]+$/i);
      expect(drawn.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });
});
