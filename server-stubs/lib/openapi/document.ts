/**
 * The document model every module shares: a bundled OpenAPI document as openapi-typescript's types,
 * its operations with the `$ref`s of parameters, bodies and responses followed. The stubs, the mock
 * and the pipeline all import it from here.
 */
import type {
  HeaderObject,
  MediaTypeObject,
  OpenAPI3,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  ServerObject,
} from 'openapi-typescript';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** An operation whose parameters are all there: its path item's joined to its own, every `$ref` followed. */
type ResolvedOperation = Omit<OperationObject, 'parameters'> & { parameters: ParameterObject[] };

export interface Operation {
  id: string;
  method: HttpMethod;
  path: string;
  op: ResolvedOperation;
  /** `GET /projects` */
  label: string;
}

/**
 * JSON Pointer tokens (RFC 6901). @redocly/openapi-core has these too, but importing it would load
 * all of it into a stub's start-up, for two one-liners.
 */
export const escapePointerToken = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1');
export const unescapePointerToken = (token: string) => token.replaceAll('~1', '/').replaceAll('~0', '~');

/** `#/components/schemas/A` -> `['components', 'schemas', 'A']`. */
export function pointerTokens(ref: string): string[] {
  return ref.replace(/^#?\//, '').split('/').map(unescapePointerToken);
}

/** A parsed document whose local `$ref`s `deref` follows: an OpenAPI bundle, or a standalone JSON Schema. */
export type JsonDocument = object;

/**
 * Follows local `$ref`s until a real node: `deref(document, response)` of a `ResponseObject |
 * ReferenceObject` is the `ResponseObject`, as a bundled, validated document guarantees. A node read
 * without a type (a member met in a schema walk) comes back `unknown`, or as what the caller names.
 */
export function deref<T>(document: JsonDocument, node: T | ReferenceObject): T;
export function deref<T = unknown>(document: JsonDocument, node: unknown): T;
export function deref<T>(document: JsonDocument, node: unknown): T {
  let current: unknown = node;
  for (let hops = 0; hops < 20; hops++) {
    const ref = localRef(current);
    if (ref === undefined) break;
    current = valueAt(document, pointerTokens(ref));
  }
  return current as T;
}

/** The node's `$ref` where it points inside its own document (`#/...`). */
export function localRef(node: unknown): string | undefined {
  const ref = isNode(node) ? node.$ref : undefined;
  return typeof ref === 'string' && ref.startsWith('#/') ? ref : undefined;
}

/** What JSON Pointer tokens reach from a node, or undefined where they leave it. */
export function valueAt(node: unknown, tokens: string[]): unknown {
  return tokens.reduce<unknown>((n, k) => (isNode(n) ? n[k] : undefined), node);
}

/** Whether a JSON value is an object or array, whose members can be read. */
const isNode = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * The path of the first `servers` URL (`https://api.example/seo` -> `/seo`); server variables take
 * their defaults (`{basePath}` without one stays itself), and a URL that still cannot be read, or
 * none, is `/`.
 */
export function serverPathOf(document: OpenAPI3): string {
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
export function serverUrlOf(server: ServerObject): string {
  const variables = server.variables ?? {};
  return String(server.url).replace(/\{([^}]*)\}/g, (whole: string, name: string) => {
    const value: unknown = variables[name]?.default;
    return typeof value === 'string' ? value : whole;
  });
}

/**
 * Where a service is served by the stubs and the mock alike. A document whose first server is on
 * this machine (`http://localhost:4000/seo`, as the platform's own contracts declare) is served at
 * that server's path; any other (a vendor's `https://api.vendor.com/v2`, a relative URL, server
 * variables, no `servers` at all) at `/<slug>`, so two imported documents never claim one path.
 */
export function mountPathOf(slug: string, document: OpenAPI3): string {
  const url: unknown = document.servers?.[0]?.url;
  const local = typeof url === 'string' && /^https?:\/\/(localhost|127\.0\.0\.1)(:\d+)?(\/|$)/.test(url);
  return local ? serverPathOf(document) : `/${slug}`;
}

type HttpMethod = (typeof HTTP_METHODS)[number];
const isHttpMethod = (method: string): method is HttpMethod => (HTTP_METHODS as readonly string[]).includes(method);

/** The operation object at a path and method as the document holds it (its path item's parameters not joined). */
export function operationAt(document: OpenAPI3, path: string, method: string): OperationObject | undefined {
  const item = deref(document, document.paths?.[path]);
  return isHttpMethod(method) ? deref(document, item?.[method]) : undefined;
}

/** The operations of `paths`. */
export function listOperations(document: OpenAPI3): Operation[] {
  return operationsOf(document, document.paths, (method, path) => `${method.toUpperCase()} ${path}`);
}

/** The operations of the 3.1 top-level `webhooks` (what the service posts to its subscribers); `path` is the webhook's key. */
export function listWebhooks(document: OpenAPI3): Operation[] {
  return operationsOf(document, document.webhooks, (_method, name) => `WEBHOOK ${name}`);
}

function operationsOf(document: OpenAPI3, items: Record<string, PathItemObject | ReferenceObject> | undefined, label: (method: string, key: string) => string): Operation[] {
  const out: Operation[] = [];
  for (const [key, rawItem] of Object.entries(items ?? {})) {
    const item = deref(document, rawItem);
    for (const method of HTTP_METHODS) {
      // OpenAPI has no `$ref` operations (openapi-typescript admits one); an operation is itself.
      const op = deref(document, item?.[method]);
      if (!op) continue;
      // Path-level parameters apply to every operation of the path.
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref(document, p));
      out.push({ id: op.operationId ?? `${method} ${key}`, method, path: key, op: { ...op, parameters }, label: label(method, key) });
    }
  }
  return out;
}

/** The operation's responses with `$ref`s followed: status -> response object. */
export function responsesOf(document: OpenAPI3, operation: Operation): Record<string, ResponseObject> {
  return Object.fromEntries(Object.entries(operation.op.responses ?? {}).map(([s, r]) => [s, deref(document, r)]));
}

export function requestBodyOf(document: OpenAPI3, operation: Operation): RequestBodyObject | undefined {
  return operation.op.requestBody ? deref(document, operation.op.requestBody) : undefined;
}

/** First named example of a media type or parameter (`examples` map), or its `example`. */
export function firstExample(document: OpenAPI3, holder: MediaTypeObject | ParameterObject | HeaderObject | undefined): { found: boolean; value?: unknown } {
  if (!holder) return { found: false };
  const named = Object.values(holder.examples ?? {}).map((e) => deref(document, e));
  if (named.length > 0 && named[0] && 'value' in named[0]) return { found: true, value: named[0].value };
  if ('example' in holder) return { found: true, value: holder.example };
  const schema: unknown = deref(document, holder.schema);
  // A 3.1 schema's `examples` (openapi-typescript's SchemaObject knows only `example`).
  const schemaExamples = isNode(schema) ? schema.examples : undefined;
  if (Array.isArray(schemaExamples) && schemaExamples.length > 0) return { found: true, value: schemaExamples[0] };
  return { found: false };
}
