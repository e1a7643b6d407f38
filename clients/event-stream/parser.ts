/**
 * The event-stream interpretation of the WHATWG HTML standard (§9.2.6), incremental: text goes in as
 * it arrives, events come out when a blank line dispatches them. Chunks may split a line, a CRLF
 * pair or a field anywhere. The parsing is eventsource-parser's (the one parser every reader of
 * the project uses); this module keeps the readers' pull-style API over its callbacks.
 */
import { createParser } from 'eventsource-parser';
import { createLineEndNormalizer } from './line-ends.js';

/** One dispatched event, before its data is decoded. */
export interface RawEvent {
  /** the `event:` field, absent when no `event:` line (or an empty one) came with the event */
  event?: string;
  /** the `data:` lines joined by `\n` */
  data: string;
  /** the `id:` field, present only when the event itself carried an `id:` line */
  id?: string;
}

export interface EventStreamParser {
  /** Feeds decoded text; returns the events the text completed. */
  push(text: string): RawEvent[];
  /** The last event id seen (it persists across events, as the standard has it); '' when none. */
  readonly lastEventId: string;
  /** The last valid `retry:` value, in milliseconds. */
  readonly retry: number | undefined;
}

const BOM = '\uFEFF';

export function createEventStreamParser(): EventStreamParser {
  let completed: RawEvent[] = [];
  let lastEventId = '';
  let retry: number | undefined;
  let started = false;
  const lineEnds = createLineEndNormalizer();
  const parser = createParser({
    onEvent({ event, data, id }) {
      if (id !== undefined) lastEventId = id;
      completed.push({ ...(event !== undefined && { event }), data, ...(id !== undefined && { id }) });
    },
    onRetry(ms) {
      retry = ms;
    },
  });

  return {
    push(text) {
      let chunk = text;
      if (chunk === '') return [];
      // Decoded text carries the BOM as U+FEFF; the library looks for its UTF-8 bytes.
      if (!started) {
        started = true;
        if (chunk.startsWith(BOM)) chunk = chunk.slice(1);
      }
      parser.feed(lineEnds(chunk));
      const out = completed;
      completed = [];
      return out;
    },
    get lastEventId() {
      return lastEventId;
    },
    get retry() {
      return retry;
    },
  };
}
