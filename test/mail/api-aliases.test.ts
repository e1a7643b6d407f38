/**
 * DECISIONS P-2: every `/v1/...` operation is also served, typed and documented as `/api/v1/...`
 * (document 000: "A listing of `/api/v1/...` paths names the same routes as `/v1/...`"). The
 * contract writes each alias from its twin (`x-path-aliases`, the `platform/path-aliases` bundle
 * decorator) and the stub serves it with the twin's handler; here the bundle is held to "the same
 * operation" and a sample of aliases answers exactly as its twin over HTTP, through the generated
 * client too.
 */
import { describe, expect, test } from 'vitest';
import type { operations } from '../../generated/mail/types.gen.js';
import { listOperations, operationAt, valueAt, type Operation } from '../../server-stubs/lib/openapi/document.js';
import { loadContract } from '../../server-stubs/lib/contract.js';
import { answered, mailForEachTest } from './identity-support.js';
import { isRateLimit } from '../../scripts/steps/docs/reader-marks.js';

const { document } = loadContract('mail');
const all = listOperations(document);
const v1 = all.filter((o) => o.path.startsWith('/v1/'));
const aliases = all.filter((o) => o.path.startsWith('/api/v1/'));
/** The one alias published under its own name before P-2: the document names `DELETE /api/v1/keys?id=<uuid>`. */
const publishedAliasIds: Record<string, string> = { revokeApiKey: 'revokeApiKeyFromDashboard' };
const twinOf = (alias: Operation) => v1.find((o) => o.method === alias.method && `/api${o.path}` === alias.path);

/** What makes two operations the same one for a caller: all but the name, the summary and the description. */
const behaviour = (o: Operation) => {
  const { operationId: _id, summary: _summary, description: _description, 'x-alias-of': _of, 'x-rate-limit': limit, ...rest } = o.op;
  return { ...rest, 'x-rate-limit': limit && { ...limit, bucket: limit.bucket ?? (o.op['x-alias-of'] ?? o.op.operationId) } };
};

describe('the bundle: every /v1/ operation has its /api/v1/ twin', () => {
  test('one alias per /v1/ operation, and no /api/v1/ operation without a /v1/ twin', () => {
    expect(v1.length).toBeGreaterThan(50);
    expect(v1.filter((o) => !aliases.some((a) => twinOf(a) === o)).map((o) => o.label)).toEqual([]);
    expect(aliases.filter((a) => !twinOf(a)).map((a) => a.label)).toEqual([]);
    expect(aliases.length).toBe(v1.length);
  });

  test('the path items are listed side by side, the alias right after its twin', () => {
    const paths = Object.keys(document.paths ?? {});
    for (const path of paths.filter((p) => p.startsWith('/v1/'))) expect(paths[paths.indexOf(path) + 1], path).toBe(`/api${path}`);
  });

  test.each(aliases.map((a) => [a.label, a] as const))('%s: the same method, parameters, body, security, responses and rate-limit window as its twin', (_label, alias) => {
    const twin = twinOf(alias)!;
    const twinId = twin.op.operationId as string;
    expect(alias.op['x-alias-of']).toBe(twinId);
    expect(alias.op.operationId).toBe(publishedAliasIds[twinId] ?? `${twinId}ViaApiAlias`);
    expect(behaviour(alias)).toEqual(behaviour(twin));
    // Spelled out, what the document's route tables give the pair: API-key routes (key management also the session cookie).
    expect(alias.op.security ?? document.security).toEqual(twin.op.security ?? document.security);
    expect(alias.op.parameters).toEqual(twin.op.parameters);
    expect(alias.op.responses).toEqual(twin.op.responses);
    expect(valueAt(document, ['paths', alias.path, 'parameters'])).toEqual(valueAt(document, ['paths', twin.path, 'parameters']));
    expect(alias.op.description).toContain(`\`${twin.method.toUpperCase()} ${twin.path}\``);
  });

  test('operationIds stay unique', () => {
    const ids = all.map((o) => o.op.operationId);
    expect(ids.length).toBe(new Set(ids).size);
  });
});

/** Compile time: every alias's generated operation type is its twin's, so the twin's handler, typed against the twin, is right for the alias. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type AliasIds = Extract<keyof operations, `${string}ViaApiAlias`>;
type TwinId<K> = K extends `${infer T}ViaApiAlias` ? Extract<T, keyof operations> : never;
type Mismatched = { [K in AliasIds]: Same<operations[K], operations[TwinId<K>]> extends true ? never : K }[AliasIds];
const everyAliasTypedAsItsTwin: [Mismatched] extends [never] ? true : Mismatched = true;
const publishedAliasTyped: Same<operations['revokeApiKeyFromDashboard'], operations['revokeApiKey']> = true;

describe('the stub: an alias answers as its twin', () => {
  const mail = mailForEachTest();
  test('the types say so (checked by tsc)', () => {
    expect([everyAliasTypedAsItsTwin, publishedAliasTyped]).toEqual([true, true]);
  });

  /** Sends one request to the `/v1/` path, then the same to its `/api/v1/` alias; answers both. */
  async function both(path: string, init: RequestInit = {}) {
    const answer = async (at: string) => {
      const response = await fetch(`${mail.baseUrl}${at}`, { redirect: 'manual', ...init });
      const text = await response.text();
      const headers = Object.fromEntries(['content-type', 'retry-after', 'allow'].map((h) => [h, response.headers.get(h)]));
      return { status: response.status, headers, body: text ? (JSON.parse(text) as unknown) : undefined };
    };
    const twin = await answer(path);
    const alias = await answer(`/api${path}`);
    return { twin, alias };
  }

  const max = { authorization: 'Bearer msk_test_max' };
  const json = { ...max, 'content-type': 'application/json' };
  const sendBody = JSON.stringify({ from: { email: 'max@example.com', name: 'Max' }, to: [{ email: 'ada@example.com' }], subject: 'Hello', text: 'Hi' });

  test('POST /api/v1/send through the generated client: accepted as on /v1/send, the same body shape', async () => {
    const body = { from: { email: 'max@example.com', name: 'Max' }, to: [{ email: 'ada@example.com' }], subject: 'Hello', text: 'Hi' };
    const viaAlias = answered(await mail.key('msk_test_max').POST('/api/v1/send', { body }), 200, '/api/v1/send', 'post');
    const viaTwin = answered(await mail.key('msk_test_max').POST('/v1/send', { body }), 200, '/v1/send', 'post');
    const shape = (value: unknown): unknown =>
      Array.isArray(value) ? value.map(shape) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)])) : typeof value;
    expect(shape(viaAlias)).toEqual(shape(viaTwin));
    expect({ ...viaAlias.data, id: undefined, created_at: undefined }).toEqual({ ...viaTwin.data, id: undefined, created_at: undefined });
    // One outbox behind both paths.
    expect(mail.app.outbox.sentThisMonth('usr_max')).toBeGreaterThanOrEqual(2);
  });

  test('POST /api/v1/send: the same refusals (no key, a session cookie, a revoked key, an invalid body, an out-of-scope token)', async () => {
    const cases: Array<[string, RequestInit, number]> = [
      ['no credentials', { method: 'POST', headers: { 'content-type': 'application/json' }, body: sendBody }, 401],
      ['a dashboard session: /api/v1/ is the API-key family, not a session route', { method: 'POST', headers: { cookie: 'session=sess_test_max', 'content-type': 'application/json' }, body: sendBody }, 401],
      ['a revoked key', { method: 'POST', headers: { authorization: 'Bearer msk_test_revoked', 'content-type': 'application/json' }, body: sendBody }, 401],
      ['no recipient', { method: 'POST', headers: json, body: JSON.stringify({ from: { email: 'max@example.com' }, to: [], subject: 'x', text: 'x' }) }, 400],
      ['not JSON', { method: 'POST', headers: json, body: '{"truncated":' }, 400],
      ['a text body', { method: 'POST', headers: { ...max, 'content-type': 'text/plain' }, body: 'hello' }, 415],
    ];
    for (const [why, init, status] of cases) {
      const { twin, alias } = await both('/v1/send', init);
      expect(twin.status, why).toBe(status);
      expect(alias, why).toEqual(twin);
    }
  });

  test('GET /api/v1/contacts: the same page of the same contacts', async () => {
    const { twin, alias } = await both('/v1/contacts?limit=5', { headers: max });
    expect(twin.status).toBe(200);
    expect(alias).toEqual(twin);
    const viaClient = answered(await mail.key('msk_test_max').GET('/api/v1/contacts', { params: { query: { limit: 5 } } }), 200, '/api/v1/contacts', 'get');
    expect(viaClient).toEqual(twin.body);
  });

  test('a path with a parameter, PATCH /api/v1/contacts/{id}: the same update, the same 404 and 400', async () => {
    const first = answered(await mail.key('msk_test_max').GET('/api/v1/contacts', { params: { query: { limit: 1 } } }), 200, '/api/v1/contacts', 'get').data[0];
    const init = { method: 'PATCH', headers: json, body: JSON.stringify({ first_name: 'Renamed' }) };
    const updated = await both(`/v1/contacts/${first.id}`, init);
    expect(updated.twin.status).toBe(200);
    // The same update again: the stub clock has not moved, so the answer is the same to the byte.
    expect(updated.alias).toEqual(updated.twin);
    const viaClient = answered(await mail.key('msk_test_max').PATCH('/api/v1/contacts/{id}', { params: { path: { id: first.id } }, body: { first_name: 'Again' } }), 200, '/api/v1/contacts/{id}', 'patch');
    expect(viaClient.data).toMatchObject({ id: first.id, first_name: 'Again' });
    const unknown = await both('/v1/contacts/00000000-0000-4000-8000-00000000dead', init);
    expect(unknown.twin.status).toBe(404);
    expect(unknown.alias).toEqual(unknown.twin);
    const malformed = await both('/v1/contacts/not-a-uuid', init);
    expect(malformed.twin.status).toBe(400);
    expect(malformed.alias).toEqual(malformed.twin);
  });

  test('DELETE /api/v1/keys?id=: revokes with an API key or a session, as DELETE /v1/keys; an OAuth token is refused alike', async () => {
    for (const client of [mail.key('msk_test_max'), mail.session('sess_test_max')]) {
      const created = answered(await mail.key('msk_test_max').POST('/v1/keys', { body: { name: 'Revoked through the alias' } }), 201, '/v1/keys', 'post');
      answered(await client.DELETE('/api/v1/keys', { params: { query: { id: created.data.id } } }), 200, '/api/v1/keys', 'delete');
      answered(await mail.key(created.data.key).GET('/api/v1/plan-limits'), 401, '/api/v1/plan-limits', 'get');
    }
    const unknown = await both('/v1/keys?id=00000000-0000-4000-8000-00000000dead', { method: 'DELETE', headers: max });
    expect(unknown.twin.status).toBe(404);
    expect(unknown.alias).toEqual(unknown.twin);
    const oauth = await both('/v1/keys?id=00000000-0000-4000-8000-00000000dead', { method: 'DELETE', headers: { authorization: 'Bearer msk_test_oauth_send' } });
    expect(oauth.twin.status).toBe(403);
    expect(oauth.alias).toEqual(oauth.twin);
  });

  test('the other key-management aliases: GET and POST /api/v1/keys answer as on /v1/keys', async () => {
    const { twin, alias } = await both('/v1/keys', { headers: max });
    expect(twin.status).toBe(200);
    expect(alias).toEqual(twin);
    answered(await mail.session('sess_test_pro').POST('/api/v1/keys', { body: { name: 'Made on the alias' } }), 201, '/api/v1/keys', 'post');
  });

  test('one rate-limit window behind both paths, with the same 429 and Retry-After', async () => {
    mail.app.reset();
    const rule: unknown = operationAt(document, '/v1/plan-limits', 'get')?.['x-rate-limit'];
    if (!isRateLimit(rule)) throw new Error('GET /v1/plan-limits declares no x-rate-limit');
    for (let i = 0; i < rule.requests; i++) {
      const response = await fetch(`${mail.baseUrl}${i % 2 ? '/api' : ''}/v1/plan-limits`, { headers: max });
      await response.body?.cancel();
      expect(response.status).toBe(200);
    }
    const limited = await Promise.all(['/v1/plan-limits', '/api/v1/plan-limits'].map((at) => fetch(`${mail.baseUrl}${at}`, { headers: max })));
    const [twin, alias] = await Promise.all(limited.map(async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.json() })));
    expect(twin!.status).toBe(429);
    expect(twin!.retryAfter).toMatch(/^[1-9][0-9]*$/);
    expect(alias).toEqual(twin);
    mail.clock.advance(rule.windowSeconds * 1000);
    answered(await mail.key('msk_test_max').GET('/api/v1/plan-limits'), 200, '/api/v1/plan-limits', 'get');
  });

  test('a known alias path with an unknown method: the same 405 and Allow', async () => {
    const { twin, alias } = await both('/v1/send', { method: 'PUT', headers: max });
    expect(twin.status).toBe(405);
    expect(alias.status).toBe(405);
    expect(alias.headers.allow).toBe(twin.headers.allow);
  });

  test('every alias is served (none answers 501), by its twin\'s handler', () => {
    expect(mail.app.unimplemented).toEqual([]);
  });
});
