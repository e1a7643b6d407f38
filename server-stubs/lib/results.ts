import { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import type { ServerResponse } from 'node:http';
import type { Contract, OperationInfo } from './contract.js';
import type { ErrorResponse } from './errors.js';
import { eventStreamHeaders, openEventStream, type EventStream, type SseFrame } from './sse.js';

/** A handler's answer as the router sees it at run time (`HandlerResult` is its typed face). */
export interface RuntimeResult {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** a text or binary body of the declared media type */
  text?: string | Uint8Array;
  contentType?: string;
  stream?: (events: EventStream<SseFrame>) => void | Promise<void>;
  passthrough?: globalThis.Response;
}

/** Headers that describe one hop (or a body `fetch` has already decoded, or the other end's host): never forwarded. */
export const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authenticate', 'proxy-authorization', 'content-encoding', 'content-length', 'host']);

/**
 * Writes a handler's answer: JSON or text (through the response validator), an event stream (each
 * frame validated), or an upstream's answer. A JSON or text answer is written at once (a failed
 * response check throws); a stream or an upstream's answer returns the promise of its end.
 */
export function sendResult(
  res: Response,
  result: RuntimeResult,
  at: { contract: Contract; operation: OperationInfo; validateFrames: boolean; checkBody?: ((req: Request, res: Response, body: unknown) => void) | undefined },
): Promise<void> | undefined {
  const { contract, operation } = at;
  if (result.passthrough) return pipeUpstream(res, result.passthrough);
  const status = result.status ?? 200;
  if (result.stream) {
    const schema = ['paths', operation.path, operation.method, 'responses', String(status), 'content', 'text/event-stream', 'schema'];
    const events = openEventStream(res, {
      status,
      headers: { ...eventStreamHeaders, ...(result.headers ?? {}) },
      validate: at.validateFrames ? contract.validator(schema) : undefined,
      label: `${contract.slug} ${operation.id}`,
    });
    return Promise.resolve(result.stream(events));
  }
  res.status(status);
  if (result.headers) res.set(result.headers);
  if (result.text !== undefined) writeBody(res.type(result.contentType ?? 'text/plain'), result.text);
  else if (result.body !== undefined) sendJson(res, result.body, at.checkBody);
  else res.end();
  return undefined;
}

/** As express-openapi-validator's response hook: 5xx answers pass unchecked; a checked null body is a 204. */
function sendJson(res: Response, body: unknown, check: ((req: Request, res: Response, body: unknown) => void) | undefined) {
  const checked = check !== undefined && res.statusCode < 500;
  if (checked) check(res.req, res, body);
  if (checked && body === null) res.status(204).end();
  else writeBody(res, JSON.stringify(body), res.hasHeader('content-type') ? undefined : jsonType);
}

export const jsonType = 'application/json; charset=utf-8';

/**
 * A whole answer written straight to Node's response (with `contentType`, or the type already set),
 * as `res.send` would write it less what the stubs do not want: no ETag (the contracts declare none,
 * and a conditional request must not become an undeclared 304) and no parsing of a type set here.
 * Node itself leaves out the body of an answer to HEAD.
 */
export function writeBody(res: ServerResponse, body: string | Uint8Array, contentType?: string): void {
  if (contentType !== undefined) res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  res.end(body);
}

/**
 * A mapped error as written on the wire, by every writer of one (the service router, the validating
 * proxy, the mock's front and gateway): text in its media type, JSON in its own (`problem+json`,
 * say) or else `jsonType`, and nothing at all for an error declared without a body.
 */
export function writeError(res: ServerResponse, mapped: ErrorResponse): void {
  if (mapped.text !== undefined) return writeBody(res, mapped.text, mapped.contentType ?? 'text/plain; charset=utf-8');
  if (mapped.body === undefined) {
    res.removeHeader('content-type');
    return void res.end();
  }
  writeBody(res, JSON.stringify(mapped.body), mapped.contentType ? withCharset(mapped.contentType) : jsonType);
}

/** A JSON media type as written on an answer: with its charset, as `jsonType`. */
function withCharset(type: string): string {
  return /;\s*charset=/i.test(type) ? type : `${type}; charset=utf-8`;
}

async function pipeUpstream(res: Response, upstream: globalThis.Response): Promise<void> {
  res.status(upstream.status);
  upstream.headers.forEach((value, name) => {
    if (!hopByHop.has(name.toLowerCase())) res.setHeader(name, value);
  });
  if (!upstream.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const body = Readable.fromWeb(upstream.body as import('node:stream/web').ReadableStream);
  res.on('close', () => body.destroy());
  for await (const chunk of body) res.write(chunk);
  res.end();
}
