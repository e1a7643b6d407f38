/**
 * A stub from the contract alone (DECISIONS I-2), through HTTP as a client calls it, on real
 * third-party documents (@readme/oas-examples, bundled in memory as `npm run add-service` bundles
 * them): every operation answers its declared success to a valid request, invalid requests and
 * missing credentials get 4xx in the document's own error shape or problem details, and nothing
 * answers 5xx or HTML.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Request } from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import type { OpenAPI3 } from 'openapi-typescript';
import { contractAnswers, successKey } from '../../server-stubs/lib/contract-answers.js';
import { contractErrors, problemType } from '../../server-stubs/lib/contract-errors.js';
import { contractStub } from '../../server-stubs/lib/contract-stub.js';
import { declares, documentsOnlyFailures, responseKeyFor, type OperationInfo } from '../../server-stubs/lib/contract.js';
import { presenceSecurity } from '../../server-stubs/lib/presence-security.js';
import type { RuntimeResult } from '../../server-stubs/lib/results.js';
import { createServiceRouter } from '../../server-stubs/lib/service-router.js';
import { createManualClock, systemClock } from '../../server-stubs/lib/clock.js';
import { banner, startPlatformServer } from '../../server-stubs/server.js';
import { deref, HTTP_METHODS, listOperations, operationAt, requestBodyOf } from '../../server-stubs/lib/openapi/document.js';
import { schemaAt } from '../../server-stubs/lib/openapi/json-schema.js';
import { readmeExample, validRequest, type BuiltRequest } from '../helpers/contract-requests.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';
import { asDocument } from '../helpers/fixture-document.js';

interface Answer {
  status: number;
  type: string;
  text: string;
}

async function send(baseUrl: string, request: BuiltRequest): Promise<Answer> {
  const response = await fetch(`${baseUrl}${request.url}`, { method: request.method, headers: request.headers, body: request.body as BodyInit | undefined });
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
}

/** What every answer of a contract stub is: never a 5xx, never HTML, JSON that parses where it says JSON. */
function expectSane(answer: Answer, label: string, operation?: OperationInfo) {
  // A 5xx only where it is all the operation documents (`GET /status/503`).
  if (!(operation && documentsOnlyFailures(operation) && declares(operation, answer.status))) expect(answer.status, `${label}: ${answer.text.slice(0, 300)}`).toBeLessThan(500);
  expect(answer.type, label).not.toMatch(/html/);
  expect(answer.text, label).not.toMatch(/<html|\bat \S+\.(?:ts|js):\d+|\/work\/|node_modules/);
  if (/json/.test(answer.type) && answer.text !== '') expect(() => JSON.parse(answer.text), label).not.toThrow();
}

/** The status a valid request is answered with: the operation's declared success (a 1xx-only operation: 204). */
function successStatus(operation: OperationInfo): number {
  const key = successKey(operation);
  if (key === undefined) return 204;
  if (/^\d{3}$/.test(key)) return Number(key) < 200 ? 204 : Number(key);
  // `2XX` and `default` are answered as 200.
  return 200;
}

/**
 * An error answer in the shape the document declares for its status, else RFC 9457 problem details
 * (a missing credential is always a 401, declared or not).
 */
function expectErrorShape(document: OpenAPI3, operation: OperationInfo, answer: Answer, label: string) {
  const key = responseKeyFor(operation, answer.status);
  const declared = key === undefined ? undefined : deref(document, operation.op.responses?.[key]);
  if (!declared) {
    expect(answer.type, label).toMatch(/^application\/problem\+json/);
    const body = JSON.parse(answer.text);
    expect(body, label).toMatchObject({ type: 'about:blank', status: answer.status, title: expect.any(String), detail: expect.any(String) });
    return;
  }
  const types = Object.keys(declared.content ?? {});
  if (types.length === 0) expect(answer.text, `${label}: declared without a body`).toBe('');
  else expect(types.map((t) => t.split(';')[0]), label).toContain(answer.type.split(';')[0]);
}

interface DocumentCase {
  name: string;
  /** operations whose valid request the builder cannot write, and why (they must still not answer 5xx) */
  unbuildable?: Record<string, string>;
}

const cases: DocumentCase[] = [
  { name: '3.0/petstore' },
  { name: '3.0/file-uploads' },
  { name: '3.0/form-data' },
  { name: '3.0/parameters-cookies' },
  { name: '3.0/parameters-style' },
  { name: '3.0/parameters-common', unbuildable: { 'get /anything/{id}/{action}/{id}': 'one path names {id} twice' } },
  { name: '3.0/security' },
  { name: '3.0/security-multiple', unbuildable: { 'post /anything/and': 'basic and oauth2 together need two Authorization headers' } },
  { name: '3.0/response-multiple-mediatypes' },
  { name: '3.0/response-examples' },
  { name: '3.0/http-status-codes' },
  { name: '3.0/uspto' },
  { name: '3.0/callbacks' },
  { name: '3.0/circular' },
  { name: '3.0/circular-paths', unbuildable: { 'put /anything': 'an array of objects in a header has no serialization' } },
  { name: '3.0/schema-circular', unbuildable: { 'put /circular': 'its file field example is a string where its schema is an object' } },
  { name: '3.0/server-path-level' },
  { name: '3.0/server-variables' },
  {
    name: '3.0/polymorphism',
    unbuildable: Object.fromEntries(
      ['patch /pets', 'post /anything/one-of-object', 'post /anything/one-of-object-ref', 'post /one-of-complex', 'post /anything/nested-one-of-object-ref', 'post /anything/nested-one-of-ref', 'post /anything/nested-one-of-object-with-nested-one-of', 'post /one-of-with-type'].map((id) => [
        id,
        'a sample of a oneOf matches several branches or none (the sampler takes the first)',
      ]),
    ),
  },
  { name: '3.1/petstore' },
  { name: '3.1/train-travel', unbuildable: { 'create-booking': 'its trip_id example is not a uuid' } },
  { name: '3.1/parameters-style', unbuildable: { formData_spaceDelimited_nonExploded: 'a GET with a required body' } },
  { name: '3.1/security' },
  { name: '3.1/webhooks' },
];

/** Operations a client can address: a path with `#` (ReadMe's variants of one path) cannot be requested. */
/**
 * The operations a test can call: not a path with a fragment, and not one whose only answer is a
 * 407, which WHATWG fetch turns into a network error outside a browser window.
 */
const addressable = (document: OpenAPI3) => listOperations(document).filter((o) => !o.path.includes('#') && Object.keys(o.op.responses ?? {}).join() !== '407');

/**
 * Each document bundled once for the file, and served by one contract stub that every test of it
 * calls: a stub from the contract alone keeps nothing between requests (these documents declare no
 * rate limit), so a fresh one per test would prove the same, and each stub compiles its operations'
 * validators anew.
 */
const examples = new Map<string, Promise<{ document: OpenAPI3; stub: RunningStub }>>();
function servedExample(name: string): Promise<{ document: OpenAPI3; stub: RunningStub }> {
  let served = examples.get(name);
  if (!served) {
    served = (async () => {
      const document = await readmeExample(name);
      const service = contractStub(name.replace(/\W+/g, '-'), document);
      return { document, stub: await serveStub(await service.create({}), service.basePath) };
    })();
    examples.set(name, served);
  }
  return served;
}
/** A document of @readme/oas-examples, bundled once for the file (the tests read it, none changes it). */
const exampleDocument = async (name: string) => (await servedExample(name)).document;
afterAll(async () => {
  await Promise.all([...examples.values()].map(async (served) => (await served).stub.close()));
});

// A request to every operation of a document, each operation's validators compiled on its first: a
// second or two on a quiet machine for the largest, and more than the default 30 s was seen on one
// shared by eight processes. Generous, so a busy machine never fails them for time.
describe.each(cases)('$name served from its contract alone', { timeout: 180_000 }, ({ name, unbuildable = {} }) => {
  let document: OpenAPI3;
  let stub: RunningStub;
  const warnings: string[] = [];

  beforeAll(async () => {
    ({ document, stub } = await servedExample(name));
  });
  afterEach(() => vi.restoreAllMocks());

  test('a valid request of every operation answers its declared success, checked against the contract', async () => {
    vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warnings.push(args.map(String).join(' ')));
    const operations = addressable(document);
    // A 3.1 document may have only webhooks: nothing to call, and still a stub that starts.
    expect(operations.length > 0 || name === '3.1/webhooks').toBe(true);
    for (const operation of operations) {
      const answer = await send(stub.baseUrl, validRequest(document, operation));
      const label = `${name} ${operation.id} (${operation.label})`;
      expectSane(answer, label, operation);
      if (operation.id in unbuildable) continue;
      expect(answer.status, `${label}: ${answer.text.slice(0, 300)}`).toBe(successStatus(operation));
    }
    // An answer that fails the response check is sent unchecked with a warning: none here.
    expect(warnings.filter((w) => /answered unchecked/.test(w))).toEqual([]);
  });

  test('invalid requests get 4xx in the declared error shape or problem details', async () => {
    let checked = 0;
    for (const operation of addressable(document)) {
      const valid = validRequest(document, operation);
      const label = `${name} ${operation.id}`;
      const requestBody = requestBodyOf(document, operation);
      const jsonBody = Object.keys(requestBody?.content ?? {}).find((t) => /json/.test(t));
      if (jsonBody && operation.method !== 'get') {
        const answer = await send(stub.baseUrl, { ...valid, headers: { ...valid.headers, 'content-type': jsonBody }, body: '{"broken":' });
        expectSane(answer, label);
        expect(answer.status, label).toBe(400);
        expectErrorShape(document, operation, answer, label);
        checked++;
      }
      const formType = Object.keys(requestBody?.content ?? {}).find((t) => t === 'application/x-www-form-urlencoded');
      const formSchema = formType ? schemaAt(document, deref(document, requestBody?.content[formType])?.schema) : undefined;
      // A required field with a default is filled in by the validator: only one without makes the form invalid.
      const requiredWithoutDefault = (formSchema?.required ?? []).filter((field) => !('default' in (schemaAt(document, formSchema?.properties?.[field]) ?? {})));
      if (formType && requiredWithoutDefault.length > 0) {
        const answer = await send(stub.baseUrl, { ...valid, headers: { ...valid.headers, 'content-type': formType }, body: 'unknown=1' });
        expectSane(answer, label);
        expect(answer.status, `${label}: a form without its required fields`).toBe(400);
        expectErrorShape(document, operation, answer, label);
        checked++;
      }
      const requiredQuery = operation.op.parameters.find((p) => p.in === 'query' && p.required && !p.content);
      if (requiredQuery && valid.url.includes('?')) {
        const url = valid.url.replace(new RegExp(`([?&])${encodeURIComponent(requiredQuery.name)}=[^&]*`), '$1');
        const answer = await send(stub.baseUrl, { ...valid, url });
        expectSane(answer, label);
        expect(answer.status, `${label}: without ${requiredQuery.name}`).toBe(400);
        expectErrorShape(document, operation, answer, label);
        checked++;
      }
    }
    if (['3.0/petstore', '3.0/form-data', '3.1/train-travel'].includes(name)) expect(checked).toBeGreaterThan(0);
  });

  test('a secured operation without credentials answers 401; one that allows anonymous calls does not', async () => {
    for (const operation of addressable(document)) {
      const requirements: Array<Record<string, unknown>> = operation.op.security ?? document.security ?? [];
      const request = validRequest(document, operation, { credentials: false });
      const answer = await send(stub.baseUrl, request);
      const label = `${name} ${operation.id}`;
      expectSane(answer, label, operation);
      if (operation.id in unbuildable) continue;
      const anonymous = requirements.length === 0 || requirements.some((r) => Object.keys(r).length === 0);
      const mutualTls = requirements.every((r) => Object.keys(r).every((s) => deref(document, document.components?.securitySchemes?.[s])?.type === 'mutualTLS'));
      if (anonymous || mutualTls) expect(answer.status, label).toBe(successStatus(operation));
      else {
        expect(answer.status, label).toBe(401);
        expectErrorShape(document, operation, answer, label);
      }
    }
  });

  test('an unknown path answers 404 and a known path with another method 405, as problem details', async () => {
    const missing = await send(stub.baseUrl, { url: '/no/such/route/here', method: 'GET', headers: {} });
    expect(missing.status).toBe(404);
    expect(missing.type).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(missing.text)).toMatchObject({ status: 404, title: 'Not Found', detail: expect.stringContaining('/no/such/route/here') });
    const operation = addressable(document).find((o) => !o.path.includes('{'));
    const unused = ['PATCH', 'DELETE', 'PUT', 'POST', 'GET'].find((m) => operation && !operationAt(document, operation.path, m.toLowerCase()));
    if (!operation || !unused) return;
    const wrong = await send(stub.baseUrl, { url: operation.path, method: unused, headers: {} });
    expect(wrong.status).toBe(405);
    expect(wrong.type).toMatch(/^application\/problem\+json/);
  });
});

/** Requests no contract allows, each made from an operation's valid one. */
const hostile: Array<[string, (r: BuiltRequest) => BuiltRequest]> = [
  ['multipart without a boundary', (r) => ({ ...r, method: bodyMethod(r), headers: { ...r.headers, 'content-type': 'multipart/form-data' }, body: 'garbage' })],
  ['a truncated multipart body', (r) => ({ ...r, method: bodyMethod(r), headers: { ...r.headers, 'content-type': 'multipart/form-data; boundary=XX' }, body: '--XX\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue' })],
  ['malformed XML', (r) => ({ ...r, method: bodyMethod(r), headers: { ...r.headers, 'content-type': 'application/xml' }, body: '<a><b></a>' })],
  ['JSON null', (r) => ({ ...r, method: bodyMethod(r), headers: { ...r.headers, 'content-type': 'application/json' }, body: 'null' })],
  ['JSON in latin1', (r) => ({ ...r, method: bodyMethod(r), headers: { ...r.headers, 'content-type': 'application/json; charset=latin1' }, body: '{}' })],
  ['a form of 1500 fields', (r) => ({ ...r, method: bodyMethod(r), headers: { ...r.headers, 'content-type': 'application/x-www-form-urlencoded' }, body: Array.from({ length: 1500 }, (_, i) => `f${i}=1`).join('&') })],
  ['bytes', (r) => ({ ...r, method: bodyMethod(r), headers: { ...r.headers, 'content-type': 'application/octet-stream' }, body: new Uint8Array([1, 2, 3]) })],
  ['a path segment that is not percent-encoding', (r) => ({ ...r, url: r.url.replace(/\/[^/?]*(\?|$)/, '/%ZZ$1') })],
  ['numbers past any bound, nested brackets, bad escapes in the query', (r) => ({ ...r, url: `${r.url.split('?')[0]}?a[b][c][d]=1&x=%ZZ&${(r.url.split('?')[1] ?? '').replace(/=[^&]*/g, '=1e309')}` })],
  ['cookies and headers that no style reads', (r) => ({ ...r, headers: { ...r.headers, cookie: 'array=%ZZ; object=,,,; primitive=%', array: ',,,', object: '=,=', prefer: 'code=abc, example=' } })],
  ['a browser asking for HTML', (r) => ({ ...r, headers: { ...r.headers, accept: 'text/html' } })],
  ['HEAD', (r) => ({ ...r, method: 'HEAD', body: undefined })],
  ['OPTIONS', (r) => ({ ...r, method: 'OPTIONS', body: undefined })],
];

function bodyMethod(r: BuiltRequest): string {
  return r.method === 'GET' || r.method === 'HEAD' ? 'POST' : r.method;
}

describe.each(['3.0/petstore', '3.0/file-uploads', '3.0/parameters-style', '3.0/polymorphism', '3.0/discriminators', '3.1/train-travel'])('%s: no request gets a 5xx or HTML', (name) => {
  test.each(hostile)('%s', async (_label, make) => {
    const { document, stub } = await servedExample(name);
    for (const operation of addressable(document)) {
      const request = make(validRequest(document, operation));
      const answer = await send(stub.baseUrl, request.method === 'HEAD' || request.method === 'GET' ? { ...request, body: undefined } : request);
      expectSane(answer, `${name} ${operation.id} ${request.method} ${request.url}`);
    }
  });
});

describe('what a client asks for', () => {
  let petstore: OpenAPI3;
  let stub: RunningStub;
  const key = { api_key: 'anything' };

  beforeAll(async () => {
    ({ document: petstore, stub } = await servedExample('3.0/petstore'));
  });

  test('the declared example, else a sample of the schema, in the media type Accept names', async () => {
    const json = await send(stub.baseUrl, { url: '/pet/7', method: 'GET', headers: key });
    expect(json.status).toBe(200);
    expect(json.type).toBe('application/json; charset=utf-8');
    // Pet has no example: openapi-sampler's sample, with the property examples it gives.
    expect(JSON.parse(json.text)).toMatchObject({ id: 25, name: 'doggie', photoUrls: ['https://example.com/photo.png'], status: 'available' });
    const xml = await send(stub.baseUrl, { url: '/pet/7', method: 'GET', headers: { ...key, accept: 'application/xml' } });
    expect(xml.status).toBe(200);
    expect(xml.type).toMatch(/^application\/xml/);
    expect(xml.text).toMatch(/^<Pet>[\s\S]*<name>doggie<\/name>[\s\S]*<\/Pet>\s*$/);
  });

  test('Prefer: code= answers that declared status; a status it does not declare is a bad request', async () => {
    const notFound = await send(stub.baseUrl, { url: '/pet/7', method: 'GET', headers: { ...key, prefer: 'code=404' } });
    expect([notFound.status, notFound.text]).toEqual([404, '']);
    const unreadable = await send(stub.baseUrl, { url: '/pet/7', method: 'GET', headers: { ...key, prefer: 'code=teapot' } });
    // getPetById declares 400 without a body: answered as declared.
    expect([unreadable.status, unreadable.text]).toEqual([400, '']);
    const undeclared = await send(stub.baseUrl, { url: '/store/order/1', method: 'GET', headers: { prefer: 'code=418' } });
    expect([undeclared.status, undeclared.text]).toEqual([400, '']);
  });

  test('Prefer: example= picks a named example; without one the first is answered', async () => {
    const { document, stub: running } = await servedExample('3.0/response-multiple-mediatypes');
    const first = await send(running.baseUrl, { url: '/single-type-multiple-examples', method: 'GET', headers: {} });
    expect(JSON.parse(first.text)).toMatchObject({ name: 'Fluffy', petType: 'Cat' });
    const named = Object.keys(deref(document, operationAt(document, '/single-type-multiple-examples', 'get')?.responses?.['200'])?.content?.['application/json']?.examples ?? {})[1]!;
    const second = await send(running.baseUrl, { url: '/single-type-multiple-examples', method: 'GET', headers: { prefer: `example=${named}` } });
    expect(second.status).toBe(200);
    expect(JSON.parse(second.text)).toMatchObject({ name: 'Puma', petType: 'Dog' });
  });
});

test("an error the document declares with an example is answered with that example, in the document's media type", async () => {
  const { document, stub: running } = await servedExample('3.1/train-travel');
  const answer = await send(running.baseUrl, { url: '/bookings', method: 'POST', headers: { authorization: 'Bearer t', 'content-type': 'application/json' }, body: '{"trip_id": 5}' });
  expect(answer.status).toBe(400);
  expect(answer.type).toBe('application/problem+json; charset=utf-8');
  const example = deref(document, document.components?.responses?.BadRequest)?.content?.['application/problem+json']?.example;
  expect(example).toMatchObject({ type: 'https://example.com/errors/bad-request', status: 400 });
  expect(JSON.parse(answer.text)).toEqual(example);
});

describe('security: presence only, for every scheme type', () => {
  let document: OpenAPI3;
  let multiple: OpenAPI3;
  let stub: RunningStub;
  let multipleStub: RunningStub;

  beforeAll(async () => {
    ({ document, stub } = await servedExample('3.0/security'));
    multiple = await exampleDocument('3.0/security-multiple');
    // Its operations declare only 401, so a call they let through answers that 401 too (what the
    // document documents, as Prism does): a declared success, added here, tells the two apart.
    const succeeding = structuredClone(multiple);
    for (const item of Object.values(succeeding.paths ?? {})) {
      for (const method of HTTP_METHODS) {
        const responses = deref(succeeding, deref(succeeding, item)[method])?.responses;
        if (responses) responses['204'] = { description: 'let through' };
      }
    }
    const other = contractStub('security-multiple', succeeding);
    multipleStub = await serveStub(await other.create({}), other.basePath);
  });
  afterAll(() => multipleStub.close());

  const call = (running: RunningStub, method: string, url: string, headers: Record<string, string> = {}) => send(running.baseUrl, { method, url, headers });
  const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

  test.each([
    ['apiKey in query', 'GET', '/anything/apiKey?apiKey=k', {}, 'GET', '/anything/apiKey', {}],
    ['apiKey in a cookie', 'POST', '/anything/apiKey', { cookie: 'api_key=k' }, 'POST', '/anything/apiKey', { cookie: 'other=k' }],
    ['apiKey in a header', 'PUT', '/anything/apiKey', { 'x-api-key': 'k' }, 'PUT', '/anything/apiKey', { 'x-api-key': '' }],
    ['http basic', 'POST', '/anything/basic', { authorization: basic('ada:secret') }, 'POST', '/anything/basic', { authorization: basic('no colon') }],
    ['http bearer', 'POST', '/anything/bearer', { authorization: 'Bearer t' }, 'POST', '/anything/bearer', { authorization: basic('ada:secret') }],
    ['http bearer (JWT)', 'PUT', '/anything/bearer', { authorization: 'Bearer a.b.c' }, 'PUT', '/anything/bearer', { authorization: 'Bearer' }],
    ['oauth2', 'POST', '/anything/oauth2', { authorization: 'Bearer t' }, 'POST', '/anything/oauth2', {}],
    ['openIdConnect', 'POST', '/anything/openIdConnect', { authorization: 'Bearer t' }, 'POST', '/anything/openIdConnect', { authorization: 'Token t' }],
  ] as const)('%s: any credential in the scheme passes, a missing or malformed one is 401', async (_label, method, url, headers, badMethod, badUrl, badHeaders) => {
    expect((await call(stub, method, url, headers)).status).toBe(200);
    const refused = await call(stub, badMethod, badUrl, badHeaders);
    expect(refused.status).toBe(401);
    expect(refused.type).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(refused.text)).toMatchObject({ type: 'about:blank', title: 'Unauthorized', status: 401, detail: expect.any(String) });
  });

  test('no security, and an optional one ({} among the alternatives), let anonymous calls through', async () => {
    expect((await call(stub, 'POST', '/anything/no-auth')).status).toBe(200);
    expect((await call(stub, 'GET', '/anything/optional-auth')).status).toBe(200);
    expect((await call(stub, 'GET', '/anything/optional-auth?apiKey=k')).status).toBe(200);
  });

  test('alternatives: either requirement is enough; all schemes of one are needed', async () => {
    expect((await call(multipleStub, 'POST', '/anything/or', { authorization: 'Bearer t' })).status).toBe(204);
    expect((await call(multipleStub, 'POST', '/anything/or', { 'x-api-key': 'k' })).status).toBe(204);
    expect((await call(multipleStub, 'POST', '/anything/or')).status).toBe(401);
    expect((await call(multipleStub, 'POST', '/anything/and-or', { authorization: 'Bearer t' })).status, 'oauth2_alternate alone').toBe(204);
    expect((await call(multipleStub, 'POST', '/anything/and-or', { 'x-api-key': 'k' })).status, 'half of the first requirement').toBe(401);
    expect((await call(multipleStub, 'POST', '/anything/many-and-or', { cookie: 'api_key=k', 'x-api-key': 'k' })).status, 'two of three api keys').toBe(401);
    expect((await call(multipleStub, 'POST', '/anything/many-and-or?apiKey=k', { cookie: 'api_key=k', 'x-api-key': 'k' })).status).toBe(204);
  });

  test('the declared 401 of an operation is its error shape', async () => {
    // POST /status/401 declares 401 without a body.
    const refused = await call(stub, 'POST', '/status/401');
    expect([refused.status, refused.text]).toEqual([401, '']);
  });
});

describe('a hand-written app takes over operation by operation', () => {
  test('multipart uploads reach a handler as bytes, with their fields read as their schema types', async () => {
    const document = await exampleDocument('3.0/file-uploads');
    const seen: Array<{ body: unknown; files: unknown }> = [];
    const service = createServiceRouter({
      slug: 'uploads',
      document,
      handlers: {
        ...contractAnswers(document),
        'post /anything/multipart-formdata': (ctx: { body: unknown; files?: Array<{ field: string; filename?: string; data: Buffer }> }): RuntimeResult => {
          seen.push({ body: ctx.body, files: ctx.files?.map((f) => ({ field: f.field, filename: f.filename, text: f.data.toString() })) });
          return { status: 200 };
        },
        // A document without generated types has no typed handler map: the runtime shape is what is checked.
      } as never,
      security: presenceSecurity(document),
      errors: contractErrors(document),
      clock: systemClock,
    });
    const running = await serveStub({ router: service.router }, service.contract.basePath);
    try {
      const form = new FormData();
      form.append('orderId', '42');
      form.append('userId', '7');
      form.append('documentFile', new Blob([Buffer.from('%PDF-1.7 bytes')], { type: 'application/pdf' }), 'report.pdf');
      const answer = await fetch(`${running.baseUrl}/anything/multipart-formdata`, { method: 'POST', body: form });
      expect(answer.status).toBe(200);
      expect(seen).toEqual([{ body: { orderId: 42, userId: 7, documentFile: '' }, files: [{ field: 'documentFile', filename: 'report.pdf', text: '%PDF-1.7 bytes' }] }]);
      const wrong = new FormData();
      wrong.append('orderId', 'forty-two');
      const refused = await fetch(`${running.baseUrl}/anything/multipart-formdata`, { method: 'POST', body: wrong });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ status: 400, detail: expect.stringContaining('orderId') });
      // The operation the app did not take over still answers from the contract: a PNG body as bytes.
      const png = await fetch(`${running.baseUrl}/anything/image-png`, { method: 'POST', headers: { 'content-type': 'image/png' }, body: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) });
      expect(png.status).toBe(200);
    } finally {
      await running.close();
    }
  });

  test('a form post is read with its schema types; header arrays, cookie objects and delimited query values as their style writes them', async () => {
    const forms = await exampleDocument('3.0/form-data');
    const styles = await exampleDocument('3.0/parameters-style');
    const seen: unknown[] = [];
    const echo = (ctx: { body: unknown; query: unknown; req: Request }): RuntimeResult => {
      seen.push({ body: ctx.body, headers: { array: ctx.req.headers.array, object: ctx.req.headers.object }, cookies: ctx.req.cookies, query: ctx.query });
      return { status: 200 };
    };
    const formRouter = createServiceRouter({ slug: 'forms', document: forms, handlers: { ...contractAnswers(forms), demoFormData: echo } as never, security: {}, errors: contractErrors(forms), clock: systemClock });
    const styleRouter = createServiceRouter({
      slug: 'styles',
      document: styles,
      handlers: {
        ...contractAnswers(styles),
        ...Object.fromEntries(['cookies_standard', 'headers_simple_nonExploded', 'headers_simple_exploded', 'query_form_nonExploded', 'query_spaceDelimited_nonExploded', 'query_pipeDelimited_nonExploded'].map((id) => [id, echo])),
      } as never,
      security: {},
      errors: contractErrors(styles),
      clock: systemClock,
    });
    const formStub = await serveStub({ router: formRouter.router }, formRouter.contract.basePath);
    const styleStub = await serveStub({ router: styleRouter.router }, styleRouter.contract.basePath);
    try {
      const post = (body: string) => fetch(`${formStub.baseUrl}/anything`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
      expect((await post('client_id=a&client_secret=b&scope=5')).status).toBe(200);
      const refused = await post('client_id=a&client_secret=b&scope=five');
      expect(refused.status).toBe(400);
      expect((await post('client_id=a')).status).toBe(400);
      expect(seen.shift()).toMatchObject({ body: { client_id: 'a', client_secret: 'b', scope: 5 } });

      const headers = (url: string, method: string, h: Record<string, string>) => fetch(`${styleStub.baseUrl}${url}`, { method, headers: h });
      expect((await headers('/anything/headers/simple', 'GET', { array: 'a,b,c', object: 'name,Ada,description,first' })).status).toBe(200);
      expect(seen.shift()).toMatchObject({ headers: { array: ['a', 'b', 'c'], object: { name: 'Ada', description: 'first' } } });
      expect((await headers('/anything/headers/simple', 'POST', { array: 'a,b', object: 'name=Ada,description=first' })).status).toBe(200);
      expect(seen.shift()).toMatchObject({ headers: { array: ['a', 'b'], object: { name: 'Ada', description: 'first' } } });
      expect((await headers('/cookies', 'GET', { cookie: 'primitive=p; array=a,b; object=name,Ada,description,first' })).status).toBe(200);
      expect(seen.shift()).toMatchObject({ cookies: { primitive: 'p', array: ['a', 'b'], object: { name: 'Ada', description: 'first' } } });

      // An empty non-exploded list is no items; an object in a delimited style is its keys and values in one list.
      expect((await headers('/anything/query/form?primitive=p&array=&object=', 'GET', {})).status).toBe(200);
      expect(seen.shift()).toMatchObject({ query: { array: [], object: {} } });
      expect((await headers('/anything/query/spaceDelimited?array=a%20b&object=R%20100%20G%20200', 'GET', {})).status).toBe(200);
      expect(seen.shift()).toMatchObject({ query: { array: ['a', 'b'], object: { R: '100', G: '200' } } });
      expect((await headers('/anything/query/pipeDelimited?array=a|b&object=R|100|G|200', 'GET', {})).status).toBe(200);
      expect(seen.shift()).toMatchObject({ query: { array: ['a', 'b'], object: { R: '100', G: '200' } } });
    } finally {
      await formStub.close();
      await styleStub.close();
    }
  });
});

describe("what vendors' documents legally say and validators trip on", () => {
  const problemJson = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };
  /** One operation per quirk, 3.0 as most vendors' documents are. */
  const quirks = asDocument({
    openapi: '3.0.3',
    info: { title: 'Quirks', version: '1' },
    servers: [{ url: 'https://api.vendor.example/v2' }],
    components: {
      schemas: {
        Node: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } },
        Problem: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' } } },
      },
      securitySchemes: { digest: { type: 'http', scheme: 'Digest' } },
    },
    paths: {
      '/nullable': {
        post: {
          operationId: 'nullable',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { type: 'object', properties: { anything: { nullable: true, description: 'no type' }, status: { nullable: true, enum: ['a', 'b'] }, named: { type: 'string', nullable: true } } },
              },
            },
          },
          responses: { '200': { description: 'ok' }, '400': { description: 'bad', content: problemJson } },
        },
      },
      '/bounds': {
        get: {
          operationId: 'bounds',
          parameters: [
            { name: 'above', in: 'query', required: true, schema: { type: 'integer', minimum: 0, exclusiveMinimum: true } },
            { name: 'code', in: 'query', schema: { type: 'string', pattern: '^[A-Z]+\\Z' } },
            { name: 'word', in: 'query', schema: { type: 'string', pattern: '(?i)^abc$' } },
            { name: 'hint', in: 'query', example: 'no schema at all' },
            { name: 'country', in: 'query', schema: { type: 'string', format: 'vendor-country-code' } },
          ],
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' } } } } } }, '400': { description: 'bad', content: problemJson } },
        },
      },
      '/ranged': {
        post: {
          operationId: 'ranged',
          security: [{ digest: [] }],
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } } } },
          responses: {
            '200': { description: 'ok' },
            '4XX': { description: 'client error', content: { 'application/vnd.vendor.error+json': { schema: { type: 'object', properties: { error: { type: 'string' }, hint: { type: 'string' } } } } } },
          },
        },
      },
      // Two operations under one operationId, as vendors' documents have them: each answers its own.
      '/first': { get: { operationId: 'same', responses: { '200': { description: 'ok', content: { 'application/json': { example: { which: 'first' } } } } } } },
      '/second': { get: { operationId: 'same', responses: { '200': { description: 'ok', content: { 'application/json': { example: { which: 'second' } } } } } } },
      '/tree': {
        post: {
          operationId: 'tree',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } },
          responses: { '201': { description: 'made', content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } } },
        },
      },
      '/documents': {
        put: {
          operationId: 'putDocument',
          requestBody: {
            required: true,
            content: {
              'application/xml': { schema: { type: 'object', properties: { title: { type: 'string' } } } },
              'text/plain': { schema: { type: 'string', maxLength: 20 } },
              'application/octet-stream': { schema: { type: 'string' } },
            },
          },
          responses: {
            '200': { description: 'ok', content: { 'text/csv': { example: 'a,b\n1,2\n' }, 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
            default: { description: 'error', content: { 'application/xml': { schema: { type: 'object', xml: { name: 'error' }, properties: { message: { type: 'string' } } } } } },
          },
        },
      },
    },
  });
  let stub: RunningStub;
  const warnings: string[] = [];

  beforeAll(async () => {
    vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warnings.push(args.map(String).join(' ')));
    const service = contractStub('quirks', quirks);
    expect(service.basePath).toBe('/quirks');
    stub = await serveStub(await service.create({}), service.basePath);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await stub.close();
  });

  const json = (url: string, body: unknown, method = 'POST') => send(stub.baseUrl, { url, method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  test('3.0 nullable with a type, without one, with an enum', async () => {
    expect((await json('/nullable', { anything: null, status: null, named: null })).status).toBe(200);
    expect((await json('/nullable', { anything: 3, status: 'a', named: 'n' })).status).toBe(200);
    expect((await json('/nullable', { named: 3 })).status).toBe(400);
    const refused = await json('/nullable', { status: 'c' });
    expect(refused.status).toBe(400);
    // The declared 400: a sample of its schema with the failure's sentence in `message`, its status in `code`.
    expect(refused.type).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(refused.text)).toEqual({ code: 400, message: expect.stringContaining('status') });
  });

  test('boolean exclusiveMinimum; patterns JavaScript cannot compile and unknown formats are not checked, with one warning each; a parameter without a schema', async () => {
    const get = (query: string) => send(stub.baseUrl, { url: `/bounds?${query}`, method: 'GET', headers: {} });
    expect((await get('above=1&code=ABC&word=ABC&hint=x')).status).toBe(200);
    expect((await get('above=0')).status).toBe(400);
    expect((await get('above=1&code=lower')).status, 'the \\Z pattern is not checked').toBe(200);
    expect(warnings.filter((w) => w.includes('\\Z')).length).toBe(1);
    expect(warnings.filter((w) => w.includes('(?i)')).length).toBe(1);
    expect((await get('above=1&country=anything')).status, 'a format the validator does not know is not checked').toBe(200);
    expect(warnings.filter((w) => w.includes('vendor-country-code'))).toEqual(['format "vendor-country-code" is not one the validator knows; it is not checked']);
  });

  test('operations sharing an operationId each answer their own example (a media type without a schema)', async () => {
    for (const which of ['first', 'second']) {
      const answer = await send(stub.baseUrl, { url: `/${which}`, method: 'GET', headers: {} });
      expect([answer.status, JSON.parse(answer.text)]).toEqual([200, { which }]);
    }
  });

  test('an http scheme other than basic and bearer wants its own word; a 4XX range is the error shape of every 4xx', async () => {
    const post = (authorization: string | undefined, body: string) =>
      send(stub.baseUrl, { url: '/ranged', method: 'POST', headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) }, body });
    expect((await post('Digest username="ada", response="x"', '{"n": 1}')).status).toBe(200);
    for (const refused of [await post('Bearer t', '{"n": 1}'), await post(undefined, '{"n": 1}')]) {
      expect([refused.status, refused.type]).toEqual([401, 'application/vnd.vendor.error+json; charset=utf-8']);
      expect(JSON.parse(refused.text)).toEqual({ error: expect.stringContaining('Digest'), hint: 'string' });
    }
    const invalid = await post('Digest username="ada"', '{"n": "one"}');
    expect([invalid.status, invalid.type]).toEqual([400, 'application/vnd.vendor.error+json; charset=utf-8']);
    // `error` is the sentence; the sample gives the other fields.
    expect(JSON.parse(invalid.text)).toEqual({ error: expect.stringContaining('must be integer'), hint: 'string' });
  });

  test('a recursive schema is validated and sampled to a finite depth', async () => {
    expect((await json('/tree', { name: 'root', children: [{ name: 'leaf', children: [] }] })).status).toBe(201);
    const refused = await json('/tree', { name: 'root', children: [{ children: [] }] });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text)).toMatchObject({ type: 'about:blank', status: 400, detail: expect.stringContaining('name') });
    const answer = await json('/tree', { name: 'root' });
    expect(JSON.parse(answer.text)).toMatchObject({ name: 'string' });
  });

  test('XML and text bodies are taken as text, bytes as bytes; a text answer in its declared type; an XML error where declared', async () => {
    const put = (type: string, body: string | Uint8Array, accept?: string) =>
      send(stub.baseUrl, { url: '/documents', method: 'PUT', headers: { 'content-type': type, ...(accept ? { accept } : {}) }, body });
    const xml = await put('application/xml', '<doc><title>t</title></doc>');
    expect([xml.status, xml.type, xml.text]).toEqual([200, 'text/csv; charset=utf-8', 'a,b\n1,2\n']);
    expect((await put('text/plain', 'short')).status).toBe(200);
    const long = await put('text/plain', 'far more than twenty characters');
    expect(long.status).toBe(400);
    expect(long.type).toMatch(/^application\/xml/);
    // The declared XML error's schema, its root named by `xml.name`, with the failure's sentence in `message`.
    expect(long.text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<error><message>[^<]*more than 20 characters[^<]*<\/message><\/error>\n$/);
    const bytes = await put('application/octet-stream', new Uint8Array([0, 1, 2, 255]), 'application/octet-stream');
    expect([bytes.status, bytes.type]).toEqual([200, 'application/octet-stream']);
    const undeclared = await put('application/yaml', 'a: 1');
    expect(undeclared.status).toBe(415);
    expect(undeclared.type).toMatch(/^application\/xml/);
  });
});

describe('npm start serves a bundle without an app from its contract', () => {
  let generatedDir: string;
  let petstore: OpenAPI3;

  beforeAll(async () => {
    petstore = await exampleDocument('3.0/petstore');
    generatedDir = await mkdtemp(path.join(os.tmpdir(), 'contract-stub-'));
    const write = async (slug: string, text: string) => {
      await mkdir(path.join(generatedDir, slug));
      await writeFile(path.join(generatedDir, slug, 'openapi.json'), text);
    };
    await write('vendor-pets', JSON.stringify(petstore));
    // A document whose server is this machine is served at its server's path (mountPathOf).
    await write('local-pets', JSON.stringify({ ...petstore, servers: [{ url: 'http://localhost:4000/local/v1' }] }));
    await write('broken-api', '{"openapi": "3.0.3", "paths": {');
    await write('swagger-two', JSON.stringify({ swagger: '2.0', info: { title: 'old', version: '1' }, paths: {} }));
    // The development controls' contract is served by controls.ts, never as a service.
    await write('stub-controls', JSON.stringify({ ...petstore, servers: [{ url: 'http://localhost:4000/_stub' }] }));
  });
  afterAll(() => rm(generatedDir, { recursive: true, force: true }));

  test('beside a broken bundle, which answers 503 naming its problem while the others keep serving', async () => {
    const platform = await startPlatformServer(0, '127.0.0.1', { clock: createManualClock(), generatedDir });
    try {
      const origin = `http://127.0.0.1:${platform.port}`;
      const pet = await fetch(`${origin}/vendor-pets/pet/7`, { headers: { api_key: 'any' } });
      expect(pet.status).toBe(200);
      expect(await pet.json()).toMatchObject({ name: 'doggie' });
      // getPetById declares `default` without a body; getInventory declares nothing but 200: problem details.
      const anonymous = await fetch(`${origin}/vendor-pets/pet/7`);
      expect([anonymous.status, await anonymous.text()]).toEqual([401, '']);
      const inventory = await fetch(`${origin}/vendor-pets/store/inventory`);
      expect([inventory.status, inventory.headers.get('content-type')]).toEqual([401, 'application/problem+json; charset=utf-8']);
      expect(await inventory.json()).toMatchObject({ status: 401, title: 'Unauthorized', detail: expect.stringContaining('api_key') });
      expect((await fetch(`${origin}/local/v1/store/inventory`, { headers: { api_key: 'any' } })).status).toBe(200);

      const broken = await fetch(`${origin}/broken-api/anything`);
      expect(broken.status).toBe(503);
      expect((await broken.json()).error).toMatch(/broken-api.*openapi\.json cannot be read/);
      const old = await fetch(`${origin}/swagger-two/anything`);
      expect(old.status).toBe(503);
      expect((await old.json()).error).toMatch(/not OpenAPI 3\.0 or 3\.1/);

      // A hand-written service still answers as itself.
      expect((await fetch(`${origin}/seo/projects`)).status).toBe(401);
      expect(platform.services.map((s) => s.slug)).toEqual(expect.arrayContaining(['vendor-pets', 'local-pets', 'seo']));
      expect(platform.services.map((s) => s.slug)).not.toContain('stub-controls');
      expect(platform.broken.map((b) => b.slug).sort()).toEqual(['broken-api', 'swagger-two']);
      const text = banner(platform);
      expect(text).toMatch(/vendor-pets .*\/vendor-pets .*Swagger Petstore/);
      expect(text).toContain('no credentials seeded, any value is taken: Authorization: Bearer <any token> | api_key: <any key>');
      expect(text).toMatch(/broken-api .*FAILED TO START \(answers 503\)/);
    } finally {
      await platform.close();
    }
  });

  test('lazily (npm start): a contract service loads on its first request, at its own mount path', async () => {
    const platform = await startPlatformServer(0, '127.0.0.1', { clock: createManualClock(), generatedDir, lazy: true });
    try {
      const origin = `http://127.0.0.1:${platform.port}`;
      const first = await fetch(`${origin}/local/v1/store/inventory`, { headers: { api_key: 'any' } });
      expect(first.status).toBe(200);
      expect((await fetch(`${origin}/broken-api/x`)).status).toBe(503);
      await platform.ready;
      expect(platform.services.map((s) => s.slug)).toEqual(expect.arrayContaining(['vendor-pets', 'local-pets']));
    } finally {
      await platform.close();
    }
  });
});
