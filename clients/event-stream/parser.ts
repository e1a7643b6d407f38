/**
 * The event-stream interpretation of the WHATWG HTML standard (§9.2.6), incremental: text goes in as
 * it arrives, events come out when a blank line dispatches them. Chunks may split a line, a CRLF
 * pair or a field anywhere.
 */

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

export function createEventStreamParser(): EventStreamParser {
  let started = false;
  let pending = '';
  /** the previous chunk ended in CR: a LF at the start of the next one belongs to it */
  let afterCr = false;
  let data: string[] = [];
  let event = '';
  let id: string | undefined;
  let lastEventId = '';
  let retry: number | undefined;

  const line = (text: string, out: RawEvent[]) => {
    if (text === '') {
      if (data.length > 0) {
        out.push({ ...(event !== '' && { event }), data: data.join('\n'), ...(id !== undefined && { id }) });
      }
      data = [];
      event = '';
      id = undefined;
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id') {
      // An id with NULL is ignored by the standard, so that it can never end up in a header.
      if (!value.includes('\0')) {
        id = value;
        lastEventId = value;
      }
    } else if (field === 'retry') {
      if (/^[0-9]+$/.test(value)) retry = Number(value);
    }
  };

  return {
    push(text) {
      const out: RawEvent[] = [];
      let chunk = text;
      if (!started && chunk.length > 0) {
        started = true;
        if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
      }
      if (afterCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
      afterCr = false;
      let buffer = pending + chunk;
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer.charCodeAt(i);
        if (c !== 10 && c !== 13) continue;
        line(buffer.slice(start, i), out);
        if (c === 13) {
          if (i + 1 === buffer.length) afterCr = true;
          else if (buffer.charCodeAt(i + 1) === 10) i++;
        }
        start = i + 1;
      }
      buffer = buffer.slice(start);
      pending = buffer;
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
