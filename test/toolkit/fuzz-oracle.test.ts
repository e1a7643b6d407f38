/**
 * The fuzz oracle (scripts/lib/fuzz/oracle.ts) catches what it exists to catch. A server planted with
 * one fault at a time answers a request the fuzzer would send, over HTTP through the fuzzer's own
 * sender, and the oracle must name that fault; the same answer without the fault must pass, so the
 * oracle is not simply finding fault with everything.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildServiceModel } from '../../scripts/lib/fuzz/contract-model.js';
import { createCleanup } from '../../scripts/lib/fuzz/cleanup.js';
import { createLiveIds } from '../../scripts/lib/fuzz/live-ids.js';
import { createHttpOracle } from '../../scripts/lib/fuzz/oracle.js';
import { createSender, type FuzzRequest, type Observed, type Sender } from '../../scripts/lib/fuzz/wire.js';

interface Planted {
  status: number;
  type: string;
  body: string;
}

const json = (status: number, body: unknown): Planted => ({ status, type: 'application/json; charset=utf-8', body: JSON.stringify(body) });
const notFound = { error: 'Project not found', code: 'NOT_FOUND' };

/** seo's `GET /projects/{projectId}` declares 200, 400, 401, 404 and 500, each 4xx/5xx with its `Error` body. */
const answers: Record<string, Planted> = {
  fine: json(404, notFound),
  'stack trace': json(404, { error: 'TypeError: project is undefined\n    at getProject (/srv/app/dist/projects.js:41:7)', code: 'NOT_FOUND' }),
  'undeclared status': json(409, notFound),
  'body off the contract': json(404, { message: 'Project not found' }),
  HTML: { status: 404, type: 'text/html; charset=utf-8', body: '<!DOCTYPE html><html><body><pre>Cannot GET /seo/projects/p1</pre></body></html>' },
  crash: json(500, { error: 'Internal error', code: 'INTERNAL_ERROR' }),
  'cut-off JSON': { status: 200, type: 'application/json; charset=utf-8', body: '{"id":"p1","name":' },
  'success off the contract': json(200, { id: 'p1', name: 42 }),
};

let server: http.Server;
let sender: Sender;
const model = buildServiceModel('seo', []);
const oracle = createHttpOracle(model);

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const planted = answers[String(req.headers['x-plant'])] ?? answers.fine!;
    req.resume();
    req.on('end', () => {
      res.writeHead(planted.status, { 'content-type': planted.type });
      res.end(planted.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sender = createSender((server.address() as AddressInfo).port, { concurrency: 1 });
});

afterAll(async () => {
  sender?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** The kinds of violation (each once) the oracle finds in the planted server's answer to a fuzz request. */
async function kindsFor(plant: keyof typeof answers, readFirst?: (observed: Observed) => void): Promise<string[]> {
  const request: FuzzRequest = { case: 'valid', method: 'GET', path: '/projects/p1', query: [], headers: { 'x-plant': plant }, expect: 'any', aim: 'GET /projects/{projectId}' };
  const observed = await sender.send('/seo', request);
  expect(observed.error).toBeUndefined();
  readFirst?.(observed);
  return [...new Set(oracle(request, observed).map((v) => v.kind))];
}

describe('the fuzz oracle, against a server with a planted fault', () => {
  test('an answer the contract allows passes', async () => {
    expect(await kindsFor('fine')).toEqual([]);
  });

  test('a stack trace in the body is reported', async () => {
    expect(await kindsFor('stack trace')).toEqual(['stack trace or file path in body']);
  });

  test('a status the operation does not declare is reported', async () => {
    expect(await kindsFor('undeclared status')).toEqual(['status not declared for the operation']);
  });

  test('a body off the contract is reported', async () => {
    expect(await kindsFor('body off the contract')).toEqual(['response body does not match the contract']);
  });

  test('an HTML answer is reported', async () => {
    expect(await kindsFor('HTML')).toEqual(expect.arrayContaining(['HTML body', 'error answer is not JSON']));
  });

  test('a crash (500) is reported', async () => {
    expect(await kindsFor('crash')).toEqual(['server error (5xx)']);
  });

  test('a success whose JSON is cut off is reported', async () => {
    expect(await kindsFor('cut-off JSON')).toEqual(['response body does not match the contract']);
  });

  // The live ids and the cleanup read an answer before the oracle does, and the three share one parse of it.
  test('a success off the contract is reported after the live ids and the cleanup have read it', async () => {
    const liveIds = createLiveIds();
    const cleanup = createCleanup(model);
    const kinds = await kindsFor('success off the contract', (observed) => {
      liveIds.harvest('/projects/{projectId}', observed);
      cleanup.record('/projects', 'POST', { ...observed, status: 201 });
    });
    expect(kinds).toEqual(['response body does not match the contract']);
  });
});
