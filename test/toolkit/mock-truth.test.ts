/**
 * The mock tells the truth (issue 16): it refuses the credentials the stubs refuse, in the same error
 * body; `Prefer` gets the example asked for; an invalid request is answered in the service's error
 * body naming what is wrong; no `sl-violations` reach the client; browsers on another origin may call
 * it. Everything through HTTP, against `npm run mock`'s server; the seo and mail stubs answer the same
 * requests beside it, as the reference for "the same body".
 */
import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startMockServer, type MockServer } from '../../mock/server.js';
import { deref, operationAt } from '../../server-stubs/lib/openapi/document.js';
import { contractChecker } from '../../scripts/lib/contract-checker.js';
import { loadContract } from '../../server-stubs/lib/contract.js';
import { createMailApp } from '../../server-stubs/mail/app.js';
import { createSeoApp } from '../../server-stubs/seo/app.js';
import { seoErrors } from '../../server-stubs/seo/errors.js';
import { mailErrors } from '../../server-stubs/mail/errors.js';
import { parseEventStream } from '../../server-stubs/lib/sse.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';

const seo = contractChecker('seo');
const mail = contractChecker('mail');
const coder = contractChecker('coder');
const projectId = '0b6f5c9e-3c1a-4e5b-9a7d-2f1e8c4d6a01';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let mock: MockServer;
let origin: string;
let seoStub: RunningStub;
let mailStub: RunningStub;

beforeAll(async () => {
  const seoApp = createSeoApp();
  const mailApp = createMailApp();
  [mock, seoStub, mailStub] = await Promise.all([startMockServer(0, '127.0.0.1'), serveStub(seoApp, seoApp.basePath, seoErrors), serveStub(mailApp, mailApp.basePath, mailErrors)]);
  origin = `http://127.0.0.1:${mock.port}`;
}, 120_000);

afterAll(async () => {
  await Promise.all([mock?.close(), seoStub?.close(), mailStub?.close()]);
});

/** A call to the mock, and the same call to a stub when given; bodies parsed when JSON. */
async function call(path: string, init: RequestInit = {}, stubBaseUrl?: string) {
  const send = async (url: string) => {
    const response = await fetch(url, { redirect: 'manual', ...init });
    const text = await response.text();
    const json = (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : undefined;
    return { response, status: response.status, text, json };
  };
  const [answer, stub] = await Promise.all([send(`${origin}${path}`), stubBaseUrl ? send(`${stubBaseUrl}${path.replace(/^\/[^/]+/, '')}`) : undefined]);
  expect(answer.response.headers.get('sl-violations'), 'Prism remarks never reach the client').toBeNull();
  return { ...answer, stub };
}

/**
 * A request through node:http, for what fetch would not send as written: a path with `..` (fetch
 * resolves it), a body on a GET. Bodies are framed by Content-Length. The same request to the seo stub beside it.
 */
async function rawCall(method: string, path: string, headers: Record<string, string>, body?: string) {
  const send = (port: number, target: string) =>
    new Promise<{ status: number; type: string; json: unknown }>((resolve, reject) => {
      const framed = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
      const request = http.request({ host: '127.0.0.1', port, method, path: target, headers: framed }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const type = String(response.headers['content-type'] ?? '');
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: response.statusCode ?? 0, type, json: type.includes('json') ? JSON.parse(text) : undefined });
        });
      });
      request.on('error', reject);
      request.end(body);
    });
  const stubUrl = new URL(seoStub.baseUrl);
  const [answer, stub] = await Promise.all([send(mock.port, path), send(Number(stubUrl.port), `${stubUrl.pathname}${path.replace(/^\/seo/, '')}`)]);
  return { ...answer, stub };
}

/** The value of a named example of an operation's response, from the published contract. */
function exampleOf(slug: string, path: string, method: string, status: string, name: string): unknown {
  const { document } = loadContract(slug);
  const response = deref(document, operationAt(document, path, method)?.responses?.[status]);
  return deref(document, response?.content?.['application/json']?.examples?.[name])?.value;
}

describe('credentials, as the stubs check them', () => {
  test('an unknown bearer token is refused with 401 in the seo error body, like the stub', async () => {
    const { status, json, stub } = await call('/seo/projects', { headers: bearer('not-a-seeded-key') }, seoStub.baseUrl);
    expect(status).toBe(401);
    expect(seo.responseErrors('/projects', 'get', 401, json)).toEqual([]);
    expect(stub!.status).toBe(401);
    expect(Object.keys(json).sort()).toEqual(Object.keys(stub!.json).sort());
    expect(json.code).toBe(stub!.json.code);
  });

  test('the revoked mail key is refused with 401 in the mail error body, like the stub', async () => {
    const { status, json, stub } = await call('/mail/v1/contacts', { headers: bearer('msk_test_revoked') }, mailStub.baseUrl);
    expect(status).toBe(401);
    expect(mail.responseErrors('/v1/contacts', 'get', 401, json)).toEqual([]);
    expect(json).toMatchObject({ success: false, error: expect.stringMatching(/revoked/) });
    expect(stub!.status).toBe(401);
    expect(Object.keys(json).sort()).toEqual(Object.keys(stub!.json).sort());
  });

  test("a key of another service is unknown here, as on the stubs", async () => {
    const { status, json } = await call('/mail/v1/contacts', { headers: bearer('seo_test_key') });
    expect(status).toBe(401);
    expect(mail.responseErrors('/v1/contacts', 'get', 401, json)).toEqual([]);
  });

  test('a seeded key passes and gets the success example', async () => {
    const { status, json } = await call('/mail/v1/contacts', { headers: bearer('msk_test_max') });
    expect(status).toBe(200);
    expect(mail.responseErrors('/v1/contacts', 'get', 200, json)).toEqual([]);
  });

  test('a session route takes the seeded cookie and refuses an unknown one', async () => {
    expect((await call('/mail/api/segments', { headers: { cookie: 'session=sess_test_max' } })).status).toBe(200);
    const { status, json } = await call('/mail/api/segments', { headers: { cookie: 'session=sess_forged' } });
    expect(status).toBe(401);
    expect(mail.responseErrors('/api/segments', 'get', 401, json)).toEqual([]);
  });
});

describe('Prefer picks the example', () => {
  test('Prefer: code=403 answers the 403 example', async () => {
    const { status, json } = await call('/mail/v1/contacts', { headers: { ...bearer('msk_test_max'), prefer: 'code=403' } });
    expect(status).toBe(403);
    expect(json).toEqual(exampleOf('mail', '/v1/contacts', 'get', '403', 'missingScope'));
  });

  test('Prefer: example=<name> answers that example with its status', async () => {
    const { status, json } = await call('/mail/v1/contacts', { headers: { ...bearer('msk_test_max'), prefer: 'example=revokedKey' } });
    expect(status).toBe(401);
    expect(json).toEqual(exampleOf('mail', '/v1/contacts', 'get', '401', 'revokedKey'));
  });

  test('a status the operation does not declare is the client’s mistake, said in the service’s body', async () => {
    const { status, json } = await call('/mail/v1/contacts', { headers: { ...bearer('msk_test_max'), prefer: 'code=418' } });
    expect(status).toBe(400);
    expect(mail.responseErrors('/v1/contacts', 'get', 400, json)).toEqual([]);
    expect(json.error).toMatch(/418/);
  });
});

describe('invalid requests are answered in the service’s error body, naming the violation', () => {
  test('a POST /projects body with a wrong type names the field', async () => {
    const init = { method: 'POST', headers: { ...bearer('seo_test_key'), 'content-type': 'application/json' }, body: JSON.stringify({ name: 5 }) };
    const { status, json, stub } = await call('/seo/projects', init, seoStub.baseUrl);
    expect(status).toBe(400);
    expect(seo.responseErrors('/projects', 'post', 400, json)).toEqual([]);
    expect(json.code).toBe(stub!.json.code);
    expect(json.error).toMatch(/name/);
    expect(json.error).toMatch(/string/);
  });

  test('a field the schema does not know is ignored, as the stubs ignore it (the tolerant reader), not refused', async () => {
    const init = { method: 'POST', headers: { ...bearer('seo_test_key'), 'content-type': 'application/json' }, body: '{"name": "New", "later": true, "__proto__": {"x": 1}}' };
    const { status, stub } = await call('/seo/projects', init, seoStub.baseUrl);
    expect(stub!.status).toBe(201);
    expect(status).toBe(201);
  });

  test('a query parameter off its schema names the parameter', async () => {
    const { status, json } = await call('/mail/v1/contacts?limit=many', { headers: bearer('msk_test_max') });
    expect(status).toBe(400);
    expect(mail.responseErrors('/v1/contacts', 'get', 400, json)).toEqual([]);
    expect(Object.keys(json.details.fieldErrors)).toEqual(['limit']);
  });

  test('where the operation declares 422 and not 400, a bad request is a 422 in its body', async () => {
    const init = { method: 'POST', headers: { ...bearer('coder_test_key'), 'content-type': 'application/json' }, body: JSON.stringify({ tool: 5 }) };
    const { status, json } = await call('/coder/mcp/call', init);
    expect(status).toBe(422);
    expect(coder.responseErrors('/mcp/call', 'post', 422, json)).toEqual([]);
    expect(JSON.stringify(json)).toMatch(/tool/);
  });

  test('an unknown path is 404 and a wrong method 405 with Allow, in the service’s body', async () => {
    const missing = await call('/seo/no-such-thing', { headers: bearer('seo_test_key') });
    expect(missing.status).toBe(404);
    expect(missing.json.code).toBe('NOT_FOUND');
    const wrong = await call('/seo/projects', { method: 'DELETE', headers: bearer('seo_test_key') });
    expect(wrong.status).toBe(405);
    expect(wrong.response.headers.get('allow')).toMatch(/GET/);
    expect(wrong.json.code).toBe('METHOD_NOT_ALLOWED');
  });
});

describe('bad input gets the stubs’ answer, never a 5xx (issue 26)', () => {
  const post = (headers: Record<string, string>, body: BodyInit) => ({ method: 'POST', headers: { ...bearer('seo_test_key'), ...headers }, body });

  /** The mock answered as the seo stub did: the same status and body, a declared error of POST /projects. */
  function sameAsStub(answer: { status: number; json: unknown; stub?: { status: number; json: unknown } }) {
    expect(answer.status).toBe(answer.stub!.status);
    expect(answer.status).toBeLessThan(500);
    expect(seo.responseErrors('/projects', 'post', answer.status, answer.json)).toEqual([]);
    expect(answer.json).toEqual(answer.stub!.json);
  }

  test('a JSON body in a charset body-parser does not read is the stub’s 400 naming the charset', async () => {
    const answer = await call('/seo/projects', post({ 'content-type': 'application/json; charset=bogus' }, '{"name":"New"}'), seoStub.baseUrl);
    sameAsStub(answer);
    expect(answer.json.error).toMatch(/charset "bogus"/);
  });

  test('Content-Encoding: gzip on a body that is not gzipped is the stub’s 400', async () => {
    sameAsStub(await call('/seo/projects', post({ 'content-type': 'application/json', 'content-encoding': 'gzip' }, '{"name":"New"}'), seoStub.baseUrl));
  });

  test('a gzip body cut short is the stub’s 400', async () => {
    const cut = new Uint8Array(zlib.gzipSync('{"name":"New"}').subarray(0, 15));
    sameAsStub(await call('/seo/projects', post({ 'content-type': 'application/json', 'content-encoding': 'gzip' }, cut), seoStub.baseUrl));
  });

  test('a Content-Encoding the stubs cannot undo is the stub’s 400 naming it', async () => {
    const answer = await call('/seo/projects', post({ 'content-type': 'application/json', 'content-encoding': 'compress' }, '{"name":"New"}'), seoStub.baseUrl);
    sameAsStub(answer);
    expect(answer.json.error).toMatch(/compress/);
  });

  test('`content-type: json`, not a media type, is the stub’s 400 naming it', async () => {
    const answer = await call('/seo/projects', post({ 'content-type': 'json' }, '{"name":"New"}'), seoStub.baseUrl);
    sameAsStub(answer);
    expect(answer.json.error).toMatch(/Content-Type json is not accepted/);
  });

  test('JSON that does not parse is the stub’s 400 in the stub’s words', async () => {
    sameAsStub(await call('/seo/projects', post({ 'content-type': 'application/json' }, '{"name":'), seoStub.baseUrl));
  });

  test('a JSON body named UTF-16 is read as UTF-16, as the stubs read it (here not JSON: their 400)', async () => {
    sameAsStub(await call('/seo/projects', post({ 'content-type': 'application/json; charset=utf-16' }, '{"name":"New"}'), seoStub.baseUrl));
  });

  test('a number past any bound in a JSON body is the stub’s 400 naming where', async () => {
    const answer = await call('/seo/projects', post({ 'content-type': 'application/json' }, '{"name":"New","size":1e309}'), seoStub.baseUrl);
    sameAsStub(answer);
    expect(answer.json.error).toMatch(/body\.size is not a finite number/);
  });

  test('a numeric query parameter written in hex or as Infinity is the stub’s 400 naming it', async () => {
    for (const limit of ['0x1F', 'Infinity']) {
      const answer = await call(`/mail/v1/contacts?limit=${limit}`, { headers: bearer('msk_test_max') }, mailStub.baseUrl);
      expect(answer.status).toBe(400);
      expect(mail.responseErrors('/v1/contacts', 'get', 400, answer.json)).toEqual([]);
      expect(answer.json).toEqual(answer.stub!.json);
    }
  });

  test('a path Prism normalises away (DELETE /projects/..) is the declared 404 in the seo body, not Prism’s problem+json', async () => {
    const answer = await rawCall('DELETE', '/seo/projects/..', bearer('seo_test_key'));
    const unknown = await rawCall('DELETE', `/seo/projects/${projectId}`, bearer('seo_test_key'));
    expect(answer.status).toBe(404);
    expect(answer.type).toMatch(/^application\/json/);
    expect(seo.responseErrors('/projects/{projectId}', 'delete', 404, answer.json)).toEqual([]);
    // The stub's 404 for a project it does not know: the same code, the same fields.
    expect(unknown.stub.status).toBe(404);
    expect(answer.json).toMatchObject({ code: (unknown.stub.json as { code: string }).code, error: expect.stringMatching(/projects\/\.\./) });
    expect(Object.keys(answer.json as object).sort()).toEqual(Object.keys(unknown.stub.json as object).sort());
  });

  test('a body on an operation that takes none is left unread, as the stubs leave it', async () => {
    const answer = await rawCall('GET', '/seo/projects', { ...bearer('seo_test_key'), 'content-type': 'application/json' }, '{"broken":');
    expect(answer.stub.status).toBe(200);
    expect(answer.status).toBe(200);
    expect(seo.responseErrors('/projects', 'get', 200, answer.json)).toEqual([]);
  });

  test('a DELETE whose operation takes a JSON body is answered, not broken in transit', async () => {
    const body = JSON.stringify({ projectId, configId: '6a1d2c3e-4b5f-4a6b-8c7d-9e0f1a2b3c01' });
    const { status, json } = await call('/seo/rank-tracking/configs', { method: 'DELETE', headers: { ...bearer('seo_test_key'), 'content-type': 'application/json' }, body });
    expect(status).toBe(200);
    expect(seo.responseErrors('/rank-tracking/configs', 'delete', 200, json)).toEqual([]);
  });

  test('Prism’s ?__code= answers that declared status with its example, like Prefer: code=', async () => {
    const deleted = await call(`/seo/projects/${projectId}?__code=404`, { method: 'DELETE', headers: bearer('seo_test_key') });
    expect(deleted.status).toBe(404);
    expect(seo.responseErrors('/projects/{projectId}', 'delete', 404, deleted.json)).toEqual([]);
    // Prism alone answers a forced status with another operation's example (prefer.ts).
    const { status, json } = await call('/mail/v1/contacts?__code=403', { headers: bearer('msk_test_max') });
    expect(status).toBe(403);
    expect(json).toEqual(exampleOf('mail', '/v1/contacts', 'get', '403', 'missingScope'));
  });

  test('Prism’s ?__example= answers the named example with its status, like Prefer: example=', async () => {
    const { status, json } = await call('/mail/v1/contacts?__example=revokedKey', { headers: bearer('msk_test_max') });
    expect(status).toBe(401);
    expect(json).toEqual(exampleOf('mail', '/v1/contacts', 'get', '401', 'revokedKey'));
  });

  test('an undeclared ?__code= or an unknown ?__example= is a 400 in the service’s body naming it', async () => {
    const code = await call('/mail/v1/contacts?__code=418', { headers: bearer('msk_test_max') });
    expect(code.status).toBe(400);
    expect(mail.responseErrors('/v1/contacts', 'get', 400, code.json)).toEqual([]);
    expect(code.json.error).toMatch(/__code=418/);
    const example = await call('/mail/v1/contacts?__example=nope', { headers: bearer('msk_test_max') });
    expect(example.status).toBe(400);
    expect(mail.responseErrors('/v1/contacts', 'get', 400, example.json)).toEqual([]);
    expect(example.json.error).toMatch(/__example=nope/);
  });

  test('a 100 kB URL is the stubs’ 431 in JSON, not a reset', async () => {
    const answer = await call(`/seo/projects?q=${'a'.repeat(100_000)}`, { headers: bearer('seo_test_key') }, seoStub.baseUrl);
    expect(answer.status).toBe(431);
    expect(answer.stub!.status).toBe(431);
    expect(answer.json).toEqual(answer.stub!.json);
    expect(answer.json.error).toMatch(/too large/);
  });

  test('headers over 16 kB are the stubs’ 431 in JSON', async () => {
    const answer = await call('/seo/projects', { headers: { ...bearer('seo_test_key'), 'x-padding': 'a'.repeat(20_000) } }, seoStub.baseUrl);
    expect(answer.status).toBe(431);
    expect(answer.json).toEqual(answer.stub!.json);
    expect(answer.json.error).toMatch(/too large/);
  });
});

describe('event streams and browsers', () => {
  test('the crawl stream example arrives without sl-violations, every frame on the contract', async () => {
    const { status, response, text } = await call(`/seo/crawl/${projectId}/stream?projectId=${projectId}`, { headers: { ...bearer('seo_test_key'), accept: 'text/event-stream' } });
    expect(status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(parseEventStream(text).frames.length).toBeGreaterThan(0);
    expect(seo.streamErrors('/crawl/{jobId}/stream', 'get', text).errors).toEqual([]);
  });

  test('a preflight from another origin is answered before auth, as the stubs answer it', async () => {
    const page = 'http://localhost:4000';
    const { status, response } = await call('/seo/projects', {
      method: 'OPTIONS',
      headers: { origin: page, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(page);
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
    expect(response.headers.get('access-control-allow-methods')).toMatch(/POST/);
    expect(response.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
  });

  test('an answer to another origin lets the page read it, with the origin named (not *)', async () => {
    const page = 'http://localhost:4000';
    const { status, response } = await call('/mail/v1/contacts', { headers: { ...bearer('msk_test_max'), origin: page } });
    expect(status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(page);
    expect(response.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
  });
});

describe('npm run dev reloads a service', () => {
  test('a restarted service answers on the same port, checking credentials as before', async () => {
    const before = mock.services.find((s) => s.slug === 'seo')!;
    await mock.restart('seo');
    expect(mock.services.find((s) => s.slug === 'seo'), 'a new Prism serves the service').not.toBe(before);
    expect((await call('/seo/projects', { headers: bearer('seo_test_key') })).status).toBe(200);
    expect((await call('/seo/projects', { headers: bearer('not-a-seeded-key') })).status).toBe(401);
  });
});
