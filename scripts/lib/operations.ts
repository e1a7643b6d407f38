/** The operations of a bundled OpenAPI document, with `$ref`s of parameters, bodies and responses followed. */

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface Operation {
  id: string;
  method: string;
  path: string;
  op: Record<string, any>;
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
export function deref<T = any>(document: Record<string, any>, node: any): T {
  let current = node;
  for (let hops = 0; current && typeof current.$ref === 'string' && current.$ref.startsWith('#/') && hops < 20; hops++) {
    current = pointerTokens(current.$ref).reduce((n: any, k: string) => n?.[k], document);
  }
  return current as T;
}

/** The path of the first `servers` URL (`https://api.example/seo` -> `/seo`): where the service is mounted. */
export function basePathOf(document: Record<string, any>): string {
  const server: string = document.servers?.[0]?.url ?? '/';
  return new URL(server, 'http://localhost').pathname.replace(/\/$/, '') || '/';
}

/** The operations of `paths`. */
export function listOperations(document: Record<string, any>): Operation[] {
  return operationsOf(document, document.paths, (method, path) => `${method.toUpperCase()} ${path}`);
}

/** The operations of the 3.1 top-level `webhooks` (what the service posts to its subscribers); `path` is the webhook's key. */
export function listWebhooks(document: Record<string, any>): Operation[] {
  return operationsOf(document, document.webhooks, (_method, name) => `WEBHOOK ${name}`);
}

function operationsOf(document: Record<string, any>, items: Record<string, any> | undefined, label: (method: string, key: string) => string): Operation[] {
  const out: Operation[] = [];
  for (const [key, rawItem] of Object.entries<any>(items ?? {})) {
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
export function responsesOf(document: Record<string, any>, operation: Operation): Record<string, any> {
  return Object.fromEntries(Object.entries<any>(operation.op.responses ?? {}).map(([s, r]) => [s, deref(document, r)]));
}

export function requestBodyOf(document: Record<string, any>, operation: Operation): Record<string, any> | undefined {
  return operation.op.requestBody ? deref(document, operation.op.requestBody) : undefined;
}

/** First named example of a media type or parameter (`examples` map), or its `example`. */
export function firstExample(document: Record<string, any>, holder: Record<string, any> | undefined): { found: boolean; value?: unknown } {
  if (!holder) return { found: false };
  const named = Object.values<any>(holder.examples ?? {}).map((e) => deref(document, e));
  if (named.length > 0 && named[0] && 'value' in named[0]) return { found: true, value: named[0].value };
  if ('example' in holder) return { found: true, value: holder.example };
  const schemaExamples = deref(document, holder.schema)?.examples;
  if (Array.isArray(schemaExamples) && schemaExamples.length > 0) return { found: true, value: schemaExamples[0] };
  return { found: false };
}
