import type { RawEvent } from './parser.js';

/**
 * The answer was not a stream: a status other than 2xx (with the service's error body, parsed when
 * it is JSON), or a 2xx whose media type is not `text/event-stream`.
 */
export class StreamHttpError<Body = unknown> extends Error {
  override readonly name = 'StreamHttpError';
  constructor(
    readonly operation: string,
    readonly status: number,
    /** the parsed JSON body, or the text when it is not JSON */
    readonly body: Body,
    readonly headers: Headers,
    detail?: string,
  ) {
    super(`${operation}: ${detail ?? `answered ${status}`}${errorText(body)}`);
  }
}

/** Why a frame is refused: its data is not the JSON the contract says, or the frame fails the schema. */
export type FrameProblem = 'invalid-json' | 'off-contract';

/** A frame off the contract. The stream stops there: nothing after an invalid frame can be trusted. */
export class StreamFrameError extends Error {
  override readonly name = 'StreamFrameError';
  constructor(
    readonly operation: string,
    readonly problem: FrameProblem,
    /** the event as received, data undecoded */
    readonly frame: RawEvent,
    /** 0-based position of the frame in the stream (across reconnections) */
    readonly index: number,
    /** what is wrong, one line each (`/data/status/progress must be <= 100`) */
    readonly issues: readonly string[],
  ) {
    const what = frame.event === undefined ? `frame ${index}` : `frame ${index} (event "${frame.event}")`;
    super(`${operation}: ${what} ${problem === 'invalid-json' ? 'has data that is not JSON' : 'is off the contract'}: ${issues.join('; ')}`);
  }
}

/** The connection failed (refused, or lost mid-stream) and was not, or could no longer be, resumed. */
export class StreamConnectionError extends Error {
  override readonly name = 'StreamConnectionError';
  constructor(
    readonly operation: string,
    readonly attempts: number,
    override readonly cause: unknown,
  ) {
    super(`${operation}: connection failed${attempts > 1 ? ` (${attempts} attempts)` : ''}: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

function errorText(body: unknown): string {
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    const text = [b.error, b.message, b.detail].find((v) => typeof v === 'string');
    if (text) return `: ${text}`;
    const nested = b.error as Record<string, unknown> | undefined;
    if (nested && typeof nested.message === 'string') return `: ${nested.message}`;
  }
  return '';
}
