/**
 * `npm run mock` serves any valid OpenAPI document (issue 25): third-party documents bundled into a
 * temporary generated/ folder, each served at `/<slug>` through HTTP as a client calls it. A service
 * whose mock cannot start answers 503 naming why while the others serve; a webhooks-only document
 * does not take the mock down; credentials are checked by presence in the declared scheme, and the
 * errors the front answers itself take the document's declared shape, else RFC 9457 problem+json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { OpenAPI3 } from 'openapi-typescript';
import { startMockServer, type MockServer } from '../../mock/server.js';
import { contractChecker } from '../../scripts/lib/contract-checker.js';
import { placeholderFor } from '../../scripts/lib/credentials.js';
import { exampleRequest } from '../../scripts/lib/example-request.js';
import { listOperations } from '../../server-stubs/lib/openapi/document.js';
import { schemaView } from '../../server-stubs/lib/compilable-document.js';
import { contractOf } from '../../server-stubs/lib/contract.js';
import { bundleExample, liar, quirks, unloadable, writeBundle } from '../helpers/imported-documents.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'mock-any-document-'));
const documents: Record<string, OpenAPI3> = {};
let mock: MockServer;
let origin: string;
const logged: string[] = [];

beforeAll(async () => {
  const examples: Record<string, string> = {
    petstore: '3.0/petstore',
    uspto: '3.0/uspto',
    'train-travel': '3.1/train-travel',
    webhooks: '3.1/webhooks',
    'server-variables': '3.0/server-variables',
    security: '3.0/security',
    'parameters-cookies': '3.0/parameters-cookies',
    'form-data': '3.0/form-data',
    circular: '3.0/circular',
    'status-codes': '3.0/http-status-codes',
    links: '3.0/link-example',
  };
  for (const [slug, name] of Object.entries(examples)) documents[slug] = await bundleExample(name);
  documents.quirks = quirks;
  documents.liar = liar;
  for (const [slug, document] of Object.entries(documents)) writeBundle(dir, slug, document);
  writeBundle(dir, 'unloadable', unloadable);
  writeBundle(dir, 'not-json', '{ "openapi": "3.0.3", ');
  mock = await startMockServer(0, '127.0.0.1', { bundlesDir: dir, log: (line) => logged.push(line) });
  origin = `http://127.0.0.1:${mock.port}`;
}, 240_000);

afterAll(async () => {
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The request exampleRequest builds, with a placeholder credential in each declared scheme. */
function request(slug: string, operationId: string) {
  const document = documents[slug]!;
  const operation = listOperations(document).find((o) => o.id === operationId);
  if (!operation) throw new Error(`${slug} has no operation ${operationId}`);
  const built = exampleRequest(document, operation, placeholderFor);
  return { operation, built };
}

async function call(url: string, init: RequestInit = {}) {
  const response = await fetch(`${origin}${url}`, init);
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  return { status: response.status, type, text, json: /json/.test(type) && text ? JSON.parse(text) : undefined };
}

describe('every document is served at /<slug>, whatever its servers say', () => {
  test('the mock lists each service at its mount path, and the ones that could not start apart', () => {
    const served = Object.fromEntries(mock.services.map((s) => [s.slug, s.basePath]));
    // No servers (webhooks), a vendor's host, server variables, a relative URL: all at /<slug>.
    for (const slug of Object.keys(documents)) expect(served[slug], slug).toBe(`/${slug}`);
    expect(mock.failed.map((f) => f.slug).sort()).toEqual(['not-json', 'unloadable']);
    expect(mock.failed.find((f) => f.slug === 'not-json')?.problem).toMatch(/not a JSON document/);
    expect(logged.some((line) => /\[mock quirks\].*pattern "\^\[a-z\]\+\\\\Z"/.test(line)), logged.join('\n')).toBe(true);
  });

  test.each([
    ['petstore', 'getPetById'],
    ['petstore', 'findPetsByStatus'],
    ['uspto', 'list-data-sets'],
    ['train-travel', 'get-stations'],
    ['server-variables', 'post /global'],
    ['parameters-cookies', 'post /post'],
    ['circular', 'get /anything'],
    ['form-data', 'demoFormData'],
    ['security', 'get /anything/apiKey'],
    ['security', 'post /anything/apiKey'],
    ['quirks', 'listThings'],
    ['quirks', 'legacyText'],
  ])('%s %s: a valid request is answered 2xx with a body the contract accepts', async (slug, operationId) => {
    const { operation, built } = request(slug, operationId);
    const answer = await call(`/${slug}${built.url}`, { ...built.init, headers: { ...(built.init.headers as Record<string, string>), accept: 'application/json, text/plain;q=0.5, */*;q=0.1' } });
    expect(answer.status, `${answer.status} ${answer.text.slice(0, 300)}`).toBeGreaterThanOrEqual(200);
    expect(answer.status).toBeLessThan(300);
    if (answer.json !== undefined) {
      const checker = contractChecker(contractOf(slug, schemaView(documents[slug]!).document));
      expect(checker.responseErrors(operation.path, operation.method, answer.status, answer.json, answer.type.split(';')[0]!)).toEqual([]);
    }
  });

  test('a service that could not start answers 503 in JSON naming the problem, while the others serve', async () => {
    for (const slug of ['unloadable', 'not-json']) {
      const answer = await call(`/${slug}/a`);
      expect(answer.status).toBe(503);
      expect(answer.type).toMatch(/^application\/json/);
      expect(answer.json).toMatchObject({ service: slug, code: 'SERVICE_UNAVAILABLE' });
      // The problem as the log has it, without where the files lie on this machine.
      expect(mock.failed.find((f) => f.slug === slug)!.problem).toContain(answer.json.problem.slice(0, 20));
      expect(answer.json.error).not.toMatch(/\/tmp\/|\/work\/|\/home\//);
    }
    expect((await call('/uspto/')).status).toBe(200);
  });

  test('a webhooks-only document is served: it has no operation, so every path is a 404', async () => {
    const answer = await call('/webhooks/anything');
    expect(answer.status).toBe(404);
    expect(answer.type).toMatch(/^application\/problem\+json/);
    expect(answer.json).toMatchObject({ status: 404, title: 'Not Found' });
  });
});

describe('credentials and errors of a document without a stub', () => {
  test('a missing credential is 401 in problem+json where the document declares no 401; any present one passes', async () => {
    const missing = await call('/security/anything/apiKey', { method: 'PUT' });
    expect(missing.status).toBe(401);
    expect(missing.type).toMatch(/^application\/problem\+json/);
    expect(missing.json).toMatchObject({ type: 'about:blank', title: 'Unauthorized', status: 401, detail: expect.stringMatching(/X-API-KEY|apiKey|api_key/i) });
    // petstore declares `default` without content: its 401 is that, an empty answer.
    const declared = await call('/petstore/pet/1');
    expect([declared.status, declared.text]).toEqual([401, '']);
    expect((await call('/petstore/pet/1', { headers: { api_key: 'anything', accept: 'application/json' } })).status).toBe(200);
  });

  test('HTTP Basic wants `Basic <credentials>`; an apiKey in the query wants the parameter', async () => {
    const basic = '/security/anything/basic';
    expect((await call(basic, { method: 'POST' })).status).toBe(401);
    expect((await call(basic, { method: 'POST', headers: { authorization: 'Bearer abc' } })).status).toBe(401);
    expect((await call(basic, { method: 'POST', headers: { authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` } })).status).toBe(200);
    expect((await call('/quirks/things?filter%5Bcolor%5D=red')).status).toBe(401);
    expect((await call('/quirks/things?filter%5Bcolor%5D=red&api_key=x')).status).toBe(200);
  });

  test("a refusal takes the document's `default` error shape and media type, the message in it", async () => {
    const missing = await call('/quirks/things?filter%5Bcolor%5D=red');
    expect(missing.type).toMatch(/^application\/json/);
    expect(missing.json).toEqual({ code: 0, message: expect.stringMatching(/Missing credentials: send the query parameter api_key/) });
    const invalid = await call('/quirks/things?api_key=x');
    expect(invalid.status).toBe(400);
    expect(invalid.json).toEqual({ code: 0, message: expect.stringMatching(/filter/) });
    const checker = contractChecker(contractOf('quirks', schemaView(quirks).document));
    expect(checker.responseErrors('/things', 'get', 'default', invalid.json)).toEqual([]);
  });

  test('a refusal the document declares without content has none; an undeclared path is problem+json', async () => {
    const refused = await call('/petstore/pet/findByStatus', { headers: { authorization: 'Bearer x' } });
    expect(refused.status).toBe(400);
    expect(refused.text).toBe('');
    const unknown = await call('/petstore/no/such/path');
    expect(unknown.status).toBe(404);
    expect(unknown.type).toMatch(/^application\/problem\+json/);
  });
});

describe('statuses and paths Prism alone gets wrong', () => {
  test('a 407 the document declares reaches the client (node:http reads it; WHATWG fetch cannot)', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get(`${origin}/status-codes/status/407`, (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        })
        .on('error', reject);
    });
    expect(answer.status, answer.body).toBe(407);
  });

  test('an operation that declares only a 1xx answers an empty success, as the stubs do, never 502', async () => {
    const continued = await call('/status-codes/status/100');
    expect(continued.status).toBe(204);
    expect(continued.text).toBe('');
  });

  test("a trailing slash addresses the operation, as on the stubs, not the next path's empty parameter", async () => {
    const listed = await call('/links/2.0/repositories/alice/project/pullrequests/');
    expect(listed.status, listed.text).toBe(200);
    expect(Array.isArray(listed.json)).toBe(true);
  });
});

describe("the mock's log", () => {
  test("Prism's own remarks on an answer off the contract are logged; the client gets the front's 502 naming the break", async () => {
    const answer = await call('/liar/widgets/7');
    expect(answer.status).toBe(502);
    expect(answer.text).toContain('id must be integer');
    expect(logged.filter((line) => line.startsWith('[mock liar] GET /widgets/7: Prism flags its own answer:')), logged.join('\n')).toEqual([expect.stringMatching(/\bid\b.*integer/)]);
  });
});

describe('browsers', () => {
  test('a preflight to a path no operation has passes with the CORS headers, so the page reads the 404', async () => {
    const headers = { origin: 'https://app.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' };
    const preflight = await fetch(`${origin}/petstore/pett/7`, { method: 'OPTIONS', headers });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
    const missing = await call('/petstore/pett/7', { headers: { origin: 'https://app.example.com', authorization: 'Bearer x' } });
    expect(missing.status).toBe(404);
    const plain = await call('/petstore/pett/7', { method: 'OPTIONS' });
    expect(plain.status, 'an OPTIONS that is no preflight is a request like any other').toBe(404);
  });
});
