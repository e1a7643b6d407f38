/**
 * The keep-alive race behind the fuzzer's ECONNRESETs (server-stubs/lib/http-server.ts). Node closes
 * a kept-alive connection from a timer once it has been idle for the keep-alive timeout. When the
 * event loop is held past that instant (a synchronous load of seconds, the fuzz's server sharing
 * the test's loop), a client that reuses the connection before the loop's timers phase writes a
 * request the server has not read yet, then the timer closes the socket over the unread request
 * and the kernel answers it with a reset.
 *
 * Reproduced exactly, with no race left to chance: a raw socket reads its first answer, the loop is
 * held until the server's idle timer is past due, the second request is written in the same
 * callback, so it is on the server's socket before that timer runs.
 */
import express from 'express';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSender, type FuzzRequest } from '../../scripts/lib/fuzz/wire.js';
import { createExpressServer } from '../../server-stubs/lib/http-server.js';

const request = (n: number) => `GET /n/${n} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

/** Holds the event loop as a synchronous load does: no timer, no I/O runs meanwhile. */
const holdLoop = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** What came back on one connection: the bodies of whole answers, and how it ended. */
interface Outcome {
  answers: string[];
  error?: string;
}

describe('a kept-alive connection the server is about to close', () => {
  const app = express();
  app.get('/n/:n', (req, res) => void res.type('text/plain').send(`answer ${req.params.n}`));
  // The shortest keep-alive Node allows (its own timer adds a margin on top): held past, not waited on.
  const server = createExpressServer(app, { keepAliveTimeout: 1 });
  const serverSockets: net.Socket[] = [];
  server.on('connection', (socket: net.Socket) => serverSockets.push(socket));
  let port = 0;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /**
   * Sends the first request; when its answer is whole, `afterFirst(socket)` runs in that same
   * callback. Resolves when the connection ends, with every whole answer read from it.
   */
  function converse(afterFirst: (client: net.Socket) => void): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      const client = net.connect(port, '127.0.0.1');
      const outcome: Outcome = { answers: [] };
      let buffered = '';
      client.setEncoding('latin1');
      client.on('data', (chunk: string) => {
        buffered += chunk;
        for (let m = /^HTTP\/1\.1 \d{3}[^]*?\r\nContent-Length: (\d+)\r\n[^]*?\r\n\r\n/i.exec(buffered); m; m = /^HTTP\/1\.1 \d{3}[^]*?\r\nContent-Length: (\d+)\r\n[^]*?\r\n\r\n/i.exec(buffered)) {
          const end = m[0].length + Number(m[1]);
          if (buffered.length < end) break;
          outcome.answers.push(buffered.slice(m[0].length, end));
          buffered = buffered.slice(end);
          if (outcome.answers.length === 1) afterFirst(client);
          else client.end();
        }
      });
      client.on('error', (error: NodeJS.ErrnoException) => {
        outcome.error = error.code ?? error.message;
      });
      client.on('close', () => resolve(outcome));
      client.write(request(1));
    });
  }

  test('a request written onto it while the loop was held past its idle timeout is answered, not reset', async () => {
    const outcome = await converse((client) => {
      const idleTimer = serverSockets.at(-1)!.timeout ?? 0;
      expect(idleTimer).toBeGreaterThan(0); // the answer is sent: the server's idle timer is armed
      holdLoop(idleTimer + 50);
      client.write(request(2));
    });
    expect(outcome).toEqual({ answers: ['answer 1', 'answer 2'] });
  });

  test('a connection left idle is still closed by the server after its keep-alive timeout', async () => {
    const outcome = await converse(() => undefined);
    expect(outcome).toEqual({ answers: ['answer 1'] });
    expect(serverSockets.at(-1)!.destroyed).toBe(true);
  });
});

/**
 * The other side of the same race: the server's idle countdown starts when it sends an answer, the
 * client's when it reads it. An answer read long after it was sent (the loop held meanwhile) leaves
 * the connection less of the server's keep-alive than the client would keep it idle, so the fuzz
 * sender does not pool it. Told by the answer's Date header, so a server here sets it at will.
 */
describe('the fuzz sender pools a connection only while the server still keeps it', () => {
  let server: net.Server;
  let port = 0;
  /** `Date` header of the answers: none, or this time */
  let dated: Date | undefined;
  const connections: net.Socket[] = [];

  beforeAll(async () => {
    server = net.createServer((socket) => {
      connections.push(socket);
      let buffered = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        buffered += chunk;
        for (let end = buffered.indexOf('\r\n\r\n'); end >= 0; end = buffered.indexOf('\r\n\r\n')) {
          buffered = buffered.slice(end + 4);
          const date = dated ? `Date: ${dated.toUTCString()}\r\n` : '';
          socket.write(`HTTP/1.1 200 OK\r\n${date}Content-Type: text/plain\r\nContent-Length: 2\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\nok`);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const socket of connections) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const get: FuzzRequest = { case: 'valid', method: 'GET', path: '/x', query: [], headers: {}, expect: 'any' };

  /** Two requests one after the other: how many connections they took. */
  async function connectionsFor(date: Date | undefined): Promise<number> {
    dated = date;
    const before = connections.length;
    const sender = createSender(port, { concurrency: 1 });
    try {
      for (let i = 0; i < 2; i++) expect(await sender.send('', get)).toMatchObject({ status: 200, body: 'ok' });
    } finally {
      sender.close();
    }
    return connections.length - before;
  }

  test('an answer without a date, or dated ahead: the connection is kept for the next request', async () => {
    expect(await connectionsFor(undefined)).toBe(1);
    expect(await connectionsFor(new Date(Date.now() + 60_000))).toBe(1);
  });

  test('an answer read seconds after the server sent it: the next request goes on a new connection', async () => {
    expect(await connectionsFor(new Date(Date.now() - 10_000))).toBe(2);
  });
});
