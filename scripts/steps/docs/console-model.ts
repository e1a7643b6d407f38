/**
 * What the "try it" console needs of a bundle, worked out at build time so the browser script
 * stays small: every operation with its parameters, an example body and the headers its security
 * asks for, the servers to send to, and the seeded credentials to prefill.
 */
import type { OpenAPI3, ParameterObject, SecuritySchemeObject } from 'openapi-typescript';
import { encodeBody } from '../../lib/example-request.js';
import { schemaAt } from '../../../server-stubs/lib/openapi/json-schema.js';
import { mountPathOf, deref, firstExample, listOperations, requestBodyOf } from '../../../server-stubs/lib/openapi/document.js';

export interface ConsoleParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  /** the contract's example (or default), as it goes on the wire; empty when it has none */
  example: string;
}

export interface ConsoleOperation {
  id: string;
  method: string;
  path: string;
  summary: string;
  parameters: ConsoleParameter[];
  body?: { mediaType: string; example: string };
  /** header names the operation's first security requirement sends (`Authorization`, `x-api-key`) */
  authHeaders: string[];
  /** set when the only way to authenticate is a cookie, which a page's fetch cannot set */
  cookieOnly?: string;
}

export interface ConsoleCredential {
  label: string;
  headers: Record<string, string>;
}

export interface ConsoleModel {
  slug: string;
  /** where the service is mounted on a server, `/seo`: the console adds the page's own origin with it */
  basePath: string;
  servers: Array<{ url: string; description: string }>;
  operations: ConsoleOperation[];
  credentials: ConsoleCredential[];
}

export function consoleModel(slug: string, document: OpenAPI3, credentials: ConsoleCredential[] = []): ConsoleModel {
  const schemes = document.components?.securitySchemes ?? {};
  // An alias (x-alias-of) is drawn in its twin's entry (reader-marks.ts), and tried there.
  const operations = listOperations(document).filter((operation) => operation.op['x-alias-of'] === undefined).map((operation): ConsoleOperation => {
    const parameters = operation.op.parameters.flatMap((p): ConsoleParameter[] =>
      p.in === 'path' || p.in === 'query' || p.in === 'header' ? [{ name: p.name, in: p.in, required: Boolean(p.required) || p.in === 'path', example: exampleText(document, p) }] : [],
    );
    const requirement: Record<string, unknown> = (operation.op.security ?? document.security ?? [])[0] ?? {};
    const used = Object.keys(requirement).map((name) => deref<SecuritySchemeObject | undefined>(document, schemes[name]));
    const authHeaders = [...new Set(used.filter((s) => !isCookieKey(s)).map(headerOfScheme))];
    const cookie = used.find(isCookieKey);
    const body = requestBodyOf(document, operation);
    const [mediaType, media] = Object.entries(body?.content ?? {})[0] ?? [];
    const example = mediaType ? firstExample(document, deref(document, media)) : { found: false };
    return {
      id: operation.id,
      method: operation.method.toUpperCase(),
      path: operation.path,
      summary: operation.op.summary ?? '',
      parameters,
      ...(mediaType ? { body: { mediaType, example: example.found ? prettyBody(mediaType, example.value) : '' } } : {}),
      authHeaders,
      ...(cookie && authHeaders.length === 0 ? { cookieOnly: cookie.name } : {}),
    };
  });
  return {
    slug,
    basePath: mountPathOf(slug, document),
    servers: (document.servers ?? []).map((s) => ({ url: String(s.url), description: String(s.description ?? '') })),
    operations,
    credentials,
  };
}

type ApiKeyScheme = Extract<SecuritySchemeObject, { type: 'apiKey' }>;

const isCookieKey = (scheme: SecuritySchemeObject | undefined): scheme is ApiKeyScheme => scheme?.type === 'apiKey' && scheme.in === 'cookie';

function headerOfScheme(scheme: SecuritySchemeObject | undefined): string {
  return scheme?.type === 'apiKey' && scheme.in === 'header' ? String(scheme.name) : 'Authorization';
}

function exampleText(document: OpenAPI3, parameter: ParameterObject): string {
  const example = firstExample(document, parameter);
  const value = example.found ? example.value : schemaAt(document, parameter.schema)?.default;
  if (value === undefined || value === null) return '';
  return Array.isArray(value) ? value.join(',') : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** JSON bodies indented, so they can be edited in the console; other media types as on the wire. */
function prettyBody(mediaType: string, value: unknown): string {
  return mediaType.includes('json') ? JSON.stringify(value, null, 2) : encodeBody(mediaType, value);
}
