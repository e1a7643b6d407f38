import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

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
      if (!closed) res.write(`: ${text}\n\n`);
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

export function formatFrame(frame: SseFrame): string {
  let out = '';
  if (frame.id !== undefined) out += `id: ${frame.id}\n`;
  if (frame.event !== undefined) out += `event: ${frame.event}\n`;
  const data = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data);
  for (const line of data.split('\n')) out += `data: ${line}\n`;
  return `${out}\n`;
}

export interface ParsedStream {
  frames: Array<{ event?: string; data: unknown; id?: string }>;
  comments: string[];
}

/**
 * Parses an event stream as a client would (WHATWG rules: `data` lines joined by newlines, comment
 * lines start with `:`, a blank line dispatches). Data that is JSON is parsed, unless `rawData`
 * keeps it as the text it came as (to write it on unchanged: `formatFrame` writes a string as is).
 */
export function parseEventStream(text: string, options: { rawData?: boolean } = {}): ParsedStream {
  const frames: ParsedStream['frames'] = [];
  const comments: string[] = [];
  for (const block of text.replace(/\r\n?/g, '\n').split('\n\n')) {
    if (block.trim() === '') continue;
    let event: string | undefined;
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'id') id = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length === 0) continue;
    const raw = data.join('\n');
    let parsed: unknown = raw;
    try {
      if (!options.rawData) parsed = JSON.parse(raw);
    } catch {
      // not JSON: keep the text
    }
    frames.push({ ...(event !== undefined && { event }), ...(id !== undefined && { id }), data: parsed });
  }
  return { frames, comments };
}
