import type { MediaTypeObject, OpenAPI3, ReferenceObject, SchemaObject } from 'openapi-typescript';
import { credentialCarrier, mergeCarriers, type CredentialCarrier, type SchemeCredentials } from './credentials.js';
import { deref, firstExample, requestBodyOf, type Operation } from '../../server-stubs/lib/openapi/document.js';
import { schemaAt, type SchemaNode } from '../../server-stubs/lib/openapi/json-schema.js';
import { hasStyleSerialization, serializeParameter } from './parameter-style.js';
import { isFormType, isJsonType, isMultipartType, isTextType, isXmlType } from '../../server-stubs/lib/media-types.js';
import { sampleOf } from '../../server-stubs/lib/schema-sample.js';

/** What a caller wants of the request beyond the contract's examples. */
export interface RequestOptions {
  /** raw values for named parameters, in place of their examples */
  overrides?: Record<string, string>;
  /**
   * optional parameters too, from their examples or sampled: a document brought in is exercised on
   * everything it reads, and a stub is checked on every parameter it parses
   */
  optionalParameters?: boolean;
  /**
   * the body in the first declared media type, whatever the examples, as a browser sends it:
   * multipart as FormData with a file for each binary field, a form as URLSearchParams, a wildcard
   * type as text or bytes; never for GET or HEAD
   */
  firstMediaType?: boolean;
}

export interface BuiltRequest {
  url: string; // path and query, relative to the base URL
  init: RequestInit;
  /** the body, when the contract had no example for it and it was sampled from the schema */
  sampledBody?: { mediaType: string; value: unknown };
}

/** A value for a parameter without an example, from its schema. */
function fromSchema(document: OpenAPI3, schema: SchemaObject | ReferenceObject | undefined): unknown {
  const s = schemaAt(document, schema) ?? {};
  if ('const' in s) return s.const;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if ('default' in s) return s.default;
  if (Array.isArray(s.enum)) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (s.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
  if (type === 'integer' || type === 'number') return s.minimum ?? 1;
  if (type === 'boolean') return true;
  // Arrays, objects, patterns and formats: the sampler knows their shapes.
  // An object parameter with none of its properties would be an empty path segment or no query at all.
  return sampleOf(document, s, { direction: 'request' }) ?? 'example';
}

/**
 * The request a client would send from the contract's own examples: path and required query,
 * header and cookie parameters (each in its style), the first request-body example, and the
 * credentials of the operation's first security requirement. Where the contract gives no example,
 * values are sampled from the schemas (server-stubs/lib/schema-sample.ts).
 *
 * `credentials` gives a scheme's headers (`credentialCarrier` of scripts/lib/credentials.ts writes
 * them); an apiKey that travels in the query comes back as a header named after it and is moved to
 * the query here.
 */
export function exampleRequest(
  document: OpenAPI3,
  operation: Operation,
  credentials: SchemeCredentials,
  options: RequestOptions = {},
): BuiltRequest {
  const overrides = options.overrides ?? {};
  let path = operation.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const p of operation.op.parameters ?? []) {
    if (!p || typeof p.name !== 'string') continue;
    if (p.in !== 'path' && !p.required && !(p.name in overrides) && (!options.optionalParameters || !hasStyleSerialization(document, p))) continue;
    if (p.name in overrides) {
      if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(overrides[p.name]!));
      else if (p.in === 'query') query.set(p.name, overrides[p.name]!);
      else if (p.in === 'header') headers[p.name] = overrides[p.name]!;
      continue;
    }
    const example = firstExample(document, p);
    const media = p.content ? deref(document, Object.values(p.content)[0]) : undefined;
    const mediaExample = media ? firstExample(document, media) : { found: false };
    const value = example.found ? example.value : mediaExample.found ? mediaExample.value : fromSchema(document, p.schema ?? media?.schema);
    const wire = serializeParameter(p, value);
    if (p.in === 'path') path = path.replace(`{${p.name}}`, wire.path ?? '');
    else if (p.in === 'query') for (const [k, v] of wire.query ?? []) query.append(k, v);
    else if (p.in === 'header' && wire.header !== undefined) headers[p.name] = wire.header;
    else if (p.in === 'cookie' && wire.cookie) cookies.push(wire.cookie);
  }
  // One Authorization header carries one credential: a requirement of two such schemes cannot be met.
  const requirements: Array<Record<string, unknown>> = operation.op.security ?? document.security ?? [];
  const usesAuthorization = (name: string) => {
    const type = deref(document, document.components?.securitySchemes?.[name])?.type;
    return type === 'http' || type === 'oauth2' || type === 'openIdConnect';
  };
  const requirement = requirements.find((r) => Object.keys(r).filter(usesAuthorization).length <= 1) ?? requirements[0] ?? {};
  const carriers: CredentialCarrier[] = Object.keys(requirement).map((name) => {
    const scheme = deref(document, document.components?.securitySchemes?.[name]);
    const given = credentials(scheme, name);
    const inQuery = scheme?.type === 'apiKey' && scheme.in === 'query' ? Object.entries(given).find(([k]) => k === scheme.name) : undefined;
    return inQuery ? credentialCarrier(document, name, inQuery[1]) : { headers: given, query: [] };
  });
  const sent = mergeCarriers([...carriers, { headers: cookies.length ? { Cookie: cookies.join('; ') } : {}, query: [] }]);
  Object.assign(headers, sent.headers);
  for (const [k, v] of sent.query) query.append(k, v);
  const init: RequestInit = { method: operation.method.toUpperCase(), headers };
  let sampledBody: BuiltRequest['sampledBody'];
  const body = requestBodyOf(document, operation);
  const [firstType, firstMedia] = Object.entries(body?.content ?? {})[0] ?? [];
  if (options.firstMediaType) {
    if (firstType && firstMedia && operation.method !== 'get' && operation.method !== 'head') Object.assign(init, browserBody(document, firstType, deref(document, firstMedia), headers));
  } else if (body?.content && Object.keys(body.content).length > 0) {
    const entries = Object.entries(body.content).map(([type, media]) => [type, deref(document, media)] as const);
    // The first media type with an example, else the first whose schema gives a sample.
    const withExample = entries.map(([type, media]) => [type, firstExample(document, media)] as const).find(([, e]) => e.found);
    // A JSON body gets its required properties only; a form without a single field is no form.
    const chosen =
      withExample ??
      entries
        .map(([type, media]) => [type, sampleOf(document, media?.schema, { direction: 'request', requiredOnly: /json/i.test(type) })] as const)
        .filter(([, value]) => value !== undefined)
        .map(([type, value]) => [type, { found: true, value }] as const)[0];
    if (chosen) {
      const [mediaType, example] = chosen;
      const encoded = encodeRequestBody(mediaType, example.value);
      headers['content-type'] = encoded.contentType;
      init.body = encoded.body;
      if (!withExample) sampledBody = { mediaType, value: example.value };
    }
  }
  // Percent-encoded, not form-encoded: `+` for a space is a reserved character to a strict server
  // (a spaceDelimited value is refused), and `!'()*` are reserved too.
  const qs = [...query].map(([k, v]) => `${strictEncode(k)}=${strictEncode(v)}`).join('&');
  return { url: `${path}${qs ? `?${qs}` : ''}`, init, ...(sampledBody ? { sampledBody } : {}) };
}

/** Percent-encoding of everything RFC 3986 reserves, `!'()*` included (encodeURIComponent leaves those). */
const strictEncode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** A body in `type` as a browser sends it (see RequestOptions.firstMediaType); sets its Content-Type where fetch does not. */
function browserBody(document: OpenAPI3, type: string, media: MediaTypeObject, headers: Record<string, string>): Pick<RequestInit, 'body'> {
  const schema = schemaAt(document, media.schema);
  const example = firstExample(document, media);
  const value = example.found ? example.value : sampleOf(document, schema, { direction: 'request', xml: isXmlType(type) });
  const sent = type.includes('*') ? (type.startsWith('text') ? 'text/plain' : 'application/octet-stream') : type;
  const fields = Object.entries<unknown>((value && typeof value === 'object' ? value : {}) as Record<string, unknown>);
  if (isMultipartType(sent)) {
    const form = new FormData();
    for (const [name, field] of fields) {
      const property = schemaAt(document, propertySchema(document, schema, name));
      if (isBinary(property)) form.append(name, new Blob([Buffer.from('file bytes')], { type: 'application/octet-stream' }), 'upload.bin');
      else if (Array.isArray(field) && isBinary(schemaAt(document, property?.items))) for (let i = 0; i < 2; i++) form.append(name, new Blob([Buffer.from(`file ${i}`)]), `upload${i}.bin`);
      else for (const item of Array.isArray(field) ? field : [field]) form.append(name, formText(item));
    }
    return { body: form };
  }
  if (isFormType(sent)) return { body: new URLSearchParams(fields.flatMap(([name, field]) => [field].flat().map((item) => [name, formText(item)]))) };
  headers['content-type'] = sent;
  if (isJsonType(sent)) return { body: JSON.stringify(value ?? {}) };
  if (isTextType(sent)) return { body: typeof value === 'string' ? value : JSON.stringify(value ?? '') };
  return { body: new Uint8Array(Buffer.from('some bytes')) };
}

/** A property's schema, through `allOf`. */
function propertySchema(document: OpenAPI3, schema: SchemaNode | undefined, name: string): unknown {
  if (!schema) return undefined;
  if (schema.properties?.[name]) return schema.properties[name];
  for (const part of schema.allOf ?? []) {
    const found = propertySchema(document, schemaAt(document, part), name);
    if (found) return found;
  }
  return undefined;
}

/** A field a multipart body carries as a file. */
function isBinary(schema: SchemaNode | undefined): boolean {
  if (!schema) return false;
  return schema.format === 'binary' || schema.format === 'base64' || (schema.type === 'string' && (schema.contentMediaType !== undefined || schema.contentEncoding !== undefined));
}

/** A body example on the wire: JSON, form fields, or raw text (`text/plain`, `message/rfc822`). */
export function encodeBody(mediaType: string, value: unknown): string {
  if (mediaType.includes('json')) return JSON.stringify(value);
  if (mediaType === 'application/x-www-form-urlencoded' && value && typeof value === 'object') {
    return new URLSearchParams(Object.entries(value).map(([k, v]) => [k, String(v)])).toString();
  }
  return String(value);
}

/**
 * As `encodeBody`, for any media type a document may declare: arrays as repeated form fields,
 * multipart bodies as parts, structured values of other types as JSON text. `contentType` is the
 * Content-Type to send (multipart needs its boundary).
 */
export function encodeRequestBody(mediaType: string, value: unknown): { contentType: string; body: string } {
  if (/json/i.test(mediaType)) return { contentType: mediaType, body: JSON.stringify(value) };
  if (mediaType === 'application/x-www-form-urlencoded' && value && typeof value === 'object') {
    return { contentType: mediaType, body: new URLSearchParams(Object.entries(value).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => [k, formText(x)]))).toString() };
  }
  if (mediaType.startsWith('multipart/')) {
    const fields = value && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value) : [['value', value] as const];
    const parts = fields.flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `--${MULTIPART_BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${formText(x)}\r\n`));
    return { contentType: `${mediaType}; boundary=${MULTIPART_BOUNDARY}`, body: `${parts.join('')}--${MULTIPART_BOUNDARY}--\r\n` };
  }
  return { contentType: mediaType, body: typeof value === 'string' ? value : JSON.stringify(value) };
}

/** The boundary of the multipart bodies built here: fixed, so a request replays byte for byte. */
export const MULTIPART_BOUNDARY = 'contract-check-boundary';

const formText = (v: unknown) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v));
