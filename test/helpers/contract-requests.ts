/**
 * Requests a client of any OpenAPI document would send: for an operation, a valid request built
 * from the contract (parameters serialized by their style, credentials of the first security
 * requirement, a body in the first declared media type), and the documents of @readme/oas-examples
 * bundled in memory.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { bundle, createConfig } from '@redocly/openapi-core';
import { sampleOf, declaredExamples } from '../../server-stubs/lib/schema-sample.js';
import { isFormType, isJsonType, isMultipartType, isTextType, isXmlType } from '../../server-stubs/lib/media-types.js';
import { deref, type JsonNode, type Operation } from '../../scripts/lib/operations.js';

const require = createRequire(import.meta.url);
const examplesDir = path.dirname(require.resolve('@readme/oas-examples/package.json'));

/** A document of @readme/oas-examples (`3.0/petstore`), bundled as `npm run add-service` bundles it. */
export async function readmeExample(name: string): Promise<JsonNode> {
  const [version, file] = name.split('/');
  const result = await bundle({ ref: path.join(examplesDir, version!, 'json', `${file}.json`), config: await createConfig({}) });
  return result.bundle.parsed as JsonNode;
}

export interface BuiltRequest {
  /** the path and query, relative to the base path */
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | FormData | Uint8Array | URLSearchParams;
}

/** A value for a parameter or property: its example, else a sample of its schema. */
function valueOf(document: JsonNode, holder: JsonNode): unknown {
  const example = declaredExamples(document, holder)[0];
  if (example !== undefined) return example;
  return sampleOf(document, deref(document, holder.schema) ?? {}, { direction: 'request' }) ?? 'x';
}

/** Percent-encoding of everything RFC 3986 reserves, `!'()*` included (encodeURIComponent leaves those). */
const enc = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** A parameter's value as its style writes it (OpenAPI 3 "Style Values"); `name` for the styles that repeat it. */
export function serialize(name: string, value: unknown, style: string, explode: boolean): string {
  if (Array.isArray(value)) {
    const items = value.map((v) => enc(String(v)));
    switch (style) {
      case 'label':
        return `.${items.join(explode ? '.' : ',')}`;
      case 'matrix':
        return explode ? items.map((v) => `;${name}=${v}`).join('') : `;${name}=${items.join(',')}`;
      case 'form':
        return explode ? items.map((v) => `${enc(name)}=${v}`).join('&') : `${enc(name)}=${items.join(',')}`;
      case 'spaceDelimited':
        return `${enc(name)}=${items.join('%20')}`;
      case 'pipeDelimited':
        return `${enc(name)}=${items.join('|')}`;
      default:
        return items.join(',');
    }
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => [enc(k), enc(String(v))] as const);
    switch (style) {
      case 'label':
        return `.${entries.map(([k, v]) => (explode ? `${k}=${v}` : `${k},${v}`)).join(explode ? '.' : ',')}`;
      case 'matrix':
        return explode ? entries.map(([k, v]) => `;${k}=${v}`).join('') : `;${name}=${entries.map(([k, v]) => `${k},${v}`).join(',')}`;
      case 'form':
        return explode ? entries.map(([k, v]) => `${k}=${v}`).join('&') : `${enc(name)}=${entries.map(([k, v]) => `${k},${v}`).join(',')}`;
      case 'deepObject':
        return entries.map(([k, v]) => `${enc(name)}[${k}]=${v}`).join('&');
      default:
        return entries.map(([k, v]) => (explode ? `${k}=${v}` : `${k},${v}`)).join(',');
    }
  }
  const text = enc(String(value));
  if (style === 'label') return `.${text}`;
  if (style === 'matrix') return `;${name}=${text}`;
  if (style === 'form' || style === 'deepObject' || style === 'spaceDelimited' || style === 'pipeDelimited') return `${enc(name)}=${text}`;
  return text;
}

/** The credentials of a security requirement, as any value the scheme accepts. */
export function credentialsFor(document: JsonNode, requirement: Record<string, unknown>): { headers: Record<string, string>; query: string[]; cookies: string[] } {
  const out = { headers: {} as Record<string, string>, query: [] as string[], cookies: [] as string[] };
  for (const name of Object.keys(requirement)) {
    const scheme: JsonNode = document.components?.securitySchemes?.[name] ?? {};
    if (scheme.type === 'apiKey') {
      if (scheme.in === 'query') out.query.push(`${enc(scheme.name)}=test-key`);
      else if (scheme.in === 'cookie') out.cookies.push(`${scheme.name}=test-key`);
      else out.headers[String(scheme.name).toLowerCase()] = 'test-key';
    } else if (scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'basic') {
      out.headers.authorization = `Basic ${Buffer.from('user:pass').toString('base64')}`;
    } else if (scheme.type === 'http' && String(scheme.scheme).toLowerCase() !== 'bearer') {
      out.headers.authorization = `${scheme.scheme} test-credentials`;
    } else if (scheme.type !== 'mutualTLS') {
      out.headers.authorization = 'Bearer test-token';
    }
  }
  return out;
}

/** A request the operation's contract accepts; `credentials: false` leaves the credentials out. */
export function validRequest(document: JsonNode, operation: Operation, options: { credentials?: boolean } = {}): BuiltRequest {
  const headers: Record<string, string> = {};
  const query: string[] = [];
  const cookies: string[] = [];
  let pathText = operation.path;
  for (const raw of operation.op.parameters as JsonNode[]) {
    const p = deref<JsonNode>(document, raw);
    const media = p.content ? (Object.values<JsonNode>(p.content)[0] ?? {}) : undefined;
    const value = media ? valueOf(document, media) : valueOf(document, p);
    if (media) {
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      if (p.in === 'query') query.push(`${enc(p.name)}=${enc(text)}`);
      else if (p.in === 'header') headers[String(p.name).toLowerCase()] = text;
      else if (p.in === 'cookie') cookies.push(`${p.name}=${enc(text)}`);
      else pathText = pathText.replace(`{${p.name}}`, enc(text));
      continue;
    }
    const style = p.style ?? (p.in === 'query' || p.in === 'cookie' ? 'form' : 'simple');
    const explode = p.explode ?? style === 'form';
    if (p.in === 'path') pathText = pathText.replace(`{${p.name}}`, serialize(p.name, value, style, explode));
    else if (p.in === 'query') query.push(serialize(p.name, value, style, explode));
    else if (p.in === 'header') headers[String(p.name).toLowerCase()] = decodeURIComponent(serialize(p.name, value, 'simple', explode));
    else if (p.in === 'cookie') cookies.push(style === 'form' && (Array.isArray(value) || typeof value === 'object') ? serialize(p.name, value, 'form', false) : `${p.name}=${enc(String(value))}`);
  }
  const requirements: Array<Record<string, unknown>> = operation.op.security ?? document.security ?? [];
  if (options.credentials !== false && requirements.length > 0) {
    // One Authorization header carries one credential: a requirement of two such schemes cannot be met.
    const usesAuthorization = (name: string) => {
      const scheme: JsonNode = document.components?.securitySchemes?.[name] ?? {};
      return scheme.type === 'http' || scheme.type === 'oauth2' || scheme.type === 'openIdConnect';
    };
    const requirement = requirements.find((r) => Object.keys(r).filter(usesAuthorization).length <= 1) ?? requirements[0]!;
    const credentials = credentialsFor(document, requirement);
    Object.assign(headers, credentials.headers);
    query.push(...credentials.query);
    cookies.push(...credentials.cookies);
  }
  if (cookies.length > 0) headers.cookie = cookies.join('; ');
  const request: BuiltRequest = { url: `${pathText}${query.length ? `?${query.join('&')}` : ''}`, method: operation.method.toUpperCase(), headers };
  const requestBody = deref<JsonNode | undefined>(document, operation.op.requestBody);
  const [type, media] = Object.entries<JsonNode>(requestBody?.content ?? {})[0] ?? [];
  if (type && media && operation.method !== 'get' && operation.method !== 'head') {
    const schema = deref<JsonNode | undefined>(document, media.schema);
    const value = declaredExamples(document, media)[0] ?? sampleOf(document, schema, { direction: 'request', xml: isXmlType(type) });
    const sent = type.includes('*') ? (type.startsWith('text') ? 'text/plain' : 'application/octet-stream') : type;
    if (isMultipartType(sent)) {
      const form = new FormData();
      for (const [name, field] of Object.entries<unknown>((value && typeof value === 'object' ? value : {}) as Record<string, unknown>)) {
        const property = deref<JsonNode | undefined>(document, propertySchema(document, schema, name));
        if (isBinary(document, property)) form.append(name, new Blob([Buffer.from('file bytes')], { type: 'application/octet-stream' }), 'upload.bin');
        else if (Array.isArray(field) && isBinary(document, deref(document, property?.items))) for (let i = 0; i < 2; i++) form.append(name, new Blob([Buffer.from(`file ${i}`)]), `upload${i}.bin`);
        else if (Array.isArray(field)) for (const item of field) form.append(name, typeof item === 'object' ? JSON.stringify(item) : String(item));
        else form.append(name, typeof field === 'object' && field !== null ? JSON.stringify(field) : String(field));
      }
      request.body = form;
    } else if (isFormType(sent)) {
      const form = new URLSearchParams();
      for (const [name, field] of Object.entries<unknown>((value && typeof value === 'object' ? value : {}) as Record<string, unknown>)) {
        for (const item of [field].flat()) form.append(name, typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item));
      }
      request.body = form;
    } else if (isJsonType(sent)) {
      headers['content-type'] = sent;
      request.body = JSON.stringify(value ?? {});
    } else if (isTextType(sent)) {
      headers['content-type'] = sent;
      request.body = typeof value === 'string' ? value : JSON.stringify(value ?? '');
    } else {
      headers['content-type'] = sent;
      request.body = new Uint8Array(Buffer.from('some bytes'));
    }
  }
  return request;
}

function propertySchema(document: JsonNode, schema: JsonNode | undefined, name: string): unknown {
  if (!schema) return undefined;
  if (schema.properties?.[name]) return schema.properties[name];
  for (const part of schema.allOf ?? []) {
    const found = propertySchema(document, deref(document, part), name);
    if (found) return found;
  }
  return undefined;
}

function isBinary(document: JsonNode, schema: JsonNode | undefined): boolean {
  if (!schema) return false;
  return schema.format === 'binary' || schema.format === 'base64' || (schema.contentMediaType !== undefined && schema.type === 'string') || (schema.type === 'string' && schema.contentEncoding !== undefined);
}
