/**
 * The server the stubs run on (server-stubs/lib/http-server.ts): requests and responses are born with
 * the Express app's prototypes, so Express's per-request `Object.setPrototypeOf` changes nothing, and
 * everything an Express app does still works over HTTP (routing, parameters, queries, bodies, errors, upgrades).
 */
import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createExpressServer } from '../../server-stubs/lib/http-server.js';

describe('createExpressServer', () => {
  const app = express();
  app.use(express.json());
  app.get('/items/:id', (req, res) => void res.json({ id: req.params.id, sort: req.query.sort ?? null, path: req.path }));
  app.post('/items', (req, res) => void res.status(201).json({ received: req.body as unknown }));
  app.get('/fail', () => {
    throw Object.assign(new Error('refused'), { status: 409 });
  });
  app.use((error: { status?: number }, _req: express.Request, res: express.Response, _next: express.NextFunction) => void res.status(error.status ?? 500).json({ error: 'failed' }));

  const server = createExpressServer(app);
  /** What each request and response was made as, before Express saw it. */
  const born: Array<{ request: boolean; response: boolean }> = [];
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    born.push({ request: Object.getPrototypeOf(req) === app.request, response: Object.getPrototypeOf(res) === app.response });
  });
  server.on('upgrade', (req: http.IncomingMessage, socket) => {
    socket.end(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\nX-App-Request: ${Object.getPrototypeOf(req) === app.request}\r\n\r\n`);
  });
  let origin = '';

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('requests and responses reach the app with its prototypes already set', async () => {
    born.length = 0;
    const res = await fetch(`${origin}/items/a1?sort=name`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 'a1', sort: 'name', path: '/items/a1' });
    expect(born).toEqual([{ request: true, response: true }]);
  });

  test('bodies, statuses and the error handler work as on http.createServer(app)', async () => {
    const created = await fetch(`${origin}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'x' }) });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ received: { name: 'x' } });
    const failed = await fetch(`${origin}/fail`);
    expect(failed.status).toBe(409);
    expect(await failed.json()).toEqual({ error: 'failed' });
    const malformed = await fetch(`${origin}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":' });
    expect(malformed.status).toBe(400);
  });

  test('an upgrade request is made with the app prototype too', async () => {
    const headers = await new Promise<http.IncomingHttpHeaders>((resolve, reject) => {
      const req = http.request(`${origin}/socket`, { headers: { connection: 'Upgrade', upgrade: 'test' } });
      req.on('upgrade', (res, socket) => {
        socket.destroy();
        resolve(res.headers);
      });
      req.on('error', reject);
      req.end();
    });
    expect(headers['x-app-request']).toBe('true');
  });
});
