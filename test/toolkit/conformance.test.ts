/**
 * Stubs and mocks conform: every operation of every service, called with the contract's own
 * examples on `npm start`'s server and on `npm run mock`'s front, answers a documented status with a
 * body valid against the contract (event streams frame by frame).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { listOperations } from '../../scripts/lib/operations.js';
import { defaultRoot, findApiServices } from '../../scripts/lib/project.js';
import { loadContract } from '../../server-stubs/lib/contract.js';
import { startPlatformServer, type PlatformServer } from '../../server-stubs/server.js';
import { startMockServer, type MockServer } from '../../mock/server.js';
import { contractChecker } from '../helpers/contract.js';
import { seededCredentials } from '../helpers/credentials.js';
import { documentedStatuses, exampleRequest } from '../helpers/example-request.js';

const slugs = findApiServices(defaultRoot).map((s) => s.slug);

let stubs: PlatformServer;
let mock: MockServer;

beforeAll(async () => {
  [stubs, mock] = await Promise.all([startPlatformServer(0, '127.0.0.1'), startMockServer(0, '127.0.0.1')]);
}, 120_000);

afterAll(async () => {
  await Promise.all([stubs?.close(), mock?.close()]);
});

function mockCredentials(scheme: Record<string, any>): Record<string, string> {
  if (scheme.type === 'http') return { authorization: 'Bearer mock-token' };
  if (scheme.type === 'apiKey' && scheme.in === 'header') return { [scheme.name]: 'mock-key' };
  if (scheme.type === 'apiKey' && scheme.in === 'cookie') return { cookie: `${scheme.name}=mock` };
  if (scheme.type === 'oauth2') return { authorization: 'Bearer mock-token' };
  return {};
}

describe.each(slugs)('%s', (slug) => {
  const { document, basePath } = loadContract(slug);
  const contract = contractChecker(slug);
  const operations = listOperations(document).map((o) => [o.label, o] as const);

  async function callAndCheck(origin: string, operation: (typeof operations)[number][1], credentials: Parameters<typeof exampleRequest>[2]) {
    const request = exampleRequest(document, operation, credentials);
    const response = await fetch(`${origin}${basePath}${request.url}`, { ...request.init, redirect: 'manual' });
    const status = String(response.status);
    if (status === '501') return { status: 501, body: await response.text() };
    const documented = documentedStatuses(operation);
    expect(documented.includes(status) || documented.includes('default'), `${status} is documented (${documented.join(', ')})`).toBe(true);
    const type = response.headers.get('content-type') ?? '';
    const text = await response.text();
    if (type.startsWith('text/event-stream')) {
      expect(contract.streamErrors(operation.path, operation.method, text, response.status).errors).toEqual([]);
    } else if (type.includes('json') && text) {
      expect(contract.responseErrors(operation.path, operation.method, status, JSON.parse(text))).toEqual([]);
    }
    return { status: response.status, body: text };
  }

  test.for(operations)('stub: %s conforms', async ([, operation], context) => {
    const service = stubs.services.find((s) => s.slug === slug);
    const { status, body } = await callAndCheck(`http://127.0.0.1:${stubs.port}`, operation, seededCredentials(service, document));
    if (status === 501) {
      // A contract operation whose reference behaviour has not landed: it must say so in one of
      // the error bodies the operation documents, and counts as skipped.
      const errorStatuses = documentedStatuses(operation).filter((s) => /^[45]/.test(s));
      const fits = errorStatuses.filter((s) => contract.responseErrors(operation.path, operation.method, s, JSON.parse(body)).length === 0);
      expect(fits, `the 501 body ${body} has the shape of a documented error`).not.toEqual([]);
      expect(body).toMatch(/not implemented/);
      context.skip(`${operation.label}: not implemented by the stub yet`);
    }
  });

  test.each(operations)('mock: %s answers its example', async (_label, operation) => {
    const { status } = await callAndCheck(`http://127.0.0.1:${mock.port}`, operation, mockCredentials);
    expect(status, 'the mock answers the success example of a valid request').toBeLessThan(400);
  });
});
