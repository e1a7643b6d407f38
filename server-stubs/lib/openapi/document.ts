/** The operations of a bundled OpenAPI document, with `$ref`s of parameters, bodies and responses followed. */

/**
 * A node of a parsed JSON or YAML document whose shape TypeScript cannot know: an OpenAPI bundle, a
 * JSON Schema, an OpenRPC document, a JSON answer a test reads. The tools walk these by the
 * specifications' rules, and the validators (Ajv, Redocly, the contract checker) are what check their
 * shape, so members read from one stay untyped. The one deliberate `any` of the hand-written code.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed document's members have no static type; see above
export type JsonNode = Record<string, any>;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface Operation {
  id: string;
  method: string;
  path: string;
  op: JsonNode;
  /** `GET /projects` */
  label: string;
}

/**
 * JSON Pointer tokens (RFC 6901). @redocly/openapi-core has these too, but importing it costs a stub
 * half a second of start-up, for two one-liners.
 */
export const escapePointerToken = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1');
export const unescapePointerToken = (token: string) => token.replaceAll('~1', '/').replaceAll('~0', '~');

/** `#/components/schemas/A` -> `['components', 'schemas', 'A']`. */
export function pointerTokens(ref: string): string[] {
  return ref.replace(/^#?\//, '').split('/').map(unescapePointerToken);
}

/** Follows local `$ref`s until a real node. */
export function deref<T = JsonNode>(document: JsonNode, node: unknown): T {
  let current = node;
  for (let hops = 0; hops < 20; hops++) {
    const ref = isNode(current) ? current.$ref : undefined;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) break;
    current = pointerTokens(ref).reduce<unknown>((n, k) => (isNode(n) ? n[k] : undefined), document);
  }
  return current as T;
}

const isNode = (value: unknown): value is JsonNode => typeof value === 'object' && value !== null;

/**
 * The path of the first `servers` URL (`https://api.example/seo` -> `/seo`); server variables take
 * their defaults (`{basePath}` without one stays itself), and a URL that still cannot be read, or
 * none, is `/`.
 */
export function serverPathOf(document: JsonNode): string {
  const server = document.servers?.[0];
  if (typeof server?.url !== 'string') return '/';
  const url = serverUrlOf(server);
  try {
    return decodeURI(new URL(url.replace(/\{([^}]*)\}/g, '$1'), 'http://localhost').pathname).replace(/\/+$/, '') || '/';
  } catch {
    return '/';
  }
}

/** A Server object's URL with each variable replaced by its default (one without a default stays `{name}`). */
export function serverUrlOf(server: JsonNode): string {
  const variables: JsonNode = server.variables ?? {};
  return String(server.url).replace(/\{([^}]*)\}/g, (whole: string, name: string) => (typeof variables[name]?.default === 'string' ? variables[name].default : whole));
}

/**
 * Where a service is served by the stubs and the mock alike. A document whose first server is on
 * this machine (`http://localhost:4000/seo`, as the platform's own contracts declare) is served at
 * that server's path; any other (a vendor's `https://api.vendor.com/v2`, a relative URL, server
 * variables, no `servers` at all) at `/<slug>`, so two imported documents never claim one path.
 */
export function mountPathOf(slug: string, document: JsonNode): string {
  const url = document.servers?.[0]?.url;
  const local = typeof url === 'string' && /^https?:\/\/(localhost|127\.0\.0\.1)(:\d+)?(\/|$)/.test(url);
  return local ? serverPathOf(document) : `/${slug}`;
}

/** The operations of `paths`. */
export function listOperations(document: JsonNode): Operation[] {
  return operationsOf(document, document.paths, (method, path) => `${method.toUpperCase()} ${path}`);
}

/** The operations of the 3.1 top-level `webhooks` (what the service posts to its subscribers); `path` is the webhook's key. */
export function listWebhooks(document: JsonNode): Operation[] {
  return operationsOf(document, document.webhooks, (_method, name) => `WEBHOOK ${name}`);
}

function operationsOf(document: JsonNode, items: JsonNode | undefined, label: (method: string, key: string) => string): Operation[] {
  const out: Operation[] = [];
  for (const [key, rawItem] of Object.entries<JsonNode>(items ?? {})) {
    const item = deref(document, rawItem);
    for (const method of HTTP_METHODS) {
      const op = item?.[method];
      if (!op) continue;
      // Path-level parameters apply to every operation of the path.
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref(document, p));
      out.push({ id: op.operationId ?? `${method} ${key}`, method, path: key, op: { ...op, parameters }, label: label(method, key) });
    }
  }
  return out;
}

/** The operation's responses with `$ref`s followed: status -> response object. */
export function responsesOf(document: JsonNode, operation: Operation): JsonNode {
  return Object.fromEntries(Object.entries<JsonNode>(operation.op.responses ?? {}).map(([s, r]) => [s, deref(document, r)]));
}

export function requestBodyOf(document: JsonNode, operation: Operation): JsonNode | undefined {
  return operation.op.requestBody ? deref(document, operation.op.requestBody) : undefined;
}

/** First named example of a media type or parameter (`examples` map), or its `example`. */
export function firstExample(document: JsonNode, holder: JsonNode | undefined): { found: boolean; value?: unknown } {
  if (!holder) return { found: false };
  const named = Object.values<JsonNode>(holder.examples ?? {}).map((e) => deref(document, e));
  if (named.length > 0 && named[0] && 'value' in named[0]) return { found: true, value: named[0].value };
  if ('example' in holder) return { found: true, value: holder.example };
  const schemaExamples = deref(document, holder.schema)?.examples;
  if (Array.isArray(schemaExamples) && schemaExamples.length > 0) return { found: true, value: schemaExamples[0] };
  return { found: false };
}
