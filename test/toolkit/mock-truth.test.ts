/**
 * The mock tells the truth (issue 16): it refuses the credentials the stubs refuse, in the same error
 * body; `Prefer` gets the example asked for; an invalid request is answered in the service's error
 * body naming what is wrong; no `sl-violations` reach the client; browsers on another origin may call
 * it. Everything through HTTP, against `npm run mock`'s server; the seo and mail stubs answer the same
 * requests beside it, as the reference for "the same body".
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startMockServer, type MockServer } from '../../mock/server.js';
import { deref } from '../../scripts/lib/operations.js';
import { contractChecker } from '../../scripts/lib/contract-checker.js';
import { loadContract } from '../../server-stubs/lib/contract.js';
import { createMailApp } from '../../server-stubs/mail/app.js';
import { createSeoApp } from '../../server-stubs/seo/app.js';
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
  [mock, seoStub, mailStub] = await Promise.all([startMockServer(0, '127.0.0.1'), serveStub(seoApp, seoApp.basePath), serveStub(mailApp, mailApp.basePath)]);
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

/** The value of a named example of an operation's response, from the published contract. */
function exampleOf(slug: string, path: string, method: string, status: string, name: string): unknown {
  const { document } = loadContract(slug);
  const response = deref(document, document.paths[path][method].responses[status]);
  return deref(document, response.content['application/json'].examples[name]).value;
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
    const before = mock.services.find((s) => s.slug === 'seo')!.process!;
    await mock.restart('seo');
    expect(mock.services.find((s) => s.slug === 'seo')!.process).not.toBe(before);
    expect(before.exitCode !== null || before.signalCode !== null, 'the old Prism is gone').toBe(true);
    expect((await call('/seo/projects', { headers: bearer('seo_test_key') })).status).toBe(200);
    expect((await call('/seo/projects', { headers: bearer('not-a-seeded-key') })).status).toBe(401);
  });
});
