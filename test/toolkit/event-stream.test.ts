/**
 * The event-stream runtime of the generated readers (clients/event-stream/), against a tiny local
 * HTTP server whose answers each test scripts: the parser's edge cases as they arrive in pieces,
 * frames off the contract, error answers, abort, and resuming with Last-Event-ID.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  createEventStreamParser,
  readStream,
  StreamConnectionError,
  StreamFrameError,
  StreamHttpError,
  type FrameValidator,
  type ReadStreamOptions,
} from '../../clients/event-stream/index.js';
import { createFrameReader, parseEventStream, type ReadFrame } from '../../server-stubs/lib/sse.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A server whose routes the tests set; every request is recorded with its headers. */
let server: http.Server;
let origin: string;
const routes = new Map<string, Handler>();
const seen: Array<{ path: string; headers: http.IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ path: req.url!, headers: req.headers, body });
      const route = routes.get(new URL(req.url!, 'http://x').pathname);
      if (route) return route(req, res);
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"no route","code":"NOT_FOUND"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const streamHead = { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' };

/** Writes the pieces as separate chunks, each after the previous one was flushed, then ends. */
function serve(path: string, pieces: Array<string | Uint8Array>, end = true): void {
  routes.set(path, (_req, res) => {
    res.writeHead(200, streamHead);
    const next = (i: number) => {
      if (i === pieces.length) return end ? res.end() : undefined;
      res.write(pieces[i], () => next(i + 1));
    };
    next(0);
  });
}

/** Accepts `{event?, id?, data}` where data is an object with a numeric `n`. */
const numbered: FrameValidator = (frame) => {
  const f = frame as Record<string, unknown>;
  const issues: string[] = [];
  for (const key of Object.keys(f)) if (!['event', 'id', 'data'].includes(key)) issues.push(`(frame) must NOT have additional properties: ${key}`);
  const data = f.data as Record<string, unknown> | undefined;
  if (!data || typeof data !== 'object' || typeof data.n !== 'number') issues.push('/data/n must be number');
  return issues;
};
const anything: FrameValidator = () => [];

function options(path: string, extra: Partial<ReadStreamOptions> = {}): ReadStreamOptions {
  return { operation: 'testStream', url: `${origin}${path}`, data: 'json', validate: numbered, ...extra };
}

async function collect<F>(iterable: AsyncIterable<F>): Promise<F[]> {
  const out: F[] = [];
  for await (const frame of iterable) out.push(frame);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('parser (WHATWG event-stream interpretation)', () => {
  /** Feeds the text cut at every position, so no split point is special. */
  function everySplit(text: string) {
    const results = [];
    for (let cut = 0; cut <= text.length; cut++) {
      const parser = createEventStreamParser();
      results.push([...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))]);
    }
    return results;
  }

  test('CR, LF and CRLF end lines, wherever the chunks split them; data lines join with \\n', () => {
    const text = 'data: a\r\ndata: b\r\rdata:c\n\nevent: x\rdata: d\r\n\r\n';
    for (const events of everySplit(text)) {
      expect(events).toEqual([{ data: 'a\nb' }, { data: 'c' }, { event: 'x', data: 'd' }]);
    }
  });

  test('a leading BOM is dropped, once (later it is part of a field name); comments, unknown fields and an event without data dispatch nothing', () => {
    const parser = createEventStreamParser();
    expect(parser.push('\uFEFF: hello\nfoo: bar\nevent: lonely\n\ndata\ndata:  two spaces\n\n\uFEFFdata: x\n\n')).toEqual([
      { data: '\n two spaces' },
    ]);
  });

  test('id persists as the last event id; an id with NULL is ignored; retry takes digits only', () => {
    const parser = createEventStreamParser();
    expect(parser.push('id: 7\nretry: 250\ndata: a\n\ndata: b\n\nid: bad\0id\nretry: 1s\ndata: c\n\n')).toEqual([
      { id: '7', data: 'a' },
      { data: 'b' },
      { data: 'c' },
    ]);
    expect(parser.lastEventId).toBe('7');
    expect(parser.retry).toBe(250);
  });

  test('an event not ended by a blank line is not dispatched', () => {
    const parser = createEventStreamParser();
    expect(parser.push('data: complete\n\ndata: partial\n')).toEqual([{ data: 'complete' }]);
  });
});

describe("the stubs' and the mock's reader (server-stubs/lib/sse.ts, eventsource-parser)", () => {
  /** The frames read from the text fed in two pieces, cut at `cut`. */
  function readCut(text: string, cut: number): ReadFrame[] {
    const frames: ReadFrame[] = [];
    const reader = createFrameReader({ frame: (frame) => frames.push(frame) });
    reader.push(text.slice(0, cut));
    reader.push(text.slice(cut));
    return frames;
  }

  test('bare CR line endings end lines and frames, wherever the chunks split them; a CRLF split across chunks is one line end', () => {
    const text = 'data: a\rdata: b\r\rid: 1\revent: x\rdata: {"n":1}\r\r: note\rdata: c\r\n\r\n';
    for (let cut = 0; cut <= text.length; cut++) {
      expect(readCut(text, cut)).toEqual([{ data: 'a\nb' }, { event: 'x', id: '1', data: { n: 1 } }, { data: 'c' }]);
    }
  });

  test('a frame whose blank line is the bare CR the stream ends on is read, at once; an unfinished last frame is not', () => {
    expect(parseEventStream('data: {"n":1}\r\r').frames).toEqual([{ data: { n: 1 } }]);
    expect(parseEventStream('data: {"n":1}\n\r').frames).toEqual([{ data: { n: 1 } }]);
    expect(parseEventStream('data: a\r\rdata: partial\r').frames).toEqual([{ data: 'a' }]);
    // Dispatched when the CR arrives, not when a later chunk shows no LF follows it.
    const frames: ReadFrame[] = [];
    const reader = createFrameReader({ frame: (frame) => frames.push(frame) });
    reader.push('data: a\r');
    expect(frames).toEqual([]);
    reader.push('\r');
    expect(frames).toEqual([{ data: 'a' }]);
    reader.push('\ndata: b\r\r');
    expect(frames).toEqual([{ data: 'a' }, { data: 'b' }]);
  });

  test('over HTTP: a stream whose lines end with bare CRs, its last frame ended by the last byte, gives every frame', async () => {
    serve('/bare-cr', ['data: {"n":1}\r', '\rdata: {"n":2}\r', '\r']);
    const response = await fetch(`${origin}/bare-cr`);
    const frames: ReadFrame[] = [];
    const reader = createFrameReader({ frame: (frame) => frames.push(frame) });
    const decoder = new TextDecoder();
    const body = response.body!.getReader();
    for (let read = await body.read(); !read.done; read = await body.read()) reader.push(decoder.decode(read.value, { stream: true }));
    expect(frames).toEqual([{ data: { n: 1 } }, { data: { n: 2 } }]);
  });
});

describe('readStream over HTTP', () => {
  test('frames arrive decoded and checked, split across chunks, multi-byte characters included', async () => {
    const bytes = new TextEncoder().encode('data: {"n":2,"s":"é€"}\n\n');
    serve('/ok', ['\uFEFFevent: tick\nid: 1\nda', 'ta: {"n":1}\n', '\n: ping\n\n', bytes.slice(0, 18), bytes.slice(18)]);
    const frames = await collect(readStream(options('/ok')));
    expect(frames).toEqual([
      { event: 'tick', id: '1', data: { n: 1 } },
      { data: { n: 2, s: 'é€' } },
    ]);
    expect(seen.at(-1)!.headers.accept).toBe('text/event-stream');
  });

  test('json-or-text keeps data that is not JSON as text; text never parses', async () => {
    serve('/mixed', ['data: {"n":1}\n\n', 'data: [DONE]\n\n']);
    expect(await collect(readStream(options('/mixed', { data: 'json-or-text', validate: anything })))).toEqual([{ data: { n: 1 } }, { data: '[DONE]' }]);
    expect(await collect(readStream(options('/mixed', { data: 'text', validate: anything })))).toEqual([{ data: '{"n":1}' }, { data: '[DONE]' }]);
  });

  test('a frame off the contract raises StreamFrameError naming it, after the valid frames before it', async () => {
    serve('/off', ['data: {"n":1}\n\n', 'event: tick\ndata: {"n":"two"}\n\n', 'data: {"n":3}\n\n']);
    const got: unknown[] = [];
    const error = await failure(
      (async () => {
        for await (const frame of readStream(options('/off'))) got.push(frame);
      })(),
    );
    expect(got).toEqual([{ data: { n: 1 } }]);
    expect(error).toBeInstanceOf(StreamFrameError);
    const e = error as StreamFrameError;
    expect({ problem: e.problem, index: e.index, frame: e.frame, issues: e.issues }).toEqual({
      problem: 'off-contract',
      index: 1,
      frame: { event: 'tick', data: '{"n":"two"}' },
      issues: ['/data/n must be number'],
    });
    expect(e.message).toBe('testStream: frame 1 (event "tick") is off the contract: /data/n must be number');
  });

  test('data that must be JSON and is not raises StreamFrameError invalid-json', async () => {
    serve('/notjson', ['data: {"n":\n\n']);
    const error = (await failure(collect(readStream(options('/notjson'))))) as StreamFrameError;
    expect(error).toBeInstanceOf(StreamFrameError);
    expect(error.problem).toBe('invalid-json');
    expect(error.frame).toEqual({ data: '{"n":' });
  });

  test('a field the frame schema does not allow (an id) is off the contract', async () => {
    serve('/with-id', ['id: 5\ndata: {"n":1}\n\n']);
    const strict: FrameValidator = (frame) => ('id' in (frame as object) ? ['(frame) must NOT have additional properties: id'] : []);
    const error = (await failure(collect(readStream(options('/with-id', { validate: strict }))))) as StreamFrameError;
    expect(error.issues).toEqual(['(frame) must NOT have additional properties: id']);
  });

  test('a non-2xx answer raises StreamHttpError with the status and the parsed JSON body', async () => {
    routes.set('/limited', (_req, res) => {
      res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '12' }).end('{"error":"Too many streams","code":"RATE_LIMITED"}');
    });
    const error = (await failure(collect(readStream(options('/limited'))))) as StreamHttpError;
    expect(error).toBeInstanceOf(StreamHttpError);
    expect({ status: error.status, body: error.body, retryAfter: error.headers.get('retry-after') }).toEqual({
      status: 429,
      body: { error: 'Too many streams', code: 'RATE_LIMITED' },
      retryAfter: '12',
    });
    expect(error.message).toBe('testStream: answered 429: Too many streams');
  });

  test('a 200 that is not an event stream raises StreamHttpError, not a parse of JSON as frames', async () => {
    routes.set('/json', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"n":1}');
    });
    const error = (await failure(collect(readStream(options('/json'))))) as StreamHttpError;
    expect(error).toBeInstanceOf(StreamHttpError);
    expect(error.status).toBe(200);
    expect(error.body).toEqual({ n: 1 });
    expect(error.message).toMatch(/not text\/event-stream/);
  });

  test('abort mid-stream rejects the iteration with the signal reason and closes the connection', async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    routes.set('/endless', (req, res) => {
      res.writeHead(200, streamHead);
      res.write('data: {"n":1}\n\n');
      res.on('close', () => closed());
    });
    const controller = new AbortController();
    const got: unknown[] = [];
    const error = await failure(
      (async () => {
        for await (const frame of readStream(options('/endless', { signal: controller.signal }))) {
          got.push(frame);
          controller.abort(new Error('user left the page'));
        }
      })(),
    );
    expect(got).toEqual([{ data: { n: 1 } }]);
    expect((error as Error).message).toBe('user left the page');
    await serverSawClose;
  });

  test('breaking out of the loop closes the connection', async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    routes.set('/endless2', (_req, res) => {
      res.writeHead(200, streamHead);
      res.write('data: {"n":1}\n\ndata: {"n":2}\n\n');
      res.on('close', () => closed());
    });
    for await (const frame of readStream(options('/endless2'))) {
      expect(frame).toEqual({ data: { n: 1 } });
      break;
    }
    await serverSawClose;
  });
});

describe('reconnection', () => {
  /** Cuts the connection without ending the chunked body: a lost connection, not the end of the stream. */
  function dropAfter(res: http.ServerResponse, text: string) {
    res.writeHead(200, streamHead);
    res.write(text, () => res.socket?.destroy());
  }

  test('a resumable stream reconnects after a lost connection with Last-Event-ID, after the retry the stream set', async () => {
    let calls = 0;
    routes.set('/resume', (req, res) => {
      calls += 1;
      if (calls === 1) return dropAfter(res, 'retry: 5\nid: 1\ndata: {"n":1}\n\nid: 2\ndata: {"n":2}\n\ndata: {"n":99'); // cut mid-event
      if (calls === 2) return void req.socket.destroy(); // the reconnection itself fails once
      res.writeHead(200, streamHead);
      res.end(`id: 3\ndata: {"n":3}\n\n`);
    });
    const start = seen.length;
    const frames = await collect(readStream(options('/resume', { resumable: true, reconnect: { maxAttempts: 3, delayMs: 60_000 } })));
    expect(frames).toEqual([
      { id: '1', data: { n: 1 } },
      { id: '2', data: { n: 2 } },
      { id: '3', data: { n: 3 } },
    ]);
    const lastIds = seen.slice(start).map((r) => r.headers['last-event-id']);
    expect(lastIds).toEqual([undefined, '2', '2']);
  });

  test('a caller-given lastEventId is sent on the first request', async () => {
    serve('/from', ['id: 9\ndata: {"n":9}\n\n']);
    const start = seen.length;
    await collect(readStream(options('/from', { resumable: true, lastEventId: '8' })));
    expect(seen[start]!.headers['last-event-id']).toBe('8');
  });

  test('a stream the contract does not make resumable fails with StreamConnectionError on a lost connection', async () => {
    let calls = 0;
    routes.set('/fragile', (_req, res) => {
      calls += 1;
      dropAfter(res, 'retry: 5\nid: 1\ndata: {"n":1}\n\n');
    });
    const got: unknown[] = [];
    const error = await failure(
      (async () => {
        for await (const frame of readStream(options('/fragile', { lastEventId: 'ignored' }))) got.push(frame);
      })(),
    );
    expect(got).toEqual([{ id: '1', data: { n: 1 } }]);
    expect(error).toBeInstanceOf(StreamConnectionError);
    expect(calls).toBe(1);
    expect(seen.at(-1)!.headers['last-event-id']).toBeUndefined();
  });

  test('reconnecting gives up after maxAttempts consecutive failures; a 204 ends a resumed stream quietly', async () => {
    let tries = 0;
    routes.set('/refused', (req, res) => {
      tries += 1;
      if (tries === 1) return dropAfter(res, 'retry: 1\nid: 1\ndata: {"n":1}\n\n');
      req.socket.destroy();
    });
    const refused = (await failure(collect(readStream(options('/refused', { resumable: true, reconnect: { maxAttempts: 2 } }))))) as StreamConnectionError;
    expect(refused).toBeInstanceOf(StreamConnectionError);
    expect(refused.attempts).toBe(3);
    expect(tries).toBe(3);

    let turns = 0;
    routes.set('/done', (_req, res) => {
      turns += 1;
      if (turns === 1) return dropAfter(res, 'retry: 1\nid: 1\ndata: {"n":1}\n\n');
      res.writeHead(204).end();
    });
    expect(await collect(readStream(options('/done', { resumable: true })))).toEqual([{ id: '1', data: { n: 1 } }]);
    expect(turns).toBe(2);
  });
});
