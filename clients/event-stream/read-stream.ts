import { StreamConnectionError, StreamFrameError, StreamHttpError } from './errors.js';
import { createEventStreamParser, type RawEvent } from './parser.js';

/**
 * How a frame's `data` is decoded, decided per operation from the frame schema when the reader is
 * generated: `json` where every frame's data is an object or array, `text` where it is a string,
 * `json-or-text` where the schema allows both (data that does not parse as JSON stays text, so the
 * chat-completion stream's literal `[DONE]` is a string frame).
 */
export type DataEncoding = 'json' | 'text' | 'json-or-text';

/** Checks a decoded frame `{event?, id?, data}` against the contract: [] when it conforms, else the problems. */
export type FrameValidator = (frame: unknown) => readonly string[];

/** A precompiled ajv validator (the standalone code the build writes), as a FrameValidator. */
export function ajvValidator(
  check: ((data: unknown) => boolean) & { errors?: ReadonlyArray<{ instancePath?: string; message?: string }> | null },
): FrameValidator {
  return (frame) => (check(frame) ? [] : (check.errors ?? []).map((e) => `${e.instancePath || '(frame)'} ${e.message ?? 'is invalid'}`));
}

/** How to reach the service: what the caller of a generated reader passes beside the operation's own params. */
export interface StreamConnectionOptions {
  /** the service's base URL, e.g. `http://localhost:4000/seo` */
  baseUrl?: string;
  /** sent with every request (e.g. `Authorization`) */
  headers?: HeadersInit;
  /** a fetch to use instead of the global one */
  fetch?: typeof fetch;
  /** aborts the request or the stream; the iteration then rejects with the signal's reason */
  signal?: AbortSignal;
  /**
   * Resumable streams only: resume after this event id (sent as `Last-Event-ID`).
   */
  lastEventId?: string;
  /**
   * Resumable streams only: how often to try again after the connection fails (consecutive
   * failures; a frame received resets the count), and the delay when the stream sent no `retry:`.
   * `false`: never reconnect. Defaults: 5 attempts, 1000 ms.
   */
  reconnect?: false | { maxAttempts?: number; delayMs?: number };
}

export interface ReadStreamOptions extends Omit<StreamConnectionOptions, 'baseUrl'> {
  /** names the operation in errors (its operationId) */
  operation: string;
  url: string | URL;
  method?: string;
  /** a JSON body, already serialized */
  body?: string;
  data: DataEncoding;
  validate: FrameValidator;
  /** the contract lets the reader resume with `Last-Event-ID` (see index.ts) */
  resumable?: boolean;
}

const DEFAULT_ATTEMPTS = 5;
const DEFAULT_DELAY_MS = 1000;

/**
 * Opens an event stream and yields its frames, decoded and each checked against the contract:
 * `for await (const frame of readStream(options))`. Breaking out of the loop closes the connection.
 *
 * Throws StreamHttpError (not 2xx, or not `text/event-stream`), StreamFrameError (a frame off the
 * contract: the stream stops there), StreamConnectionError (the connection failed and could not be
 * resumed), or the signal's reason when aborted. A stream whose connection ends cleanly is over;
 * a partial event at its end is discarded, as the standard says.
 */
export async function* readStream<Frame>(options: ReadStreamOptions): AsyncGenerator<Frame, void, undefined> {
  const { operation, signal } = options;
  const fetchFn = options.fetch ?? globalThis.fetch;
  const policy =
    options.resumable && options.reconnect !== false
      ? { maxAttempts: options.reconnect?.maxAttempts ?? DEFAULT_ATTEMPTS, delayMs: options.reconnect?.delayMs ?? DEFAULT_DELAY_MS }
      : undefined;
  let lastEventId = options.resumable ? (options.lastEventId ?? '') : '';
  let retryMs: number | undefined;
  let index = 0;
  let failures = 0;
  let reconnecting = false;

  /** After a failure: throws when no attempt is left, else waits before the next one. */
  const giveUpOrWait = async (cause: unknown) => {
    failures += 1;
    if (!policy || failures > policy.maxAttempts) throw new StreamConnectionError(operation, failures, cause);
    await sleep(retryMs ?? policy.delayMs, signal);
    reconnecting = true;
  };

  for (;;) {
    let response: Response;
    try {
      response = await fetchFn(options.url, {
        method: options.method ?? 'GET',
        headers: requestHeaders(options, lastEventId),
        ...(options.body !== undefined && { body: options.body }),
        ...(signal && { signal }),
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      await giveUpOrWait(error);
      continue;
    }
    // The standard's way for a server to say "do not reconnect": 204 No Content.
    if (reconnecting && response.status === 204) return;
    if (!response.ok) throw new StreamHttpError(operation, response.status, await readBody(response), response.headers);
    const type = response.headers.get('content-type') ?? '';
    if (!/^text\/event-stream\s*(;|$)/i.test(type) || !response.body) {
      const body = await readBody(response);
      throw new StreamHttpError(operation, response.status, body, response.headers, `answered ${response.status} ${type || 'without a media type'}, not text/event-stream`);
    }

    const parser = createEventStreamParser();
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    let lost: unknown;
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (error) {
          if (signal?.aborted) throw signal.reason ?? error;
          lost = error;
          break;
        }
        const events = parser.push(chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true }));
        if (parser.lastEventId !== '' || events.some((e) => e.id !== undefined)) lastEventId = parser.lastEventId;
        retryMs = parser.retry ?? retryMs;
        for (const event of events) {
          const frame = decodeFrame(options, event, index);
          index += 1;
          failures = 0;
          yield frame as Frame;
        }
        if (chunk.done) return;
      }
    } finally {
      // Closes the connection when the consumer stops early or a frame was refused; a no-op after the end.
      reader.cancel().catch(() => {});
    }
    await giveUpOrWait(lost);
  }
}

function requestHeaders(options: ReadStreamOptions, lastEventId: string): Headers {
  const headers = new Headers(options.headers);
  headers.set('Accept', 'text/event-stream');
  if (options.body !== undefined && !headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
  if (lastEventId !== '') headers.set('Last-Event-ID', lastEventId);
  return headers;
}

function decodeFrame(options: ReadStreamOptions, event: RawEvent, index: number): unknown {
  let data: unknown = event.data;
  if (options.data !== 'text') {
    try {
      data = JSON.parse(event.data);
    } catch (error) {
      if (options.data === 'json') throw new StreamFrameError(options.operation, 'invalid-json', event, index, [(error as Error).message]);
    }
  }
  const frame = { ...(event.event !== undefined && { event: event.event }), ...(event.id !== undefined && { id: event.id }), data };
  const issues = options.validate(frame);
  if (issues.length > 0) throw new StreamFrameError(options.operation, 'off-contract', event, index, issues);
  return frame;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text().catch(() => '');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}
