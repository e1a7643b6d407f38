/**
 * The mail contract against document 000: every named route is there with its security, its
 * published error statuses and its error body; the events and the scopes are the published ones.
 * (Summaries, examples and their validity are checked for every service by test/toolkit.)
 */
import type { ValidateFunction } from 'ajv';
import { describe, expect, test } from 'vitest';
import { createAjv } from '../../server-stubs/lib/openapi/ajv.js';
import { collectProvisional } from '../../scripts/lib/provisional.js';
import { deref, listOperations, listWebhooks, requestBodyOf, responsesOf, valueAt, type Operation } from '../../server-stubs/lib/openapi/document.js';
import { schemaAt, isJsonObject, type SchemaNode } from '../../server-stubs/lib/openapi/json-schema.js';
import { loadContract } from '../../server-stubs/lib/contract.js';
import {
  designedRoutes,
  formAEvents,
  formBEvents,
  inboundFields,
  mailServerBKinds,
  metadataScopes,
  publishedErrorStatuses,
  publishedEventData,
  publishedRoutes,
  publishedScopes,
} from './published.js';

const { document } = loadContract('mail');
/** The names of the object at a pointer of the bundle. */
const keysAt = (...tokens: string[]) => {
  const node = valueAt(document, tokens);
  return isJsonObject(node) ? Object.keys(node) : [];
};
const OAUTH_SCOPES = ['components', 'securitySchemes', 'oauth2', 'flows', 'authorizationCode', 'scopes'];
const operations = listOperations(document);
const webhooks = listWebhooks(document);
const byId = new Map(operations.map((o) => [o.op.operationId as string, o]));
const ajv = createAjv({ strict: false });
const bundleId = 'https://contracts.platform.example/bundle/mail-contract-test.json';
ajv.addSchema(document, bundleId);
const compiledInBundle = new Map<string, ValidateFunction>();
/**
 * A validator for a schema found inside the bundle, its local `$ref`s resolved against the bundle;
 * compiled once per schema, which most operations share (the service's error bodies).
 */
const compileInBundle = (schema: unknown) => {
  const text = JSON.stringify(schema).replaceAll('"$ref":"#/', `"$ref":"${bundleId}#/`);
  let validate = compiledInBundle.get(text);
  if (!validate) compiledInBundle.set(text, (validate = ajv.compile(JSON.parse(text))));
  return validate;
};

type Requirement = Record<string, string[]>;
const securityOf = (o: Operation): Requirement[] => o.op.security ?? document.security ?? [];
const schemes = (o: Operation) => securityOf(o).map((r) => Object.keys(r).join('+') || 'none');
const isOAuthRoute = (o: Operation) => o.op.tags?.includes('OAuth');
/** `/v1/...` (listed also as `/api/v1/...`, DECISIONS P-2), and the billing routes the document lists among the API-key endpoints. */
const isApiKeyRoute = (o: Operation) => o.path.startsWith('/v1/') || o.path.startsWith('/api/v1/') || o.path.startsWith('/billing/');
/** The `/api/v1/` aliases the contract writes from their `/v1/` twins (test/mail/api-aliases.test.ts holds them to their twins). */
const writtenAliases = operations.filter((o) => typeof o.op['x-alias-of'] === 'string' && !publishedRoutes.some(([, , id]) => id === o.op.operationId));
const isSessionOnly = (o: Operation) => schemes(o).every((s) => s === 'sessionCookie');

describe('mail routes', () => {
  test('every route the document names is in the contract under its operationId', () => {
    const missing = publishedRoutes.filter(([method, path, id]) => byId.get(id)?.method !== method || byId.get(id)?.path !== path);
    expect(missing).toEqual([]);
  });

  test('every other operation is designed and marked provisional', () => {
    const known = new Set([...publishedRoutes, ...designedRoutes].map(([, , id]) => id).concat(writtenAliases.map((o) => o.id)));
    expect(operations.filter((o) => !known.has(o.op.operationId ?? '')).map((o) => o.label)).toEqual([]);
    for (const [, , id] of designedRoutes) expect(byId.get(id)?.op['x-provisional'], id).toBeTruthy();
  });

  test('a published operation carries no mark as a whole: its designed parts do (DECISIONS P-1)', () => {
    expect(publishedRoutes.filter(([, , id]) => byId.get(id)?.op['x-provisional']).map(([method, path]) => `${method} ${path}`)).toEqual([]);
  });

  test('counts: 92 published and 15 designed operations, and the /api/v1/ aliases of the /v1/ ones', () => {
    expect(publishedRoutes.length).toBe(92);
    // 59 `/v1/` operations, one of whose aliases (DELETE /api/v1/keys) the document names itself.
    expect(writtenAliases.length).toBe(58);
    expect(operations.length).toBe(publishedRoutes.length + designedRoutes.length + writtenAliases.length);
  });
});

describe.each(operations.map((o) => [o.label, o] as const))('%s', (_label, operation) => {
  const responses = responsesOf(document, operation);
  const statuses = Object.keys(responses);
  // An alias is its twin's operation: what the document publishes for the twin holds for it.
  const id = (operation.op['x-alias-of'] ?? operation.op.operationId) as string;

  test('names the schemes of its route family', () => {
    const found = schemes(operation);
    const { path, method } = operation;
    if (path === '/v1/keys' || path === '/api/v1/keys') {
      expect(found).toEqual(expect.arrayContaining(['apiKey', 'sessionCookie']));
    } else if (isApiKeyRoute(operation)) {
      expect(found).toContain('apiKey');
      expect(found.every((s) => s === 'apiKey' || s === 'oauth2'), found.join(', ')).toBe(true);
    } else if (id === 'authorizeOAuthClient') {
      expect(found.sort()).toEqual(['none', 'sessionCookie']);
    } else if (id === 'decideOAuthConsent') {
      expect(found).toEqual(['sessionCookie']);
    } else if (id === 'showLoginPage' || id === 'logInAsUser' || id === 'exchangeSsoToken') {
      // Signing in is for callers without a session.
      expect(found).toEqual(['none']);
    } else if (isOAuthRoute(operation) || path.startsWith('/t/')) {
      // The OAuth server's public routes, and the tracking a recipient's mail client and browser reach.
      expect(found).toEqual([]);
    } else if (path === '/webhooks/fbl') {
      expect(found.sort()).toEqual(method === 'get' ? [] : ['fblBearer', 'fblSecretHeader']);
    } else if (path.startsWith('/webhooks/')) {
      const expected = { '/webhooks/mailserver-a': 'inboundSecret', '/webhooks/mailserver-b': 'postalSignature', '/webhooks/auto-translate': 'internalSecret' }[path];
      expect(found).toEqual([expected]);
    } else {
      // /api/... dashboard routes, /referrals, /accounts: the session cookie only.
      expect(found).toEqual(['sessionCookie']);
    }
  });

  test('OAuth alternatives name defined scopes, exactly the published ones where the document names them', () => {
    const defined = keysAt(...OAUTH_SCOPES);
    const scopes = securityOf(operation).flatMap((r) => r.oauth2 ?? []);
    for (const scope of scopes) expect(defined).toContain(scope);
    if (publishedScopes[id]) expect(scopes.sort()).toEqual([...publishedScopes[id]!].sort());
    if (isApiKeyRoute(operation) && !operation.path.endsWith('/keys')) expect(scopes.length, 'an OAuth token can call it').toBeGreaterThan(0);
  });

  test('documents the error statuses the document publishes for it', () => {
    const expected = [...(publishedErrorStatuses[id] ?? [])];
    if (schemes(operation).some((s) => s !== 'none')) expected.push('401');
    if (isApiKeyRoute(operation)) expected.push('403', '429');
    const body = requestBodyOf(document, operation);
    if (isApiKeyRoute(operation) && body?.content?.['application/json']) expected.push('415');
    expect(statuses).toEqual(expect.arrayContaining(expected));
    if (statuses.includes('429')) expect(responses['429']?.headers?.['Retry-After'], '429 carries Retry-After').toBeTruthy();
  });

  test('answers errors in its published body, with examples', () => {
    const serviceBody = { success: false, error: 'Something failed' };
    const oauthBody = { error: 'invalid_request', error_description: 'Something failed' };
    for (const [status, response] of Object.entries(responses)) {
      if (!/^[45]/.test(status)) continue;
      for (const [mediaType, media] of Object.entries(response.content ?? {})) {
        const where = `${status} ${mediaType}`;
        const validate = compileInBundle(media.schema);
        const [yes, no] = isOAuthRoute(operation) ? [oauthBody, serviceBody] : [serviceBody, oauthBody];
        // A schema that pins `error` to one message or adds required extras rejects the generic
        // body; the examples below show its real shape, so only the foreign shape must be refused.
        if (!validate(yes) && !Object.keys(media.examples ?? {}).length) throw new Error(`${where}: rejects the service's error body and has no example`);
        expect(validate(no), `${where} refuses the other family's error body`).toBe(false);
        expect(Object.keys(media.examples ?? {}).length + (media.example ? 1 : 0), `${where} has an example`).toBeGreaterThan(0);
      }
    }
  });
});

describe('OAuth', () => {
  test('the oauth2 scheme keeps the metadata scopes and the two endpoint-named ones', () => {
    const scopes = keysAt(...OAUTH_SCOPES);
    expect(scopes).toEqual([...metadataScopes, 'validate', 'segments']);
  });

  test('the metadata example lists the six published scopes', () => {
    const metadata = deref(document, byId.get('getOAuthServerMetadata')!.op.responses?.['200'])?.content?.['application/json'];
    const example: unknown = deref(document, Object.values(metadata?.examples ?? {})[0])?.value;
    expect(valueAt(example, ['scopes_supported'])).toEqual(metadataScopes);
    expect(valueAt(example, ['code_challenge_methods_supported'])).toEqual(['S256']);
    expect(valueAt(example, ['token_endpoint_auth_methods_supported'])).toEqual(['none']);
  });

  test('the token endpoint takes form fields and JSON, and answers an msk_ bearer for 7776000 s', () => {
    const token = byId.get('exchangeOAuthToken')!;
    expect(Object.keys(requestBodyOf(document, token)!.content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    const schema = deref(document, deref(document, token.op.responses?.['200'])?.content?.['application/json']?.schema);
    const ok = compileInBundle(schema);
    expect(ok({ access_token: 'msk_abc', token_type: 'bearer', expires_in: 7776000, scope: 'read' })).toBe(true);
    expect(ok({ access_token: 'msk_abc', token_type: 'bearer', expires_in: 3600, scope: 'read' })).toBe(false);
    expect(ok({ access_token: 'abc', token_type: 'bearer', expires_in: 7776000, scope: 'read' })).toBe(false);
  });

  test('authorize answers the consent page as HTML, and the consent decision redirects with Location', () => {
    const authorize = responsesOf(document, byId.get('authorizeOAuthClient')!);
    expect(Object.keys(authorize['200']?.content ?? {})).toEqual(['text/html']);
    const decide = responsesOf(document, byId.get('decideOAuthConsent')!);
    expect(decide['302']?.headers?.Location).toBeTruthy();
  });
});

describe('events', () => {
  const names = webhooks.map((w) => w.path);
  const payload = (name: string): SchemaNode => {
    const hook = webhooks.find((w) => w.path === name)!;
    const schema = schemaAt(document, deref(document, requestBodyOf(document, hook)?.content['application/json'])?.schema);
    if (!schema) throw new Error(`${name} has no JSON payload schema`);
    return schema;
  };
  const properties = (schema: unknown) => Object.keys(schemaAt(document, schema)?.properties ?? {});

  test('every event of both forms and the inbound event is under webhooks', () => {
    expect(names.sort()).toEqual([...formAEvents.map((e) => `formA:${e}`), ...formBEvents.map((e) => `formB:${e}`), 'inbound:email.received'].sort());
  });

  test.each(formAEvents)('form A %s: envelope {event, timestamp, data}, signature only with a long secret', (event) => {
    const schema = payload(`formA:${event}`);
    expect(schema.required).toEqual(expect.arrayContaining(['event', 'timestamp', 'data']));
    expect(schemaAt(document, schema.properties?.event)?.const).toBe(event);
    const hook = webhooks.find((w) => w.path === `formA:${event}`)!;
    const header = (name: string) => hook.op.parameters.find((p) => p.in === 'header' && p.name.toLowerCase() === name.toLowerCase());
    expect(header('X-Service-Event')?.required).toBe(true);
    expect(header('X-Service-Timestamp')?.required).toBe(true);
    expect(header('X-Service-Signature')?.required ?? false).toBe(false);
    expect(header('User-Agent')).toBeTruthy();
  });

  test.each(formBEvents)('form B %s: envelope {id, type, createdAt, data}, always signed', (event) => {
    const schema = payload(`formB:${event}`);
    expect(schema.required).toEqual(expect.arrayContaining(['id', 'type', 'createdAt', 'data']));
    expect(schemaAt(document, schema.properties?.type)?.const).toBe(event);
    const hook = webhooks.find((w) => w.path === `formB:${event}`)!;
    expect(hook.op.parameters.find((p) => p.name.toLowerCase() === 'x-service-signature')?.required).toBe(true);
  });

  test.each(Object.entries(publishedEventData))('%s carries its published data fields', (name, fields) => {
    expect(properties(payload(name).properties?.data)).toEqual(expect.arrayContaining([...fields]));
  });

  test('the inbound email event is flat and always signed', () => {
    const schema = payload('inbound:email.received');
    expect(properties(schema)).toEqual(expect.arrayContaining(inboundFields));
    expect(properties(schema)).not.toContain('data');
    expect(schema.required ?? []).not.toContain('cc');
    const hook = webhooks.find((w) => w.path === 'inbound:email.received')!;
    expect(hook.op.parameters.find((p) => p.name.toLowerCase() === 'x-service-signature')?.required).toBe(true);
  });

  test('the mail-server-B webhook names the eight event kinds', () => {
    const body = schemaAt(document, deref(document, requestBodyOf(document, byId.get('receiveMailServerBEvent')!)?.content['application/json'])?.schema);
    expect(schemaAt(document, body?.properties?.event)?.enum).toEqual(mailServerBKinds);
  });

  test('the signature scheme is declared for the generated verifier', () => {
    expect(document['x-webhook-signature']).toEqual({ header: 'X-Service-Signature', algorithm: 'hmac-sha256', encoding: 'hex', prefix: 'sha256=' });
  });
});

test('designed parts are marked: the contract has provisional items to review', () => {
  expect(collectProvisional(document).length).toBeGreaterThan(0);
});
