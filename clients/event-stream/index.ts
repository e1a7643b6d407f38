/**
 * Typed event-stream (`text/event-stream`) readers: the runtime of the generated
 * `generated/<slug>/streams.gen.ts`. fetch, ReadableStream, TextDecoder and eventsource-parser only,
 * so it runs in Node 20 and in browsers.
 *
 * openapi-fetch parses every answer as JSON, so a stream operation called through the client
 * type-checks but fails at run time. These readers parse the stream as the WHATWG standard does
 * (BOM, CR/LF/CRLF, `data` lines joined by `\n`, comments ignored, `id`, `retry`, `event`,
 * dispatch on a blank line), decode `data` as the frame schema says, check every frame
 * `{event?, id?, data}` against the contract with a precompiled validator, and yield it typed.
 * A frame off the contract raises StreamFrameError rather than being passed on.
 *
 * Reconnection. The contracts model a stream as a schema of ONE frame. A reader resumes with
 * `Last-Event-ID` (waiting for the stream's last `retry:`) only when that schema lets frames carry
 * an `id` (a property `id` in the frame, or in any variant of a `oneOf`): ids are what makes
 * resuming mean anything, and a server that cannot resume has no reason to send them. None of
 * today's streams do (the audit stream's ceiling is followed with `GET /crawl/{jobId}/status`, and
 * the coder streams describe no resumption), so their readers never reconnect and a lost
 * connection is a StreamConnectionError. Even where resumable, a connection that ends cleanly
 * ends the stream (our streams end deliberately after a terminal frame); only a failure to
 * connect or a connection lost mid-stream is retried, and a 204 on reconnection ends the stream,
 * as the standard has it.
 */
export { createEventStreamParser, type EventStreamParser, type RawEvent } from './parser.js';
export { StreamConnectionError, StreamFrameError, StreamHttpError, type FrameProblem } from './errors.js';
export { buildUrl, mergeHeaders, type ErrorBodyOf } from './request.js';
export {
  ajvValidator,
  readStream,
  type DataEncoding,
  type FrameValidator,
  type ReadStreamOptions,
  type StreamConnectionOptions,
} from './read-stream.js';
