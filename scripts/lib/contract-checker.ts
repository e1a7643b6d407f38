import { loadContract } from '../../server-stubs/lib/contract.js';
import { parseEventStream } from '../../server-stubs/lib/sse.js';

/**
 * Validates what a client received against the service's bundle, as an independent check of the
 * stub (whose own response validation could be switched off or wrong).
 */
export function contractChecker(slug: string) {
  const { document, validator } = loadContract(slug);

  function check(pointer: string[], value: unknown): string[] {
    const fn = validator(pointer);
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
