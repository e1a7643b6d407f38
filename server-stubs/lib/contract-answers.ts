/**
 * Answers from the contract alone (DECISIONS I-2): for each operation, its success response (or the
 * one `Prefer: code=` / `example=` asks for), with the declared example, else a sample of the
 * schema, in the media type the client accepts.
 */
import type { Request, Response } from 'express';
import type { MediaTypeObject, OpenAPI3, ResponseObject, SchemaObject } from 'openapi-typescript';
import type { Principal } from './auth.js';
import { responseKeyFor, type OperationInfo } from './contract.js';
import { ApiError } from './errors.js';
import type { HandlerMap } from './handlers.js';
import { chooseMediaType, essence, isJsonType, isTextType, isXmlType } from './media-types.js';
import { preferredAnswer } from './prefer.js';
import type { RuntimeResult } from './results.js';
import { formatFrame, type SseFrame } from './sse.js';
import { declaredExamples, sampleOf } from './schema-sample.js';
import { deref, listOperations } from './openapi/document.js';

/** What a contract answer needs of the request (a handler's context has more). */
interface AnswerContext {
  req: Request;
  res: Response;
}

/**
 * A handler per operation of the document, answering from the contract: the map of a contract-only
 * stub, and the base a hand-written app spreads its own handlers over
 * (`handlers: { ...contractAnswers(document), ...mine }`).
 */
export function contractAnswers<Ops = Record<string, unknown>, P extends Principal = Principal>(document: OpenAPI3): Partial<HandlerMap<Ops, P>> {
  const handlers: Record<string, (ctx: AnswerContext) => RuntimeResult> = {};
  // The operation the request matched, not the one the handler was made for: vendors' documents
  // repeat operationIds, and one handler then serves several operations.
  for (const operation of listOperations(document)) handlers[operation.id] = (ctx) => contractAnswer(document, ctx.req.matched?.operation ?? operation, ctx.req, ctx.res);
  // The map is built from the document at run time: which operations it has is not known to tsc.
  return handlers as unknown as Partial<HandlerMap<Ops, P>>;
}

/**
 * The response key an operation answers with unless asked otherwise: its lowest 2xx, else `2XX`,
 * else `default`, else its lowest status below 400, else the lowest it declares at all. An operation
 * that documents only failures (`GET /status/404`, or a `PUT` whose success the document left out)
 * answers one of them: a status it does not declare would be off the contract.
 */
export function successKey(operation: OperationInfo): string | undefined {
  const keys = Object.keys(operation.op.responses ?? {});
  // A 1xx is never a final answer: HTTP has no way to send one as the response.
  const numeric = keys.filter((k) => /^\d{3}$/.test(k) && Number(k) >= 200).sort();
  return (
    numeric.find((k) => k.startsWith('2')) ??
    keys.find((k) => k.toUpperCase() === '2XX') ??
    keys.find((k) => k === 'default') ??
    numeric.find((k) => Number(k) < 400) ??
    numeric[0] ??
    keys.filter((k) => /^[45]XX$/i.test(k)).sort()[0]
  );
}

/** The status a response key is answered with (`2XX` and `default` as 200). */
const statusOfKey = (key: string) => (/^\d{3}$/.test(key) ? Number(key) : /^[1-5]XX$/i.test(key) ? Number(key[0]) * 100 : 200);

/** Per document, the operations whose examples and samples all fail their own schema: warned about once. */
const warned = new WeakMap<OpenAPI3, Set<string>>();

export function contractAnswer(document: OpenAPI3, operation: OperationInfo, req: Request, res: Response): RuntimeResult {
  const preference = preferredAnswer(document, operation, req.headers.prefer, req.headers.accept);
  if (preference.kind === 'refused') throw new ApiError(preference.status, 'bad_preference', preference.message);
  let key: string | undefined;
  let status: number;
  let named: string | undefined;
  if (preference.kind === 'chosen') {
    status = Number(preference.status);
    key = responseKeyFor(operation, status);
    named = preference.example;
  } else {
    key = successKey(operation);
    status = key === undefined ? 204 : statusOfKey(key);
  }
  // An operation that declares only informational answers (1xx) gets an empty success: a 1xx cannot end an exchange.
  if (status < 200) return { status: 204 };
  const response = key === undefined ? undefined : deref(document, operation.op.responses?.[key]);
  const headers = responseHeaders(document, response);
  const content = response?.content ?? {};
  const type = chooseMediaType(Object.keys(content), req.headers.accept);
  // These statuses have no body in HTTP, whatever a document declares.
  if (type === undefined || status === 204 || status === 205 || status === 304) return { status, headers };
  const media: MediaTypeObject = content[type] ?? {};
  const schema = deref(document, media.schema);
  // The Content-Type written: a wildcard range declared (`*/*`, `image/*`) is no type to send.
  const sent = type.includes('*') ? (isJsonType(type) || type === '*/*' ? 'application/json' : 'application/octet-stream') : type;
  if (isJsonType(sent) || type === '*/*') {
    const candidates = [...declaredExamples(document, media, named), sampleOf(document, schema, { direction: 'response' })].filter((c) => c !== undefined);
    if (candidates.length === 0) return { status, headers };
    const check = req.matched?.checkResponse;
    if (!check || status >= 500) return { status, headers: { ...headers, 'Content-Type': contentTypeOf(sent) }, body: candidates[0] };
    // Vendors' examples do not always match their schemas: the first that passes the response check is answered.
    res.status(status);
    res.setHeader('Content-Type', contentTypeOf(sent));
    for (const candidate of candidates) {
      try {
        check(req, res, candidate);
        return { status, headers, body: candidate };
      } catch {
        // the next candidate
      }
    }
    const seen = warned.get(document) ?? new Set<string>();
    warned.set(document, seen);
    if (!seen.has(operation.id)) {
      seen.add(operation.id);
      console.warn(`${operation.id}: no example or sample of its ${key} ${type} answer matches its schema; answered unchecked`);
    }
    return { status, headers, contentType: contentTypeOf(sent), text: JSON.stringify(candidates[0]) };
  }
  const example = declaredExamples(document, media, named)[0];
  if (essence(sent) === EVENT_STREAM) return { status, headers, contentType: contentTypeOf(sent), text: eventStreamText(document, media, schema, named) };
  if (isTextType(sent)) {
    const text = typeof example === 'string' ? example : example !== undefined ? JSON.stringify(example) : textSample(document, schema, isXmlType(sent));
    return { status, headers, contentType: contentTypeOf(sent), text };
  }
  // Bytes: a string example as its UTF-8 bytes; without one, an empty body.
  const bytes = typeof example === 'string' ? Buffer.from(example) : new Uint8Array(0);
  return { status, headers, contentType: sent, text: bytes };
}

const EVENT_STREAM = 'text/event-stream';

/**
 * An event stream's answer: its wire example, or its frame examples (each `{event?, data, id?}`, as
 * the contracts write them), else one frame sampled from the frame schema, written by the one SSE
 * writer. A stream without a single frame tells a client nothing.
 */
export function eventStreamText(document: OpenAPI3, media: MediaTypeObject, schema: SchemaObject | undefined, named?: string): string {
  if (typeof media['x-wire-example'] === 'string') return media['x-wire-example'];
  const examples = declaredExamples(document, media, named);
  if (typeof examples[0] === 'string') return examples[0];
  const frames = (examples.length > 0 ? examples : [sampleOf(document, schema, { direction: 'response' }) ?? {}]).map((value) =>
    value && typeof value === 'object' && 'data' in value ? (value as SseFrame) : { data: value },
  );
  return frames.map(formatFrame).join('');
}

function contentTypeOf(type: string): string {
  return /;\s*charset=/i.test(type) || !(isJsonType(type) || isTextType(type)) ? type : `${type}; charset=utf-8`;
}

function textSample(document: OpenAPI3, schema: SchemaObject | undefined, xml: boolean): string {
  const value = sampleOf(document, schema, { direction: 'response', xml });
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The response's required headers (with `optional`, every declared one), with their example or a
 * sample: a client may rely on them. The stub sends only what it must; the mock replaces Prism's
 * placeholders for every header Prism sends.
 */
export function responseHeaders(document: OpenAPI3, response: ResponseObject | undefined, options: { optional?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(response?.headers ?? {})) {
    const header = deref(document, raw);
    if (!header || (!header.required && !options.optional) || name.toLowerCase() === 'content-type') continue;
    const value = declaredExamples(document, header)[0] ?? sampleOf(document, deref(document, header.schema), { direction: 'response' });
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(',') : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
    // A header value must be Latin-1 without line breaks.
    if (/^[\t\x20-\x7e\x80-\xff]*$/.test(text)) out[name] = text;
  }
  return out;
}
