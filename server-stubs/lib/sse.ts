import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { createParser } from 'eventsource-parser';
import { createLineEndNormalizer } from '../../clients/event-stream/line-ends.js';

/** One Server-Sent Events frame as the contracts model it: `{event?, data, id?}`. */
export interface SseFrame {
  event?: string;
  data: unknown;
  id?: string;
}

export interface EventStream<F extends SseFrame> {
  send(frame: F): void;
  /** a comment line (`: ping`): keeps proxies from timing out, ignored by clients */
  comment(text: string): void;
  end(): void;
  readonly closed: boolean;
  /** called once when the stream ends, by `end()` or by the client going away */
  onClose(listener: () => void): void;
  /** a timer that is cleared when the stream closes */
  every(ms: number, tick: () => void): void;
  after(ms: number, fire: () => void): void;
}

export const eventStreamHeaders = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
} as const;

export interface EventStreamOptions {
  status?: number;
  headers?: OutgoingHttpHeaders;
  /** the frame schema of the contract: a frame off it is not written, and the stream ends */
  validate?: ((frame: unknown) => boolean) & { errors?: Array<{ instancePath?: string; message?: string }> | null };
  /** names the stream in the log */
  label?: string;
}

/**
 * Starts an event stream on `res`: the only place stubs (and the mock, mock/streams.ts) write
 * `text/event-stream`. Any node:http answer, not only Express's: the mock's gateway has no app.
 */
export function openEventStream<F extends SseFrame>(res: ServerResponse, options: EventStreamOptions = {}): EventStream<F> {
  const { validate } = options;
  res.writeHead(options.status ?? 200, options.headers ?? eventStreamHeaders);
  res.flushHeaders();
  const timers: Array<ReturnType<typeof setInterval>> = [];
  const listeners: Array<() => void> = [];
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    for (const t of timers) clearInterval(t);
    for (const listener of listeners) listener();
  };
  res.on('close', close);
  return {
    send(frame) {
      if (closed) return;
      if (validate && !validate(frame)) {
        // Called from timers, so a throw would take the process down: the log says what was wrong.
        const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '(frame)'} ${e.message}`).join('; ');
        console.error(`[${options.label ?? 'stream'}] frame off the contract, stream ended: ${problems}`);
        this.end();
        return;
      }
      res.write(formatFrame(frame));
    },
    comment(text) {
      if (!closed) res.write(formatComment(text));
    },
    end() {
      if (closed) return;
      close();
      res.end();
    },
    get closed() {
      return closed;
    },
    onClose(listener) {
      listeners.push(listener);
    },
    every(ms, tick) {
      if (!closed) timers.push(setInterval(tick, ms));
    },
    after(ms, fire) {
      if (!closed) timers.push(setTimeout(fire, ms));
    },
  };
}

/** A comment block: read by no client, it keeps idle connections open. */
export const formatComment = (text: string): string => `: ${text}\n\n`;

/** A reconnection delay for the client, in milliseconds. */
export const formatRetry = (ms: number): string => `retry: ${ms}\n\n`;

export function formatFrame(frame: SseFrame): string {
  let out = '';
  if (frame.id !== undefined) out += `id: ${frame.id}\n`;
  if (frame.event !== undefined) out += `event: ${frame.event}\n`;
  const data = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data);
  for (const line of data.split('\n')) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** A frame as it came: its data the text of its `data` lines, or parsed as JSON when it is JSON. */
export interface ReadFrame {
  event?: string;
  data: unknown;
  id?: string;
}

export interface FrameReaderHandlers {
  frame(frame: ReadFrame): void;
  comment?(text: string): void;
  retry?(ms: number): void;
}

export interface FrameReader {
  /** Feeds decoded text as it arrives; handlers are called in stream order. */
  push(text: string): void;
}

/**
 * Reads an event stream as a client would, with eventsource-parser (the one parser of the
 * project: WHATWG rules, a frame dispatched only by its blank line). Data that is JSON is parsed,
 * unless `rawData` keeps it as the text it came as (to write it on unchanged: `formatFrame`
 * writes a string as is).
 */
export function createFrameReader(handlers: FrameReaderHandlers, options: { rawData?: boolean } = {}): FrameReader {
  const parser = createParser({
    onEvent({ event, data, id }) {
      handlers.frame({ ...(event !== undefined && { event }), ...(id !== undefined && { id }), data: options.rawData ? data : jsonOrText(data) });
    },
    onComment: (comment) => handlers.comment?.(comment.trim()),
    onRetry: (ms) => handlers.retry?.(ms),
  });
  const lineEnds = createLineEndNormalizer();
  return {
    push: (text) => {
      if (text !== '') parser.feed(lineEnds(text));
    },
  };
}

/** A frame's data as a client decodes it: JSON when it parses, else the text. */
export function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface ParsedStream {
  frames: ReadFrame[];
  comments: string[];
}

/** A whole event stream read at once (an unfinished last frame is dropped, as a client drops it). */
export function parseEventStream(text: string, options: { rawData?: boolean } = {}): ParsedStream {
  const frames: ReadFrame[] = [];
  const comments: string[] = [];
  createFrameReader({ frame: (f) => frames.push(f), comment: (c) => comments.push(c) }, options).push(text);
  return { frames, comments };
}
