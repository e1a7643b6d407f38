/**
 * eventsource-parser (3.1) keeps a CR that ends a chunk until the next chunk shows whether an LF
 * follows, so a frame whose blank line is a bare CR at the end of what has arrived waits for more
 * text, and is lost when the stream ends there. A CR is a line end by itself (WHATWG §9.2.6): every
 * line end is handed on as LF at once, and the LF of a CRLF split across two chunks is dropped.
 * Every reader that feeds the parser (the clients' and the stubs') passes its chunks through this.
 */
export function createLineEndNormalizer(): (chunk: string) => string {
  let endedOnCr = false;
  return (text) => {
    if (text === '') return text;
    const chunk = endedOnCr && text.startsWith('\n') ? text.slice(1) : text;
    endedOnCr = text.endsWith('\r');
    return chunk.includes('\r') ? chunk.replace(/\r\n?/g, '\n') : chunk;
  };
}
