/**
 * Prism's libraries in this process, one instance per service, serving a copy of the service's bundle.
 *
 * Prism serves an example as the body, and cannot write an object as `text/*`: an event stream's
 * examples are frames (objects, like its schema), so Prism gets a copy of the bundle whose stream
 * examples are the raw wire text (the media type's `x-wire-example`, else its frames formatted), and
 * whose stream schemas say so (Prism would otherwise flag its own answer in `sl-violations`).
 * Prism answers that text as one body; the gateway writes it on frame by frame (mock/streams.ts).
 * (One more difference, for a Prism bug: see the end of `prismDocument`.)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// First: Prism's schema sampler then finds faker's English instance alone (faker-english.ts).
import './faker-english.js';
import { createLogger } from '@stoplight/prism-core';
import { createInstance, getHttpOperationsFromSpec, ProblemJsonError, resetJSONSchemaGenerator, UNPROCESSABLE_ENTITY, type IHttpConfig, type IHttpRequest } from '@stoplight/prism-http';
import type { IHttpOperation } from '@stoplight/types';
import { XMLBuilder } from 'fast-xml-parser';
import type { JSONSchemaFakerOptions } from 'json-schema-faker';
import type { MediaTypeObject, OpenAPI3, SchemaObject } from 'openapi-typescript';
import { mountPathOf, deref, HTTP_METHODS } from '../server-stubs/lib/openapi/document.js';
import { isJsonObject, isSchemaNode } from '../server-stubs/lib/openapi/json-schema.js';
import { eventStreamText } from '../server-stubs/lib/contract-answers.js';
import { essence, isJsonType, isXmlType } from '../server-stubs/lib/media-types.js';
import { parsePrefer } from '../server-stubs/lib/prefer.js';
import { PRISM_ERRORS, type PrismProblem } from './prism-problems.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where the bundles are unless told: the repository's generated/. */
export const defaultBundlesDir = path.join(root, 'generated');

/**
 * Services with a bundle: `<dir>/<slug>/openapi.json`. A bundle that cannot be read or parsed is
 * still listed (at `/<slug>`), with the problem, so it is reported rather than stopping the rest.
 */
export function bundledServices(dir = defaultBundlesDir): Array<{ slug: string; bundle: string; basePath: string; problem?: string }> {
  return readdirSync(dir)
    .filter((slug) => existsSync(path.join(dir, slug, 'openapi.json')))
    .sort()
    .map((slug) => {
      const bundle = path.join(dir, slug, 'openapi.json');
      try {
        return { slug, bundle, basePath: mountPathOf(slug, JSON.parse(readFileSync(bundle, 'utf8'))) };
      } catch (error) {
        return { slug, bundle, basePath: `/${slug}`, problem: `${bundle} is not a JSON document: ${(error as Error).message}` };
      }
    });
}

/**
 * The bundle as Prism should serve it: every `text/event-stream` media type's examples replaced by
 * one example, the wire text (Prism would answer 500 for a stream it has no text for). `undefined` when the bundle has no stream to rewrite.
 */
export function prismDocument(document: OpenAPI3): OpenAPI3 | undefined {
  const copy = structuredClone(document);
  let changed = false;
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!isJsonObject(node)) return;
    // Whatever holds it (a response, a request body, a header), a `content` map's members are Media Type objects.
    const stream = isJsonObject(node.content) ? (node.content['text/event-stream'] as MediaTypeObject | undefined) : undefined;
    if (stream) {
      // Its frames as the stubs write them; without examples, one frame sampled from the schema.
      const wire = eventStreamText(copy, stream, deref(copy, stream.schema));
      delete stream.example;
      stream.examples = { wire: { summary: 'The raw wire text', value: wire } };
      // Prism checks what it answers against the schema: here a text, not one frame.
      stream.schema = { type: 'string' };
      changed = true;
    }
    for (const value of Object.values(node)) walk(value);
  };
  walk(copy.paths);
  walk(copy.webhooks);
  walk(copy.components?.responses);
  // Prism (5.14) throws on some requests its parameter readers trip on: one without an optional
  // header whose schema is an array or an object (its simple-style reader splits the missing value),
  // one with an object in a path segment, any to an operation with a space- or pipe-delimited
  // parameter that is no array. Thrown, that is a 500 (createPrismService); its copy reads such
  // parameters as text instead, and the front still checks that a required one is sent.
  const items = [...Object.values(copy.paths ?? {}), ...Object.values(copy.webhooks ?? {})].map((item) => deref(copy, item));
  const parameters = items.flatMap((item) => [
    ...(item?.parameters ?? []),
    ...HTTP_METHODS.flatMap((method) => deref(copy, item?.[method])?.parameters ?? []),
  ]);
  for (const parameter of [...parameters, ...Object.values(copy.components?.parameters ?? {})]) {
    const p = deref(copy, parameter);
    const type = deref(copy, p?.schema)?.type;
    const structured = type === 'array' || type === 'object';
    if (p?.in === 'path' && (structured || (p.style !== undefined && p.style !== 'simple'))) {
      // Its path readers fail on these even when present (an object, a label or matrix segment):
      // a simple-style value of any type to Prism (which reads `a,b` as a list even for a string).
      // (`{}`: openapi-typescript's SchemaObject has no form without a `type`.)
      p.schema = {} as SchemaObject;
      delete p.style;
      delete p.explode;
      changed = true;
    } else if (structured && p?.in === 'header' && !p.required) {
      p.schema = { type: 'string' };
      changed = true;
    }
    if ((p?.style === 'spaceDelimited' || p?.style === 'pipeDelimited') && type !== 'array') {
      p.style = 'form';
      p.schema = { type: 'string' };
      changed = true;
    }
  }
  // The same reader serves form and multipart bodies whose `encoding` gives a property such a style.
  for (const item of items) {
    for (const method of HTTP_METHODS) {
      const body = deref(copy, deref(copy, item?.[method])?.requestBody);
      for (const rawMedia of Object.values(body?.content ?? {})) {
        const media = deref(copy, rawMedia);
        const schema = deref(copy, media?.schema);
        const properties = isSchemaNode(schema) ? (schema.properties ?? {}) : {};
        for (const [name, encoding] of Object.entries(media?.encoding ?? {})) {
          const delimited = encoding?.style === 'spaceDelimited' || encoding?.style === 'pipeDelimited';
          const property = deref(copy, properties[name]);
          if (delimited && (isSchemaNode(property) ? property.type : undefined) !== 'array') {
            delete media.encoding?.[name];
            changed = true;
          }
        }
      }
    }
  }
  return changed ? copy : undefined;
}

/** One of Prism's findings on a request or on its own answer, as its HTTP server reports them. */
export interface Violation {
  /** `request` or `response`, then the path within it */
  location: string[];
  severity: string;
  code?: string | number;
  message: string;
}

/** What Prism answers a request with. */
export type PrismResult =
  | { kind: 'answer'; status: number; headers: Record<string, string>; body: string | undefined; violations: Violation[] }
  /** Prism's own refusal, in its problem+json shape (`type` under Prism's errors page) */
  | { kind: 'problem'; status: number; headers: Record<string, string>; problem: PrismProblem };

export interface PrismRequest {
  method: string;
  /** the path below the service's base path, with the query */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface PrismService {
  /** Never rejects: whatever Prism throws is a refusal of its own (a 500 problem). */
  answer(request: PrismRequest): Promise<PrismResult>;
}

/**
 * What `prism mock` is told unless asked otherwise: check requests, answers and credentials, answer
 * examples. Its findings on its own answers only ever reach the log (createPrismService).
 */
const config: IHttpConfig = {
  mock: { dynamic: false },
  checkSecurity: true,
  validateRequest: true,
  validateResponse: true,
  errors: false,
  upstreamProxy: undefined,
  isProxy: false,
};

/** Prism logs every request; the gateway reports what matters (its violations) itself. */
const logger = createLogger('MOCK', { level: 'silent' });

export interface PrismServiceOptions {
  /**
   * Prism checks each of its answers against the contract: its findings change nothing it answers
   * (the front's validating proxy is what holds an answer to the contract) and are only logged, so
   * without a log they are not worked out (compiling every response schema Prism answers from).
   */
  checkAnswers: boolean;
}

/**
 * Prism's instance for a service. Its HTTP server (`prism mock`) is not used: it lets an error thrown
 * while answering escape as an unhandled rejection, which in one process would end every service's
 * mock (and Prism 5.14 throws on some requests). Here each request's promise is Prism's call alone.
 */
export async function createPrismService(served: OpenAPI3, options: PrismServiceOptions = { checkAnswers: true }): Promise<PrismService> {
  // Prism dereferences the document it is given in place: a copy, the served one stays as it is.
  const operations: IHttpOperation[] = await getHttpOperationsFromSpec(structuredClone(served));
  if (operations.length === 0) throw new Error('No operations found in the document.');
  const settings: IHttpConfig = { ...config, validateResponse: options.checkAnswers };
  const prism = createInstance(settings, { logger });
  const fakerOptions = Object.entries<unknown>(served['x-json-schema-faker'] ?? {});
  const candidatesOf = routeCandidates(operations);
  return {
    answer: async (request) => {
      try {
        const input = prismInput(request);
        const preferences = requestPreferences(input);
        if ('problem' in preferences) return preferences.problem;
        // json-schema-faker's options are one per process; a document's own apply to its answers.
        if (fakerOptions.length > 0 || configuredFaker) applyFakerOptions(fakerOptions);
        const requestConfig = { ...settings, mock: { ...settings.mock, ...preferences } };
        const candidates = candidatesOf(input);
        let result = await prism.request(input, candidates, requestConfig)();
        // Where the candidates hold no route, Prism's answer depends on all the others (a 405 rather than a 404): it is asked again with them all.
        if (result._tag === 'Left' && candidates !== operations && unrouted(result.left)) result = await prism.request(input, operations, requestConfig)();
        if (result._tag === 'Left') return problemOf(result.left);
        const { output, validations } = result.right;
        const headers = lowerCased(output.headers ?? {});
        const violations = [
          ...validations.input.map((v) => violation('request', v)),
          ...validations.output.map((v) => violation('response', v)),
        ];
        return { kind: 'answer', status: output.statusCode, headers, body: serialized(output.body, headers['content-type']), violations };
      } catch (error) {
        return problemOf(error as Error);
      }
    },
  };
}

/**
 * The operations Prism's router could pick for a request, found without it: those of the request's
 * method whose path has as many segments as the request's and whose first segment, unless it is a
 * template, is the request's (Prism matches segment by segment; any other is no match). Prism's
 * router scores and sorts every operation it is given on every request, which for a contract of
 * many operations was a good part of each answer's cost; among these it picks what it would pick
 * among them all, as its sort is stable and the others never match. All of them where the pick
 * could depend on the rest: a request naming a server (`__server`), or a document with a path
 * Prism cannot split (every request is then Prism's error, as before).
 */
function routeCandidates(operations: IHttpOperation[]): (input: IHttpRequest) => IHttpOperation[] {
  if (operations.some((o) => !o.path.startsWith('/'))) return () => operations;
  const key = (method: string, path: string) => `${method.toLowerCase()} ${path.split('/').length}`;
  const byShape = new Map<string, Array<{ operation: IHttpOperation; first: string; templated: boolean }>>();
  for (const operation of operations) {
    // Decoded and tested as Prism's matchPath does (router/matchPath.js).
    const first = decodedSegment(operation.path.split('/')[1]!);
    const entries = byShape.get(key(operation.method, operation.path)) ?? [];
    entries.push({ operation, first, templated: /{(.+)}/.test(first) });
    byShape.set(key(operation.method, operation.path), entries);
  }
  return (input) => {
    if (input.url.baseUrl !== undefined || !input.url.path.startsWith('/')) return operations;
    const first = decodedSegment(input.url.path.split('/')[1]!);
    const candidates = (byShape.get(key(input.method, input.url.path)) ?? []).filter((e) => e.templated || e.first === first).map((e) => e.operation);
    return candidates.length > 0 ? candidates : operations;
  };
}

function decodedSegment(segment: string): string {
  try {
    return segment && decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Prism's router found no operation for the path among those it was given. */
function unrouted(error: Error): boolean {
  return error.name.endsWith('#NO_PATH_MATCHED_ERROR') || error.name.endsWith('#NO_RESOURCE_PROVIDED_ERROR');
}

/** The request as Prism's HTTP server hands it to Prism. */
function prismInput(request: PrismRequest): IHttpRequest {
  const { pathname, searchParams } = new URL(request.url, 'http://mock.invalid');
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(searchParams.keys())) {
    const values = searchParams.getAll(name);
    query[name] = values.length === 1 ? values[0]! : values;
  }
  const contentType = [request.headers['content-type'] ?? ''].flat()[0]!;
  let body: unknown = null;
  if (request.body.length > 0) {
    body = request.body.toString('utf8');
    if (isJsonType(essence(contentType))) {
      try {
        body = JSON.parse(body as string);
      } catch {
        // Left as text: Prism's request checks say what is wrong with it.
      }
    }
  }
  const headers = Object.fromEntries(Object.entries(request.headers).flatMap(([name, value]) => (value === undefined ? [] : [[name, [value].flat().join(', ')]])));
  return { method: request.method.toLowerCase() as IHttpRequest['method'], url: { path: pathname, baseUrl: searchParams.get('__server') ?? undefined, query }, headers, body };
}

/** `Prefer: code=…, example=…, dynamic=…, seed=…` (else the same `__`-named query parameters), as Prism reads them. */
function requestPreferences(input: IHttpRequest): { code?: number; exampleKey?: string; dynamic?: boolean; seed?: string } | { problem: PrismResult } {
  const header = input.headers?.prefer;
  const asked = header !== undefined ? parsePrefer(header) : new Map(Object.entries(input.url.query ?? {}).flatMap(([name, value]) => (name.startsWith('__') ? [[name.slice(2), [value].flat()[0]!]] : [])));
  const code = asked.get('code');
  const dynamic = asked.get('dynamic');
  const refused = (detail: string) => ({ problem: problemOf(ProblemJsonError.fromTemplate(UNPROCESSABLE_ENTITY, detail)) });
  if (code !== undefined && !/^\d{3}$/.test(code)) return refused(`code: cannot decode "${code}", should be a number`);
  if (dynamic !== undefined && dynamic !== 'true' && dynamic !== 'false') return refused(`dynamic: cannot decode "${dynamic}", should be a boolean`);
  return {
    ...(code !== undefined && { code: Number(code) }),
    ...(asked.has('example') && { exampleKey: asked.get('example') }),
    ...(dynamic !== undefined && { dynamic: dynamic === 'true' }),
    ...(asked.has('seed') && { seed: asked.get('seed') }),
  };
}

let configuredFaker = false;

// Prism's copy: the package's CommonJS build, which an ESM import would not share (a second instance).
const { JSONSchemaFaker } = createRequire(import.meta.url)('json-schema-faker') as typeof import('json-schema-faker');

/** json-schema-faker's options as a document's `x-json-schema-faker` sets them (as `prism mock` does at start). */
function applyFakerOptions(options: Array<[string, unknown]>) {
  resetJSONSchemaGenerator();
  for (const [name, value] of options) {
    if (name === 'locale') continue;
    JSONSchemaFaker.option(name.replace(/[-_](\w)/g, (_, c: string) => c.toUpperCase()) as keyof JSONSchemaFakerOptions, value as never);
  }
  configuredFaker = options.length > 0;
}

function violation(location: 'request' | 'response', diagnostic: { path?: Array<string | number>; severity: number; code?: string | number; message: string }): Violation {
  return {
    location: [location, ...(diagnostic.path ?? []).map(String)],
    severity: ['Error', 'Warning', 'Information', 'Hint'][diagnostic.severity] ?? 'Error',
    code: diagnostic.code,
    message: diagnostic.message,
  };
}

/** An answer's body as Prism's HTTP server writes it, by its media type. */
function serialized(body: unknown, contentType: string | undefined): string | undefined {
  if (body === undefined || (body === null && !contentType)) return undefined;
  const type = essence(contentType ?? '');
  if (isJsonType(type)) return JSON.stringify(body);
  if (typeof body === 'string') return body;
  if (isXmlType(type)) return new XMLBuilder({}).build({ xml: body }) as string;
  throw Object.assign(new Error(`Cannot serialise complex objects as ${type || 'an untyped body'}`), {
    name: `${PRISM_ERRORS}NO_COMPLEX_OBJECT_TEXT`,
    status: 500,
    detail: `Cannot serialise complex objects as ${type || 'an untyped body'}`,
  });
}

/** A refusal of Prism's, or an error it threw (a `TypeError`, say), as its problem body. */
function problemOf(error: Error & { status?: number; additional?: { headers?: Record<string, string> } }): Extract<PrismResult, { kind: 'problem' }> {
  const problem = ProblemJsonError.toProblemJson(error) as PrismProblem & { validation?: unknown };
  if (!problem.type.startsWith(PRISM_ERRORS)) problem.type = `${PRISM_ERRORS}UNKNOWN`;
  return { kind: 'problem', status: error.status ?? 500, headers: lowerCased(error.additional?.headers ?? {}), problem };
}

function lowerCased(headers: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), String(value)]));
}
