/**
 * Event streams in the mock, answered as the stubs answer them.
 *
 * Prism cannot stream: it answers a stream's wire text (prism.ts) as one body. It also picks JSON or
 * the stream by `Accept` alone, where the stubs pick by the request (`stream: true` in the body, the
 * OpenAI and Anthropic wire formats), and the official SDKs send `Accept: application/json` either
 * way: the OpenAI SDK then read a JSON body as a stream of no frames, and Anthropic's threw. So the
 * gateway asks Prism for the media type the stub would answer (`streamAccept`), and writes Prism's
 * text on frame by frame through the stubs' one writer (`writeFrames`).
 *
 * Why through Prism and not from the contract's examples in the front: Prism has already checked
 * the request and resolved `Prefer` (the status, the example) by then, and the answer still passes
 * the validating proxy, whose `passFrames` checks each frame against the stream's schema.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { OpenAPI3 } from 'openapi-typescript';
import { deref } from '../server-stubs/lib/openapi/document.js';
import { isSchemaNode } from '../server-stubs/lib/openapi/json-schema.js';
import { successKey } from '../server-stubs/lib/contract-answers.js';
import type { OperationInfo } from '../server-stubs/lib/contract.js';
import { essence, isJsonType } from '../server-stubs/lib/media-types.js';
import { createFrameReader, eventStreamHeaders, openEventStream } from '../server-stubs/lib/sse.js';

const EVENT_STREAM = 'text/event-stream';

export const isEventStream = (contentType: string | undefined) => essence(contentType ?? '') === EVENT_STREAM;

/**
 * The `Accept` Prism should get for a request to an operation that answers JSON or a stream by its
 * body's `stream` flag (its JSON body's schema has a `stream` property, its success declares
 * `text/event-stream` and another type): the stream for `stream: true`, the others otherwise, as the
 * stubs choose whatever the client accepts. `undefined` where the request does not choose.
 */
export function streamAccept(document: OpenAPI3, operation: OperationInfo, body: Buffer): string | undefined {
  const requestBody = deref(document, operation.op.requestBody);
  const jsonType = Object.keys(requestBody?.content ?? {}).find(isJsonType);
  if (!jsonType || !hasProperty(document, deref(document, requestBody?.content[jsonType])?.schema, 'stream')) return undefined;
  const key = successKey(operation);
  const response = key === undefined ? undefined : deref(document, operation.op.responses?.[key]);
  const types = Object.keys(response?.content ?? {});
  const others = types.filter((type) => essence(type) !== EVENT_STREAM);
  if (others.length === types.length || others.length === 0) return undefined;
  let streamed = false;
  try {
    streamed = (JSON.parse(body.toString('utf8')) as { stream?: unknown } | null)?.stream === true;
  } catch {
    // Not JSON: Prism refuses it, whatever it is asked to answer.
  }
  return streamed ? `${EVENT_STREAM}, */*;q=0.1` : `${others.join(', ')}, */*;q=0.1`;
}

/** Whether a schema (or one of its `allOf` parts) names the property. */
function hasProperty(document: OpenAPI3, raw: unknown, name: string, depth = 0): boolean {
  const schema = deref(document, raw);
  if (!isSchemaNode(schema) || depth > 8) return false;
  if (schema.properties && typeof schema.properties === 'object' && name in schema.properties) return true;
  return Array.isArray(schema.allOf) && schema.allOf.some((part) => hasProperty(document, part, name, depth + 1));
}

/**
 * Prism's stream answer written on as the stubs write theirs: each frame its own write, with the
 * stubs' stream headers (no length: the stream ends when it ends). `headers` are Prism's, already
 * mended (declared headers with real values, mock/headers.ts).
 */
export function writeFrames(status: number, text: string, res: ServerResponse, headers: OutgoingHttpHeaders): void {
  const passed: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && name !== 'content-length' && name !== 'transfer-encoding') passed[name.toLowerCase()] = value;
  }
  for (const [name, value] of Object.entries(eventStreamHeaders)) {
    // A header the operation declares keeps its declared value; the media type is the writer's.
    if (name === 'Content-Type' || passed[name.toLowerCase()] === undefined) passed[name.toLowerCase()] = value;
  }
  const events = openEventStream(res, { status, headers: passed });
  // Data as it came (a JSON string's quotes kept), the example's `: ping` comments in their place.
  createFrameReader({ frame: (frame) => events.send(frame), comment: (comment) => events.comment(comment) }, { rawData: true }).push(text);
  events.end();
}
