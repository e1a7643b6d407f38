import { loadContract, type Contract } from '../../server-stubs/lib/contract.js';
import { parseEventStream } from '../../server-stubs/lib/sse.js';

/**
 * Validates what a client received against the service's bundle, on the client's side of the wire:
 * it catches a stub whose own response check is switched off or skipped, and checks any other
 * server the same way. It is not an independent judge of the stubs: it reads the bundle with the
 * stubs' own contract loader (server-stubs/lib/contract.ts), validates with the stubs' ajv set-up
 * (server-stubs/lib/openapi/ajv.ts) and parses event streams with the stubs' own reader
 * (server-stubs/lib/sse.ts), so a fault in those is shared by both sides. A slug reads the
 * repository's bundle; a contract (an imported document's schema view, say) is checked as given.
 */
export function contractChecker(source: string | Contract) {
  const { document, validator } = typeof source === 'string' ? loadContract(source) : source;

  function check(pointer: string[], value: unknown): string[] {
    let fn;
    try {
      fn = validator(pointer);
    } catch (error) {
      // A media type declared with an example and no schema says nothing to check against.
      if (/^nothing at /.test((error as Error).message)) return [];
      throw error;
    }
    return fn(value) ? [] : (fn.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`);
  }

  return {
    document,
    /** errors of `body` against the response schema of path/method/status; [] when valid */
    responseErrors(path: string, method: string, status: number | string, body: unknown, mediaType = 'application/json'): string[] {
      return check(['paths', path, method.toLowerCase(), 'responses', String(status), 'content', mediaType, 'schema'], body);
    },
    /** errors of a request body against the operation's request schema */
    requestErrors(path: string, method: string, body: unknown, mediaType = 'application/json'): string[] {
      return check(['paths', path, method.toLowerCase(), 'requestBody', 'content', mediaType, 'schema'], body);
    },
    /** errors of a value against `#/components/schemas/<name>` */
    schemaErrors(name: string, value: unknown): string[] {
      return check(['components', 'schemas', name], value);
    },
    /** parses an event stream and validates every frame against the response's frame schema */
    streamErrors(path: string, method: string, text: string, status: number | string = 200): { frames: unknown[]; comments: string[]; errors: string[] } {
      const { frames, comments } = parseEventStream(text);
      const errors = frames.flatMap((frame, i) =>
        check(['paths', path, method.toLowerCase(), 'responses', String(status), 'content', 'text/event-stream', 'schema'], frame).map(
          (e) => `frame ${i} (${(frame as { event?: string }).event}): ${e}`,
        ),
      );
      return { frames, comments, errors };
    },
  };
}

export type ContractChecker = ReturnType<typeof contractChecker>;
