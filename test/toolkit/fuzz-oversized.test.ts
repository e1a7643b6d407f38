/**
 * An oversized value a server accepted and stored is served back once, then removed
 * (scripts/lib/fuzz/oversized-stored.ts): the answer that carries it back is judged like any other,
 * the resource is deleted right after it, and later answers no longer carry it. A small create
 * stays, and a target without the option deletes nothing during the run. The server is a planted
 * seo-like store (its `/projects`), reached over HTTP through the fuzzer's own sender and target.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createLiveIds } from '../../scripts/lib/fuzz/live-ids.js';
import { httpServiceTarget } from '../../scripts/lib/fuzz/http-target.js';
import { OVERSIZED_BODY_BYTES } from '../../scripts/lib/fuzz/oversized-stored.js';
import { createSender, type BodyPart, type FuzzRequest, type Sender } from '../../scripts/lib/fuzz/wire.js';

const KEY = 'seo_test_key';
const services = [{ slug: 'seo', credentials: [{ label: 'API key', scheme: 'bearerAuth', value: KEY }] }];

interface Project {
  id: string;
  name: string;
  domain: string | null;
}

const projects = new Map<string, Project>();
/** `METHOD path` of every request the server received, in order */
const received: string[] = [];
/** Lists that carry an oversized name get a property the contract does not allow: a fault in the read-back answer. */
let faultyOversizedLists = false;

let server: http.Server;
let sender: Sender;

function answer(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      received.push(`${req.method} ${path}`);
      if (req.headers.authorization !== `Bearer ${KEY}`) return answer(res, 401, { error: 'Unauthorized', code: 'UNAUTHORIZED' });
      const member = /^\/seo\/projects\/([^/]+)$/.exec(path)?.[1];
      if (req.method === 'POST' && path === '/seo/projects') {
        const { name } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { name: string };
        const project = { id: randomUUID(), name, domain: null };
        projects.set(project.id, project);
        return answer(res, 201, { project });
      }
      if (req.method === 'GET' && path === '/seo/projects') {
        const list = [...projects.values()];
        const oversized = list.some((p) => p.name.length > OVERSIZED_BODY_BYTES);
        return answer(res, 200, faultyOversizedLists && oversized ? { projects: list, debug: 'kept in memory' } : { projects: list });
      }
      if (req.method === 'DELETE' && member) {
        if (!projects.delete(decodeURIComponent(member))) return answer(res, 404, { error: 'Project not found', code: 'NOT_FOUND' });
        return answer(res, 200, { success: true });
      }
      answer(res, 404, { error: 'Not found', code: 'NOT_FOUND' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sender = createSender((server.address() as AddressInfo).port, { concurrency: 1 });
});

afterEach(() => {
  projects.clear();
  received.length = 0;
  faultyOversizedLists = false;
});

afterAll(async () => {
  sender?.close();
  await new Promise((resolve) => server?.close(resolve));
});

const auth = { authorization: `Bearer ${KEY}` };
const create = (body: BodyPart[]): FuzzRequest => ({
  case: 'body: oversized',
  method: 'POST',
  path: '/projects',
  query: [],
  headers: { ...auth, 'content-type': 'application/json' },
  body,
  expect: 'any',
  aim: 'POST /projects',
});
const bigName = (times: number): BodyPart[] => ['{"name":"', { repeat: 'x', times }, '"}'];
const list: FuzzRequest = { case: 'valid', method: 'GET', path: '/projects', query: [], headers: auth, expect: 'accept', aim: 'GET /projects' };

describe('an oversized value the server stored', () => {
  test('is served back once, then deleted: later answers no longer carry it', async () => {
    const target = httpServiceTarget('seo', services, sender, { removeOversized: true });
    expect((await target.execute(create(bigName(200_000)))).violations).toEqual([]);
    const [id] = projects.keys();
    expect(received).toEqual(['POST /seo/projects']);

    expect((await target.execute(list)).violations).toEqual([]);
    expect(received).toEqual(['POST /seo/projects', 'GET /seo/projects', `DELETE /seo/projects/${id}`]);
    expect(projects.has(id!)).toBe(false);

    await target.execute(list);
    expect(received.slice(3)).toEqual(['GET /seo/projects']);
  });

  test('the answer that serves it back is judged like any other', async () => {
    faultyOversizedLists = true;
    const target = httpServiceTarget('seo', services, sender, { removeOversized: true });
    await target.execute(create(bigName(200_000)));
    const judged = await target.execute(list);
    expect(judged.violations.map((v) => v.kind)).toContain('response body does not match the contract');
    expect(received.at(-1)).toMatch(/^DELETE \/seo\/projects\//);
  });

  test('a create of ordinary size stays', async () => {
    const target = httpServiceTarget('seo', services, sender, { removeOversized: true });
    await target.execute(create(['{"name":"Storefront"}']));
    await target.execute(list);
    expect(received).toEqual(['POST /seo/projects', 'GET /seo/projects']);
    expect(projects.size).toBe(1);
  });

  test('without the option nothing is deleted during the run, and every list carries it', async () => {
    const target = httpServiceTarget('seo', services, sender);
    await target.execute(create(bigName(200_000)));
    await target.execute(list);
    await target.execute(list);
    expect(received).toEqual(['POST /seo/projects', 'GET /seo/projects', 'GET /seo/projects']);
    expect(projects.size).toBe(1);
  });
});

test('a removed resource\'s id is offered to later requests no more: the one before it is', () => {
  const liveIds = createLiveIds();
  const [placeholder] = fc.sample(liveIds.arbitraryFor('projectId', { type: 'string' })!, 1);
  const created = (id: string) => ({ status: 201, headers: {}, body: JSON.stringify({ project: { id } }), ms: 1 });
  liveIds.harvest('/projects', created('kept'), true);
  liveIds.harvest('/projects', created('removed'), true);
  const read: FuzzRequest = { ...list, path: `/projects/${placeholder}` };
  expect(liveIds.substitute(read).request.path).toBe('/projects/removed');
  liveIds.forget('removed');
  expect(liveIds.substitute(read).request).toMatchObject({ path: '/projects/kept' });
});
