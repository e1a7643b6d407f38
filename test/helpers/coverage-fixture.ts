import { expect } from 'vitest';
import type { CoverageReport, ServiceCoverage } from '../../server-stubs/lib/coverage.js';
import { asDocument } from './fixture-document.js';

const problem = { description: 'A failure', content: { 'application/problem+json': { schema: { type: 'object', properties: { title: { type: 'string' } } } } } };
const items = { description: 'Items', content: { 'application/json': { schema: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: { type: 'string' } } } }, example: { items: ['a'] } } } };
const limit = { name: 'limit', in: 'query', required: true, schema: { type: 'integer', minimum: 1 } };

/**
 * A document whose statuses are declared as a range (`4XX`) and `default`, with an alias
 * (`x-alias-of`, as the path-aliases decorator writes mail's `/api/v1`): served from its contract
 * alone by the stubs, and by the mock.
 */
export const rangesDocument = asDocument({
  openapi: '3.1.0',
  info: { title: 'Ranges', version: '1.0.0' },
  paths: {
    '/items': { get: { operationId: 'listItems', parameters: [limit], responses: { '200': items, '4XX': problem, default: problem } } },
    '/v2/items': { get: { operationId: 'listItemsV2', 'x-alias-of': 'listItems', parameters: [limit], responses: { '200': items, '4XX': problem, default: problem } } },
  },
});

/** A request whose answer is read to the end, so it has closed on the server (and counted) before the next. */
export async function call(url: string, init: RequestInit = {}): Promise<number> {
  const response = await fetch(url, init);
  await response.arrayBuffer();
  return response.status;
}

/** `GET /_stub/coverage` on a server: always JSON, with its status and report (or error). */
export async function coverage(origin: string, query = ''): Promise<{ status: number; body: CoverageReport & { error?: string } }> {
  const response = await fetch(`${origin}/_stub/coverage${query}`);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: response.status, body: (await response.json()) as CoverageReport & { error?: string } };
}

/** One service's entry of a report, failing the test where it is missing. */
export function serviceOf(report: CoverageReport, slug: string): ServiceCoverage {
  const service = report.services.find((s) => s.service === slug);
  if (!service) throw new Error(`no ${slug} in the coverage report: ${report.services.map((s) => s.service).join(', ')}`);
  return service;
}

export const operationOf = (service: ServiceCoverage, operationId: string) => {
  const operation = service.operations.find((o) => o.operationId === operationId);
  if (!operation) throw new Error(`no ${operationId} in ${service.service}'s coverage`);
  return operation;
};

/** What the ranges service shows after one answered `limit=2`, one refused without `limit`, one through the alias. */
export const rangesExercised = {
  listItems: {
    operationId: 'listItems',
    method: 'GET',
    path: '/items',
    requests: 2,
    declared: [
      { status: '200', count: 1 },
      { status: '4XX', count: 1 },
      { status: 'default', count: 0 },
    ],
    answered: [
      { status: 200, count: 1, declared: '200' },
      { status: 400, count: 1, declared: '4XX' },
    ],
  },
  listItemsV2: {
    operationId: 'listItemsV2',
    method: 'GET',
    path: '/v2/items',
    aliasOf: 'listItems',
    requests: 1,
    declared: [
      { status: '200', count: 1 },
      { status: '4XX', count: 0 },
      { status: 'default', count: 0 },
    ],
    answered: [{ status: 200, count: 1, declared: '200' }],
  },
};
