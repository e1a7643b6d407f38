import type { OpenAPI3, ReferenceObject, ResponseObject } from 'openapi-typescript';
import { banner } from '../lib/banner.js';
import { deref, escapePointerToken, listOperations, localRef, pointerTokens, requestBodyOf, valueAt, type Operation } from '../../server-stubs/lib/openapi/document.js';
import { schemaAt, isSchemaNode, type Schema } from '../../server-stubs/lib/openapi/json-schema.js';
import { identifierFor } from '../lib/identifiers.js';
import { pascalCase } from '../lib/project.js';
import { withoutRequire } from './schema-types.js';

const EVENT_STREAM = 'text/event-stream';
/** Where the generated module finds its runtime, relative to generated/<slug>/. */
const RUNTIME = '../../clients/event-stream/index.js';

type DataEncoding = 'json' | 'text' | 'json-or-text';

/** What the generator decides per stream operation from the contract. */
export interface StreamOperation {
  operation: Operation;
  /**
   * An identifier for the operation (its operationId, mapped where that is not an identifier:
   * `perform-search` -> `PerformSearch`): the name of its frame validator.
   */
  key: string;
  /** the reader's name: the key when it starts with `stream`, else `<key>Stream` */
  name: string;
  status: string;
  /** JSON Pointer tokens of the frame schema in the bundle, `$ref`s of responses followed */
  schemaAt: string[];
  data: DataEncoding;
  /** frames may carry an `id`: the reader resumes with Last-Event-ID (clients/event-stream/index.ts) */
  resumable: boolean;
  /** the 2xx answers JSON or a stream by a boolean `stream` in the JSON body: the reader sends `stream: true` */
  streamFlag: boolean;
  body: 'none' | 'optional' | 'required';
  /** some path, query or header parameter is required */
  paramsRequired: boolean;
}

export function streamOperations(document: OpenAPI3): StreamOperation[] {
  const out: StreamOperation[] = [];
  const taken = new Set<string>();
  for (const operation of listOperations(document)) {
    for (const [status, raw] of Object.entries(operation.op.responses ?? {})) {
      if (!/^2/.test(status)) continue;
      const at = locateResponse(document, operation, status, raw);
      const response = deref(document, raw);
      const media = response?.content?.[EVENT_STREAM];
      if (!media?.schema) continue;
      const frame = deref(document, media.schema);
      const requestBody = requestBodyOf(document, operation);
      const bodySchema = schemaAt(document, deref(document, requestBody?.content?.['application/json'])?.schema);
      const streamFlag = Boolean(response?.content?.['application/json']) && isBoolean(document, bodySchema?.properties?.stream);
      // Without an operationId, the method and path name it: `get /tocks` -> `getTocks`.
      const wanted = operation.op.operationId !== undefined ? operation.id : `${operation.method} ${operation.path}`;
      const mapped = identifierFor(wanted, taken);
      const key = mapped === undefined || mapped === wanted ? (mapped ?? `stream${out.length + 1}`) : mapped[0]!.toLowerCase() + mapped.slice(1);
      taken.add(key);
      out.push({
        operation,
        key,
        name: /^stream[A-Z]/.test(key) ? key : `${key}Stream`,
        status,
        schemaAt: [...at, 'content', EVENT_STREAM, 'schema'],
        data: dataEncoding(document, frame),
        resumable: variants(document, frame).some((v) => isSchemaNode(v) && v.properties?.id !== undefined),
        streamFlag,
        body: !requestBody ? 'none' : requestBody.required ? 'required' : 'optional',
        paramsRequired: operation.op.parameters.some((p) => p.required && ['path', 'query', 'header'].includes(p.in)),
      });
      break;
    }
  }
  return out;
}

/** Where the response really is in the bundle: a response component when the operation `$ref`s one. */
function locateResponse(document: OpenAPI3, operation: Operation, status: string, raw: ResponseObject | ReferenceObject): string[] {
  let at = ['paths', operation.path, operation.method, 'responses', status];
  let node: unknown = raw;
  for (let hops = 0, ref = localRef(node); ref !== undefined && hops < 20; hops++, ref = localRef(node)) {
    at = pointerTokens(ref);
    node = valueAt(document, at);
  }
  return at;
}

/**
 * A schema's alternatives (oneOf/anyOf, nested), each with `$ref`s followed: an object, `true`/`false`,
 * or undefined where a keyword is not given (or holds no schema).
 */
function variants(document: OpenAPI3, schema: unknown): Array<Schema | undefined> {
  const s = deref(document, schema);
  if (!isSchemaNode(s)) return [typeof s === 'boolean' ? s : undefined];
  const alternatives = [...(s.oneOf ?? []), ...(s.anyOf ?? [])];
  return alternatives.length === 0 ? [s] : alternatives.flatMap((v) => variants(document, v));
}

/** The JSON types a schema allows, as far as `type`, `const` and `enum` tell; undefined when unknown. */
function jsonTypes(document: OpenAPI3, schema: unknown): Set<string> | undefined {
  const found = new Set<string>();
  for (const v of variants(document, schema)) {
    // `true`, absent and (never written in a frame) `false` tell nothing about the type
    if (!isSchemaNode(v)) return undefined;
    if ('const' in v) found.add(typeOf(v.const));
    else if (Array.isArray(v.enum)) for (const e of v.enum) found.add(typeOf(e));
    else if (typeof v.type === 'string') found.add(v.type === 'integer' ? 'number' : v.type);
    else if (Array.isArray(v.type)) for (const t of v.type) found.add(t === 'integer' ? 'number' : t);
    else if (v.properties || v.required) found.add('object');
    else return undefined;
  }
  return found;
}

function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

function dataEncoding(document: OpenAPI3, frame: unknown): DataEncoding {
  const types = new Set<string>();
  for (const v of variants(document, frame)) {
    const kinds = jsonTypes(document, isSchemaNode(v) ? v.properties?.data : undefined);
    if (!kinds) return 'json-or-text';
    for (const k of kinds) types.add(k);
  }
  const text = types.has('string');
  const json = [...types].some((t) => t !== 'string');
  return text && json ? 'json-or-text' : text ? 'text' : 'json';
}

function isBoolean(document: OpenAPI3, schema: unknown): boolean {
  const types = schema === undefined ? undefined : jsonTypes(document, schema);
  return types !== undefined && types.has('boolean') && [...types].every((t) => t === 'boolean' || t === 'null');
}

export interface StreamFiles {
  /** file name in generated/<slug>/ -> contents */
  [name: string]: string;
}

/**
 * `streams.gen.ts`: a typed reader per operation answering `text/event-stream`, plus
 * `streams.validators.gen.js` (+ `.d.ts`): the frame validators as ajv standalone code, so the
 * browser needs no ajv compiler. Undefined when the service has no stream operation.
 */
export async function generateStreams(slug: string, document: OpenAPI3): Promise<StreamFiles | undefined> {
  const streams = streamOperations(document);
  if (streams.length === 0) return undefined;
  const source = `generated/${slug}/openapi.json`;
  return {
    'streams.gen.ts': generateModule(slug, document, streams, source),
    'streams.validators.gen.js': await generateValidators(slug, document, streams, source),
    'streams.validators.gen.d.ts': `${banner(`${source} (ajv standalone)`)}type Check = ((data: unknown) => boolean) & { errors?: Array<{ instancePath?: string; message?: string }> | null };\n\n${streams
      .map((s) => `export declare const ${s.key}: Check;`)
      .join('\n')}\n`,
  };
}

async function generateValidators(slug: string, document: OpenAPI3, streams: StreamOperation[], source: string): Promise<string> {
  try {
    return await standaloneValidators(slug, document, streams, source, true);
  } catch {
    // ajv's discriminator wants a `const` tag in every variant; a contract whose oneOf does not
    // have one still gets validators, only with the errors of every variant.
    return standaloneValidators(slug, document, streams, source, false);
  }
}

async function standaloneValidators(slug: string, document: OpenAPI3, streams: StreamOperation[], source: string, discriminator: boolean): Promise<string> {
  const { createAjv } = await import('../../server-stubs/lib/openapi/ajv.js');
  const { default: standaloneCode } = await import('ajv/dist/standalone/index.js');
  const id = `https://contracts.platform.example/bundle/${slug}.json`;
  // The bundle is an OpenAPI document, not a schema: its other keywords are fine here (strict off).
  // First error only, and shared functions for shared schemas: the module ships to browsers, so size counts.
  // `discriminator` picks the variant by its tag, so a bad frame is reported against its own variant.
  const ajv = createAjv({ code: { source: true, esm: true, lines: true }, strict: false, allErrors: false, inlineRefs: false, discriminator });
  ajv.addSchema(withoutAnnotations(document, discriminator) as Record<string, unknown>, id);
  const refs: Record<string, string> = {};
  for (const s of streams) {
    const frameId = `${id}/streams/${s.key}`;
    ajv.addSchema({ $id: frameId, $ref: `${id}#/${s.schemaAt.map(escapePointerToken).join('/')}` });
    refs[s.key] = frameId;
  }
  const code = (standaloneCode as unknown as (a: unknown, refs: Record<string, string>) => string)(ajv, refs);
  return `${banner(`${source} (ajv standalone)`)}${withoutRequire(code)}\n`;
}

const ANNOTATIONS = new Set(['title', 'description', 'summary', 'examples', 'example', '$comment', 'externalDocs', 'xml']);
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'schemas', 'paths', 'responses', 'content']);

/**
 * The document without the annotations the validators would otherwise carry as text (ajv's code
 * keeps schema objects it looks properties up in): descriptions, examples, titles, `x-` extensions.
 * Discriminators lose their `mapping`, which ajv does not take (the variants' `const` tags say the
 * same), or go entirely when ajv is not to use them. Keys of name maps (`properties` and the like)
 * are names, not keywords, and are kept.
 */
function withoutAnnotations(node: unknown, discriminator: boolean, names = false): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutAnnotations(item, discriminator));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!names && (ANNOTATIONS.has(key) || key.startsWith('x-'))) continue;
    if (!names && key === 'discriminator') {
      if (discriminator && value && typeof value === 'object') out[key] = { propertyName: (value as { propertyName?: unknown }).propertyName };
      continue;
    }
    out[key] = key === 'enum' || key === 'const' || key === 'default' ? value : withoutAnnotations(value, discriminator, !names && NAME_MAPS.has(key));
  }
  return out;
}

function generateModule(slug: string, document: OpenAPI3, streams: StreamOperation[], source: string): string {
  const service = pascalCase(slug);
  const baseUrl: string = document.servers?.[0]?.url ?? '';
  const readers = streams.map((s) => reader(s));
  return `${banner(source)}
import { ajvValidator, buildUrl, mergeHeaders, readStream, type ErrorBodyOf, type StreamConnectionOptions } from '${RUNTIME}';
import * as validators from './streams.validators.gen.js';
import type { ${[...new Set(streams.map((s) => (s.operation.op.operationId !== undefined ? 'operations' : 'paths')))].sort().join(', ')} } from './types.gen.js';

export { StreamConnectionError, StreamFrameError, StreamHttpError, type StreamConnectionOptions } from '${RUNTIME}';

/** The first \`servers\` URL of the contract: the default \`baseUrl\`. */
const defaultBaseUrl = ${JSON.stringify(baseUrl)};
${readers.join('')}
/**
 * The readers with connection options bound once (baseUrl, headers, fetch), as \`create${service}Client\`
 * binds them for the JSON operations; headers given per call are added to these.
 */
export function create${service}Streams(defaults: StreamConnectionOptions = {}) {
  const bind = <I extends StreamConnectionOptions>(init: I): I => ({ ...defaults, ...init, headers: mergeHeaders(defaults.headers, init.headers) });
  return {
${streams.map((s) => `    ${s.name}: (init: ${typeName(s)}Init) => ${s.name}(bind(init)),`).join('\n')}
  };
}

export type ${service}Streams = ReturnType<typeof create${service}Streams>;
`;
}

function typeName(s: StreamOperation): string {
  return pascalCase(s.name.replace(/([a-z0-9])([A-Z])/g, '$1-$2'));
}

function reader(s: StreamOperation): string {
  const { operation } = s;
  // An operation without an operationId is not in `operations`: its type is reached by path and method.
  const op = operation.op.operationId !== undefined ? `operations[${JSON.stringify(operation.id)}]` : `paths[${JSON.stringify(operation.path)}][${JSON.stringify(operation.method)}]`;
  const T = typeName(s);
  const frameType = `${op}['responses'][${JSON.stringify(Number(s.status))}]['content']['text/event-stream']`;
  const bodyType = `NonNullable<${op}['requestBody']>['content']['application/json']`;
  const fields: string[] = [];
  const hasParams = operation.op.parameters.some((p) => ['path', 'query', 'header'].includes(p.in));
  if (hasParams) fields.push(`  params${s.paramsRequired ? '' : '?'}: ${op}['parameters'];`);
  if (s.body !== 'none') {
    const type = s.streamFlag ? `Omit<${bodyType}, 'stream'> & { stream?: true }` : bodyType;
    fields.push(`  body${s.body === 'required' ? '' : '?'}: ${type};`);
  }
  const params = hasParams ? (s.paramsRequired ? 'init.params' : '(init.params ?? {})') : '{}';
  const body = s.body === 'none' ? '' : s.streamFlag ? '\n    body: JSON.stringify({ ...init.body, stream: true }),' : '\n    body: init.body === undefined ? undefined : JSON.stringify(init.body),';
  const summary = operation.op.summary ? `${operation.op.summary}: ` : '';
  const how = [
    s.streamFlag ? 'Sends `stream: true`, so the answer is the event stream.' : '',
    s.resumable ? 'Frames carry ids: a lost connection is resumed with `Last-Event-ID`.' : 'Never reconnects: the contract gives frames no `id` to resume from.',
  ]
    .filter(Boolean)
    .join(' ');
  return `
/** A frame of \`${operation.label}\` (${operation.id}), \`data\` parsed: ${frameNote(s)}. */
export type ${T}Frame = ${frameType};

/** The JSON error bodies of \`${operation.label}\` (the \`body\` of a StreamHttpError). */
export type ${T}ErrorBody = ErrorBodyOf<${op}>;

export interface ${T}Init extends StreamConnectionOptions {
${fields.join('\n')}
}

/**
 * ${summary}\`${operation.label}\` read as typed frames, each checked against the contract.
 * ${how}
 * Throws StreamHttpError (not 2xx: \`status\`, \`body\`), StreamFrameError (a frame off the contract),
 * StreamConnectionError, or the signal's reason when aborted.
 */
export function ${s.name}(init: ${T}Init): AsyncGenerator<${T}Frame, void, undefined> {
  return readStream<${T}Frame>({
    ...init,
    operation: ${JSON.stringify(operation.id)},
    method: ${JSON.stringify(operation.method.toUpperCase())},
    url: buildUrl(init.baseUrl ?? defaultBaseUrl, ${JSON.stringify(operation.path)}, ${params}),
    headers: mergeHeaders(init.headers${hasParams && operation.op.parameters.some((p) => p.in === 'header') ? `, ${params}.header` : ''}),${body}
    data: ${JSON.stringify(s.data)},
    validate: ajvValidator(validators.${s.key}),
    resumable: ${s.resumable},
  });
}
`;
}

function frameNote(s: StreamOperation): string {
  return s.data === 'json' ? 'JSON' : s.data === 'text' ? 'text' : 'JSON, or text where it does not parse';
}
