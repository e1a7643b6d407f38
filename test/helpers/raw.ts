import type { AnswerBody } from './answer-body.js';
/**
 * A request as a client without the typed client sends it: malformed JSON, missing parameters,
 * odd auth headers, unknown fields. One helper for every service whose credential is a bearer key.
 */
export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** the parsed JSON body, or the text when it is not JSON */
  body: AnswerBody;
}

export interface RawOptions {
  /** sent as JSON; a string is sent verbatim (malformed JSON on purpose) */
  body?: unknown;
  /** the bearer key; undefined sends the service's default key, null sends none */
  key?: string | null;
  headers?: Record<string, string>;
}

/** `raw(baseUrl, method, path, options)` for a service whose default key is `defaultKey`. */
export function bearerRaw(defaultKey: string) {
  return async function raw(baseUrl: string, method: string, path: string, options: RawOptions = {}): Promise<RawResponse> {
    const headers: Record<string, string> = {};
    if (options.key !== null) headers.Authorization = `Bearer ${options.key ?? defaultKey}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['Content-Type'] = 'application/json';
    }
    Object.assign(headers, options.headers ?? {});
    const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined && { body }) });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: the text itself
    }
    return { status: response.status, headers: response.headers, text, body: parsed as AnswerBody };
  };
}
