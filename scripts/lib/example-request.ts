import { deref, firstExample, requestBodyOf, type Operation, type JsonNode } from './operations.js';

export interface BuiltRequest {
  url: string; // path and query, relative to the base URL
  init: RequestInit;
}

/** A value for a parameter without an example, from its schema. */
function fromSchema(document: JsonNode, schema: JsonNode): unknown {
  const s = deref(document, schema) ?? {};
  if ('const' in s) return s.const;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if ('default' in s) return s.default;
  if (Array.isArray(s.enum)) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (s.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
  if (type === 'integer' || type === 'number') return s.minimum ?? 1;
  if (type === 'boolean') return true;
  return 'example';
}

/**
 * The request a client would send from the contract's own examples: path and required query
 * parameters, the first request-body example, and the credentials of the operation's first
 * security requirement.
 */
export function exampleRequest(
  document: JsonNode,
  operation: Operation,
  credentials: (scheme: JsonNode, name: string) => Record<string, string>,
  /** raw values for named parameters, in place of their examples */
  overrides: Record<string, string> = {},
): BuiltRequest {
  let path = operation.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const p of operation.op.parameters ?? []) {
    const example = firstExample(document, p);
    const value = p.name in overrides ? overrides[p.name] : example.found ? example.value : fromSchema(document, p.schema);
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(String(value)));
    else if (p.in === 'query' && p.required) query.set(p.name, String(value));
    else if (p.in === 'header' && p.required) headers[p.name] = String(value);
  }
  const requirement = (operation.op.security ?? document.security ?? [])[0] ?? {};
  for (const name of Object.keys(requirement)) {
    Object.assign(headers, credentials(deref(document, document.components?.securitySchemes?.[name]), name));
  }
  const init: RequestInit = { method: operation.method.toUpperCase(), headers };
  const body = requestBodyOf(document, operation);
  if (body?.content) {
    const [mediaType, media] = Object.entries<JsonNode>(body.content)[0]!;
    const example = firstExample(document, media);
    if (example.found) {
      headers['content-type'] = mediaType;
      init.body = encodeBody(mediaType, example.value);
    }
  }
  const qs = query.toString();
  return { url: `${path}${qs ? `?${qs}` : ''}`, init };
}

/** A body example on the wire: JSON, form fields, or raw text (`text/plain`, `message/rfc822`). */
export function encodeBody(mediaType: string, value: unknown): string {
  if (mediaType.includes('json')) return JSON.stringify(value);
  if (mediaType === 'application/x-www-form-urlencoded' && value && typeof value === 'object') {
    return new URLSearchParams(Object.entries(value).map(([k, v]) => [k, String(v)])).toString();
  }
  return String(value);
}

