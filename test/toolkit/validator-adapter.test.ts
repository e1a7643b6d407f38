/**
 * What the stubs rely on from express-openapi-validator, pinned through HTTP on a small fixture
 * contract: server-stubs/lib/validator-adapter.ts assembles the library from modules of its `dist/`
 * that move between versions, so an upgrade of the library is a run of this file. Coercion of
 * path, query and header values, defaults filled in, formats (an unknown one accepted), the error
 * texts the services' error mappers read, the security requirements evaluated in order, a response
 * off the contract, a media type the operation does not take.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createManualClock } from '../../server-stubs/lib/clock.js';
import type { ErrorMapper } from '../../server-stubs/lib/errors.js';
import type { SecurityHandler } from '../../server-stubs/lib/auth.js';
import { createServiceRouter } from '../../server-stubs/lib/service-router.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';
import { asDocument } from '../helpers/fixture-document.js';

const anyObject = { 'application/json': { schema: { type: 'object' } } };
const failures = {
  400: { description: 'bad', content: anyObject },
  401: { description: 'no', content: anyObject },
  403: { description: 'no', content: anyObject },
  415: { description: 'no', content: anyObject },
};

const fixture = asDocument({
  openapi: '3.1.0',
  info: { title: 'Validator fixture', version: '1.0.0' },
  servers: [{ url: 'http://localhost/va' }],
  components: {
    securitySchemes: {
      keyA: { type: 'apiKey', in: 'header', name: 'x-key-a' },
      keyB: { type: 'apiKey', in: 'header', name: 'x-key-b' },
    },
    // Shared by several operations, in requests and answers: each is compiled once per side and
    // document, and every operation's errors still name that operation's own paths.
    schemas: {
      Address: { type: 'object', required: ['city'], properties: { city: { type: 'string', minLength: 2 } } },
      Person: {
        type: 'object',
        required: ['id', 'name', 'home'],
        properties: { id: { type: 'string', readOnly: true }, name: { type: 'string' }, home: { $ref: '#/components/schemas/Address' } },
      },
    },
  },
  paths: {
    '/echo/{id}': {
      get: {
        operationId: 'echo',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 } },
          { name: 'flag', in: 'query', schema: { type: 'boolean' } },
          { name: 'tags', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
          { name: 'day', in: 'query', schema: { type: 'string', format: 'date' } },
          { name: 'x-count', in: 'header', schema: { type: 'integer' } },
        ],
        responses: { 200: { description: 'ok', content: anyObject }, ...failures },
      },
    },
    '/typed/{count}/{ratio}/{on}': {
      get: {
        operationId: 'typed',
        parameters: [
          { name: 'count', in: 'path', required: true, schema: { type: 'integer' } },
          { name: 'ratio', in: 'path', required: true, schema: { type: 'number' } },
          { name: 'on', in: 'path', required: true, schema: { type: 'boolean' } },
        ],
        responses: { 200: { description: 'ok', content: anyObject }, ...failures },
      },
    },
    '/things': {
      post: {
        operationId: 'createThing',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name'],
                properties: {
                  name: { type: 'string' },
                  email: { type: 'string', format: 'email' },
                  at: { type: 'string', format: 'date-time' },
                  colour: { type: 'string', format: 'x-colour' },
                  kind: { type: 'string', enum: ['a', 'b'] },
                  size: { type: 'integer', default: 3 },
                },
              },
            },
          },
        },
        responses: { 201: { description: 'created', content: anyObject }, ...failures },
      },
    },
    '/guarded': {
      get: {
        operationId: 'guarded',
        security: [{ keyA: [] }, { keyB: [] }],
        responses: { 204: { description: 'passed' }, ...failures },
      },
    },
    '/people': {
      post: {
        operationId: 'createPerson',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Person' } } } },
        responses: { 201: { description: 'created', content: { 'application/json': { schema: { $ref: '#/components/schemas/Person' } } } }, ...failures },
      },
    },
    '/people/{name}': {
      get: {
        operationId: 'showPerson',
        parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Person' } } } }, ...failures },
      },
    },
    '/places/{id}': {
      put: {
        operationId: 'putPlace',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', required: ['address'], properties: { address: { $ref: '#/components/schemas/Address' }, owner: { $ref: '#/components/schemas/Person' } } },
            },
          },
        },
        responses: { 200: { description: 'ok', content: anyObject }, ...failures },
      },
    },
    '/broken': {
      get: {
        operationId: 'broken',
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } } } }, ...failures },
      },
    },
  },
});

/** Echoes the failure as the framework hands it to a service's mapper. */
const echoErrors: ErrorMapper = (failure) => ({ status: failure.status, body: { kind: failure.kind, message: failure.message, issues: failure.issues ?? [] } });

/** The security handlers called, in order, for the last request. */
let calls: string[] = [];
const keyHandler =
  (name: string, status: number): SecurityHandler =>
  (req) => {
    calls.push(name);
    if (req.headers[`x-key-${name.toLowerCase()}`] === 'good') return true;
    throw Object.assign(new Error(`${name} refuses`), { status });
  };

const handlers = {
  echo: ({ params, query, headers, req }: { params: Record<string, unknown>; query: Record<string, unknown>; headers: Record<string, unknown>; req: { params: Record<string, unknown> } }) => ({
    status: 200,
    body: { id: params.id, checkedId: req.params.id, limit: query.limit, flag: query.flag, tags: query.tags, day: query.day, count: headers['x-count'] },
  }),
  typed: ({ params }: { params: Record<string, unknown> }) => ({
    status: 200,
    body: { params, types: Object.values(params).map((value) => typeof value) },
  }),
  createThing: ({ body }: { body: unknown }) => ({ status: 201, body }),
  guarded: () => ({ status: 204 }),
  createPerson: ({ body }: { body: Record<string, unknown> }) => ({ status: 201, body: { id: 'p1', ...body } }),
  // An answer off Person in the way the path asks for: no id, or a city that is no string.
  showPerson: ({ params }: { params: Record<string, unknown> }) => ({
    status: 200,
    body: params.name === 'anonymous' ? { name: 'n', home: { city: 'Paris' } } : { id: 'p2', name: params.name, home: { city: params.name === 'nowhere' ? 1 : 'Paris' } },
  }),
  putPlace: ({ body }: { body: unknown }) => ({ status: 200, body }),
  broken: () => ({ status: 200, body: { n: 'one' } }),
};

let stub: RunningStub;

beforeAll(async () => {
  const router = createServiceRouter({
    slug: 'va',
    document: fixture,
    handlers: handlers as never,
    security: { keyA: keyHandler('A', 401), keyB: keyHandler('B', 403) },
    errors: echoErrors,
    clock: createManualClock(),
  });
  stub = await serveStub(router, '/va');
});

afterAll(async () => {
  await stub.close();
});

const get = async (path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${stub.baseUrl}${path}`, { headers });
  return { status: response.status, body: response.status === 204 ? undefined : await response.json() };
};
const post = async (body: unknown, type = 'application/json') => {
  const response = await fetch(`${stub.baseUrl}/things`, { method: 'POST', headers: { 'content-type': type }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
};

describe('coercion and defaults', () => {
  test('query and header values arrive as their schema types; a single value of an array parameter is an array', async () => {
    expect(await get('/echo/7?limit=5&flag=true&tags=a&day=2026-01-31', { 'x-count': '3' })).toEqual({
      status: 200,
      // The library coerces the path values it checks (`req.params`), and the handler gets those: an integer, as its type says.
      body: { id: 7, checkedId: 7, limit: 5, flag: true, tags: ['a'], day: '2026-01-31', count: 3 },
    });
    expect((await get('/echo/7?tags=a&tags=b')).body.tags).toEqual(['a', 'b']);
  });

  test('a query parameter left out gets its default; a body field left out gets its default', async () => {
    expect((await get('/echo/1')).body).toEqual({ id: 1, checkedId: 1, limit: 10 });
    expect(await post({ name: 'n' })).toEqual({ status: 201, body: { name: 'n', size: 3 } });
  });
});

describe('path parameters', () => {
  test('a handler gets integer, number and boolean path parameters as their schema types', async () => {
    expect(await get('/typed/7/0.25/true')).toEqual({
      status: 200,
      body: { params: { count: 7, ratio: 0.25, on: true }, types: ['number', 'number', 'boolean'] },
    });
    expect((await get('/typed/-3/2/false')).body.params).toEqual({ count: -3, ratio: 2, on: false });
  });

  test('a path value that is not of its type is the service\'s 400, naming the parameter', async () => {
    expect(await get('/typed/seven/0.25/true')).toEqual({
      status: 400,
      body: { kind: 'validation', message: expect.any(String), issues: [{ path: 'params.count', message: 'must be integer' }] },
    });
    expect((await get('/typed/7.5/half/maybe')).body.issues).toEqual([
      { path: 'params.count', message: 'must be integer' },
      { path: 'params.ratio', message: 'must be number' },
      { path: 'params.on', message: 'must be boolean' },
    ]);
  });
});

describe('formats and the error texts the mappers read', () => {
  test('a value off its format is refused; a format the validator does not know is accepted', async () => {
    expect(await post({ name: 'n', email: 'nope', at: 'yesterday' })).toEqual({
      status: 400,
      body: {
        kind: 'validation',
        message: expect.any(String),
        issues: [
          { path: 'body.email', message: 'must match format "email"' },
          { path: 'body.at', message: 'must match format "date-time"' },
        ],
      },
    });
    expect((await post({ name: 'n', colour: 'anything' })).status).toBe(201);
    expect((await get('/echo/1?day=31-01-2026')).body.issues).toEqual([{ path: 'query.day', message: 'must match format "date"' }]);
  });

  test('every fault at once (allErrors), each with its path and the library words', async () => {
    expect((await post({ kind: 'c', size: 'big' })).body.issues).toEqual([
      { path: 'body.name', message: "must have required property 'name'" },
      { path: 'body.kind', message: 'must be equal to one of the allowed values: a, b' },
      { path: 'body.size', message: 'must be integer' },
    ]);
    expect((await get('/echo/x?limit=0&flag=maybe')).body.issues).toEqual([
      { path: 'query.limit', message: 'must be >= 1' },
      { path: 'query.flag', message: 'must be boolean' },
      { path: 'params.id', message: 'must be integer' },
    ]);
  });

  test('a media type the operation does not take is a 415, a body that is not JSON a 400', async () => {
    expect((await post('name=n', 'text/plain')).body).toMatchObject({ kind: 'unsupported_media_type' });
    expect((await post('name=n', 'text/plain')).status).toBe(415);
    expect(await post('{"name":', 'application/json')).toMatchObject({ status: 400, body: { kind: 'validation' } });
  });
});

describe('security', () => {
  test('requirements are alternatives, each handler called in order; the first failure is the answer', async () => {
    calls = [];
    expect(await get('/guarded', { 'x-key-a': 'bad', 'x-key-b': 'bad' })).toEqual({ status: 401, body: { kind: 'unauthenticated', message: 'A refuses', issues: [] } });
    expect(calls).toEqual(['A', 'B']);
    calls = [];
    expect((await get('/guarded', { 'x-key-a': 'bad', 'x-key-b': 'good' })).status).toBe(204);
    expect(calls).toEqual(['A', 'B']);
  });

  test('a credential that is not presented is refused before its handler is called', async () => {
    calls = [];
    expect((await get('/guarded')).status).toBe(401);
    expect(calls).toEqual([]);
  });
});

describe('component schemas shared by several operations', () => {
  const send = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${stub.baseUrl}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json() };
  };

  test("each operation's errors name its own paths into the shared schema", async () => {
    expect((await send('POST', '/people', { name: 'n', home: { city: 'x' } })).body.issues).toEqual([{ path: 'body.home.city', message: 'must NOT have fewer than 2 characters' }]);
    expect((await send('PUT', '/places/1', { address: { city: 'y' }, owner: { name: 3, home: {} } })).body.issues).toEqual([
      { path: 'body.address.city', message: 'must NOT have fewer than 2 characters' },
      { path: 'body.owner.name', message: 'must be string' },
      { path: 'body.owner.home.city', message: "must have required property 'city'" },
    ]);
    expect((await send('POST', '/people', { name: 'n', home: { city: 'Oslo' }, extra: true })).status).toBe(201);
    expect((await send('PUT', '/places/1', { address: { city: 'Oslo' } })).status).toBe(200);
  });

  test('a read-only property is required of answers, not of requests, in the same schema', async () => {
    expect(await send('POST', '/people', { name: 'n', home: { city: 'Oslo' } })).toEqual({ status: 201, body: { id: 'p1', name: 'n', home: { city: 'Oslo' } } });
    expect(await send('PUT', '/places/2', { address: { city: 'Oslo' }, owner: { name: 'n', home: { city: 'Oslo' } } })).toMatchObject({ status: 200 });
    expect(await get('/people/ada')).toEqual({ status: 200, body: { id: 'p2', name: 'ada', home: { city: 'Paris' } } });
    const anonymous = await get('/people/anonymous');
    expect(anonymous.status).toBe(500);
    expect(anonymous.body.message).toMatch(/must have required property 'id'/);
    const nowhere = await get('/people/nowhere');
    expect(nowhere.status).toBe(500);
    expect(nowhere.body.message).toMatch(/response\.home\.city must be string/);
  });
});

describe('responses', () => {
  test('an answer off its schema is a 500 naming what is wrong, not the body', async () => {
    const answer = await get('/broken');
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({ kind: 'internal', message: expect.stringMatching(/^Response does not match the contract: .*n must be integer/) });
  });
});
