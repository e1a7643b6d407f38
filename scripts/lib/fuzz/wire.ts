/**
 * The fuzzer's view of HTTP: a request as plain data (so fast-check can generate, shrink and print
 * it), sent byte for byte with node:http, and the answer as it arrived.
 *
 * node:http rather than fetch: fetch normalises paths (`/a/../b`), refuses some methods and headers,
 * and always decodes bodies; a fuzzer needs to put exactly its bytes on the wire (`__proto__` keys,
 * invalid UTF-8, multi-MB bodies that are never materialised in the generated value).
 */
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';

/** A piece of a body: text, `times` copies of `repeat` (multi-MB bodies stay small in memory and in reports), or raw bytes. */
export type BodyPart = string | { repeat: string; times: number } | { bytes: number[] };

export interface FuzzRequest {
  /** what the case exercises: `valid`, `query: non-finite number`, `auth: wrong`, ... (the report groups by it) */
  case: string;
  method: string;
  /** path below the service's base path, percent-encoded exactly as sent */
  path: string;
  /** query pairs, percent-encoded on the wire by `percentEncode` */
  query: Array<[string, string]>;
  /** appended to the query string as is (malformed percent-encoding, `a[b]=1`, `&&&`) */
  rawQuery?: string | undefined;
  headers: Record<string, string>;
  body?: BodyPart[] | undefined;
  /**
   * What a correct server does with it: `accept` (a valid request with a valid credential),
   * `reject` (the contract makes it invalid: a 4xx is due), `any` (either may be right).
   */
  expect: 'accept' | 'reject' | 'any';
  /** query parameter names the operation does not declare: DECISIONS G-1 says they are ignored */
  unknownQuery?: string[] | undefined;
  /** the operation the generator aimed at, for reports (the oracle matches the path itself) */
  aim?: string | undefined;
}

export interface Observed {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** set when no answer arrived (connection reset, timeout) */
  error?: string;
  /** the body was longer than the sender keeps (8 MB) or was a stream cut short: not a whole document */
  truncated?: boolean;
  ms: number;
}

/** RFC 3986 percent-encoding of UTF-8 bytes; unlike encodeURIComponent it never throws (lone surrogates become U+FFFD). */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A repeated part is filled in place: a multi-MB body never becomes a string first. */
const repeatedBytes = (p: { repeat: string; times: number }) => Buffer.alloc(Buffer.byteLength(p.repeat) * p.times, p.repeat);

export function bodyBytes(parts: BodyPart[]): Buffer {
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : 'bytes' in p ? Buffer.from(p.bytes) : repeatedBytes(p))));
}

export function bodyLength(parts: BodyPart[] | undefined): number {
  return (parts ?? []).reduce(
    (n, p) => n + (typeof p === 'string' ? Buffer.byteLength(p) : 'bytes' in p ? p.bytes.length : Buffer.byteLength(p.repeat) * p.times),
    0,
  );
}

/** The body as text when it is small enough to parse again (the oracle and the validity checks use it). */
export function bodyText(parts: BodyPart[] | undefined, limit = 256 * 1024): string | undefined {
  if (!parts) return undefined;
  if (bodyLength(parts) > limit) return undefined;
  return bodyBytes(parts).toString('utf8');
}

export function requestTarget(basePath: string, request: Pick<FuzzRequest, 'path' | 'query' | 'rawQuery'>): string {
  const qs = [...request.query.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`), ...(request.rawQuery ? [request.rawQuery] : [])].join('&');
  return `${basePath}${request.path}${qs ? `?${qs}` : ''}`;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);

/** One line per request, short enough for a failure report: repeated parts are shown as `<"x" × 6000000>`. */
export function describeRequest(basePath: string, r: FuzzRequest): string {
  const target = clip(requestTarget(basePath, r), 220);
  const headers = Object.entries(r.headers)
    .map(([k, v]) => `${k}: ${clip(v, 80)}`)
    .join(' | ');
  let body = '';
  if (r.body) {
    const shown = r.body
      .map((p) => (typeof p === 'string' ? p : 'bytes' in p ? `<bytes ${p.bytes.map((b) => b.toString(16).padStart(2, '0')).join(' ')}>` : `<${JSON.stringify(p.repeat)} × ${p.times}>`))
      .join('');
    body = `\n        body (${bodyLength(r.body)} bytes): ${clip(JSON.stringify(shown), 300)}`;
  }
  return `${r.method} ${target}${headers ? `\n        ${headers}` : ''}${body}`;
}

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * The request as a `curl` line against `npm start` (port 4000), to replay by hand. A body with
 * repeated or raw-byte parts is rebuilt by a small `node -e` so the line stays short.
 */
export function curlLine(basePath: string, r: FuzzRequest, origin = 'http://localhost:4000'): string {
  const parts = [`curl -i -X ${r.method}`, shellQuote(`${origin}${requestTarget(basePath, r)}`)];
  for (const [name, value] of Object.entries(r.headers)) parts.push('-H', shellQuote(`${name}: ${value}`));
  if (r.body) {
    const plain = r.body.every((p) => typeof p === 'string') && bodyLength(r.body) <= 2048;
    if (plain) parts.push('--data-binary', shellQuote(r.body.join('')));
    else {
      const js = `process.stdout.write(Buffer.concat(${JSON.stringify(r.body)}.map(p=>typeof p==='string'?Buffer.from(p):'bytes' in p?Buffer.from(p.bytes):Buffer.from(p.repeat.repeat(p.times)))))`;
      parts.push('--data-binary', `@<(node -e ${shellQuote(js)})`);
    }
  }
  return parts.join(' ');
}

const parsedAnswers = new WeakMap<Observed, ParsedAnswer>();

export type ParsedAnswer = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * The answer's body parsed as JSON, once: the live ids, the cleanup and the oracle each read the
 * same answer, none of them changes what it reads.
 */
export function parsedAnswer(o: Observed): ParsedAnswer {
  let parsed = parsedAnswers.get(o);
  if (!parsed) {
    try {
      parsed = { ok: true, value: JSON.parse(o.body) };
    } catch (error) {
      parsed = { ok: false, error: (error as Error).message };
    }
    parsedAnswers.set(o, parsed);
  }
  return parsed;
}

export function describeObserved(o: Observed): string {
  if (o.error) return `no answer: ${o.error}`;
  const type = o.headers['content-type'] ?? '(no content-type)';
  return `${o.status} ${type} ${JSON.stringify(o.body.slice(0, 200))}${o.body.length > 200 ? '…' : ''}`;
}

/** How long a pooled connection may stay idle on this side: well inside the 5 s a Node server keeps one. */
const POOLED_IDLE_MS = 3_000;
/** An answer read this long after the server sent it leaves too little of the server's keep-alive for `POOLED_IDLE_MS`. */
const STALE_ANSWER_MS = 1_000;

/**
 * Keep-alive connections pooled only while the server still keeps them. The server's idle countdown
 * starts when it sends an answer, this side's when it reads it; a held event loop (a server in the
 * same process loading a tokenizer, a generator's synchronous seconds) can put seconds between the
 * two, and a connection pooled that late outlives the server's countdown: the server closes it as a
 * request is written onto it, and the request is reset. The answer's Date header (whole seconds)
 * says when it was sent: the connection of an answer read a second or more after it is not pooled.
 */
function freshConnectionPool(client: typeof http | typeof https, maxSockets: number) {
  const agent = new client.Agent({ keepAlive: true, maxSockets, timeout: POOLED_IDLE_MS });
  const sentAt = new WeakMap<object, number>();
  // Node destroys, instead of pooling, a socket this returns false for (the documented override;
  // @types/node declares it void).
  const pooling = agent as unknown as { keepSocketAlive(socket: Duplex): boolean };
  const pool = pooling.keepSocketAlive.bind(agent);
  pooling.keepSocketAlive = (socket) => {
    const sent = sentAt.get(socket);
    sentAt.delete(socket);
    if (sent !== undefined && Date.now() - sent >= STALE_ANSWER_MS) return false;
    return pool(socket);
  };
  const noteSent = (res: http.IncomingMessage) => {
    const sent = Date.parse(res.headers.date ?? '');
    if (!Number.isNaN(sent)) sentAt.set(res.socket, sent);
  };
  return { agent, noteSent };
}

/**
 * A bounded pool of keep-alive connections to one server. `target` is a loopback port (the tests:
 * `http://127.0.0.1:<port>`) or a base URL (`http://localhost:4000`, `https://api.example/seo`,
 * http or https, any host): its path, if any, is put before every request's path.
 */
export function createSender(target: number | string | URL, options: { concurrency: number; timeoutMs?: number; streamMs?: number }) {
  const base = typeof target === 'number' ? new URL(`http://127.0.0.1:${target}`) : new URL(String(target));
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error(`the sender speaks http and https, not ${base.protocol}`);
  const secure = base.protocol === 'https:';
  const client = secure ? https : http;
  const { agent, noteSent } = freshConnectionPool(client, options.concurrency);
  const timeoutMs = options.timeoutMs ?? 15_000;
  const streamMs = options.streamMs ?? 300;
  // `[::1]` in a URL, `::1` to node.
  const hostname = base.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = base.port ? Number(base.port) : secure ? 443 : 80;
  const prefix = base.pathname.replace(/\/+$/, '');
  /** the base URL without a trailing slash, for replay lines */
  const baseUrl = `${base.origin}${prefix}`;

  /**
   * One request, sent once: a reset is the server's answer. (The resets on reused sockets these runs
   * saw were a kept-alive connection closed by the server as a request was written onto it: the
   * stub servers read what has arrived before closing an idle connection, server-stubs/lib/http-server.ts,
   * and this pool drops a connection the server may already be closing, `freshConnectionPool`.)
   */
  async function send(basePath: string, r: FuzzRequest): Promise<Observed> {
    const started = Date.now();
    const payload = r.body ? bodyBytes(r.body) : undefined;
    const headers: Record<string, string | number> = { ...r.headers };
    if (payload) headers['content-length'] = payload.length;
    return new Promise<Observed>((resolve) => {
      let settled = false;
      const done = (o: Omit<Observed, 'ms'>) => {
        if (settled) return;
        settled = true;
        resolve({ ...o, ms: Date.now() - started });
      };
      let req: http.ClientRequest;
      try {
        req = client.request({ hostname, port, method: r.method, path: `${prefix}${requestTarget(basePath, r)}`, headers, agent, timeout: timeoutMs }, (res) => {
          noteSent(res);
          const chunks: Buffer[] = [];
          let size = 0;
          let truncated = false;
          const eventStream = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
          // An event stream stays open: read its first moments, then hang up.
          const cut = eventStream
            ? setTimeout(() => {
                truncated = true;
                res.destroy();
              }, streamMs)
            : undefined;
          const finish = () => {
            clearTimeout(cut);
            done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), truncated });
          };
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size <= 8 * 1024 * 1024) chunks.push(c);
            else truncated = true;
          });
          res.on('end', finish);
          res.on('close', finish);
          res.on('error', finish);
        });
      } catch (error) {
        // node refuses some requests before sending (an invalid header value): that is the generator's bug.
        done({ status: 0, headers: {}, body: '', error: `request not sendable: ${(error as Error).message}` });
        return;
      }
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', (error: NodeJS.ErrnoException) => done({ status: 0, headers: {}, body: '', error: error.code ?? error.message }));
      if (payload) req.end(payload);
      else req.end();
    });
  }

  return { send, baseUrl, close: () => agent.destroy() };
}

export type Sender = ReturnType<typeof createSender>;
