/**
 * The error mapper of a stub served from its contract alone: every failure in the document's own
 * declared response for its status (exact, its range, or `default`), in its media type; where the
 * operation declares nothing that fits, RFC 9457 problem details.
 */
import { STATUS_CODES } from 'node:http';
import type { MediaTypeObject, OpenAPI3 } from 'openapi-typescript';
import { responseKeyFor, type OperationInfo } from './contract.js';
import type { ErrorMapper, ErrorResponse, Failure } from './errors.js';
import { chooseMediaType, isJsonType, isTextType, isXmlType } from './media-types.js';
import { declaredExamples, sampleOf } from './schema-sample.js';
import { deref, listOperations } from './openapi/document.js';
import { isJsonObject, isSchemaNode, type SchemaNode } from './openapi/json-schema.js';

export const problemType = 'application/problem+json';

/** Fields an error body carries its sentence in, by the names APIs use, most telling first. */
const messageFields = ['message', 'detail', 'details', 'error_description', 'error', 'errorMessage', 'error_message', 'description', 'title', 'reason', 'msg'];

export interface ContractErrorOptions {
  /**
   * Put the failure's sentence into a declared JSON example's message field too (never its status).
   * The mock wants it: its refusals stand in for a real service's, which names what was wrong; a
   * stub served from its contract alone answers the author's example as written.
   */
  toldExamples?: boolean;
}

/**
 * The mapper for a document, used by the contract-only stub and the mock of a document without a
 * stub. A failure carries no Accept header: a declared error answer takes the first JSON type it
 * declares, else its first.
 */
export function contractErrors(document: OpenAPI3, options: ContractErrorOptions = {}): ErrorMapper {
  const operations = new Map(listOperations(document).map((operation) => [operation.id, operation]));
  return (failure) => {
    const operation = failure.operation ? operations.get(failure.operation.id) : undefined;
    const status = statusOf(failure);
    const key = operation ? responseKeyFor(operation, status) : undefined;
    if (!operation || key === undefined) return problem(status, failure);
    return declaredError(document, operation, key, status, failure, options);
  };
}

/**
 * The status answered. A missing credential is a 401 even where the framework folded it into a
 * declared 400 (a contract-only stub cannot ask the document's authors to declare one).
 */
function statusOf(failure: Failure): number {
  if ((failure.kind === 'unauthenticated' || failure.kind === 'forbidden') && failure.status !== 401 && failure.status !== 403) return 401;
  return failure.status;
}

export function problem(status: number, failure: Failure): ErrorResponse {
  const body = {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail: failure.message,
    ...(failure.issues?.length ? { errors: failure.issues.map((i) => ({ pointer: i.path, detail: i.message })) } : {}),
  };
  return { status, body, contentType: problemType };
}

function declaredError(document: OpenAPI3, operation: OperationInfo, key: string, status: number, failure: Failure, options: ContractErrorOptions): ErrorResponse {
  const response = deref(document, operation.op.responses?.[key]);
  const content = response?.content ?? {};
  const type = chooseMediaType(Object.keys(content), undefined);
  // Declared without a body: answered without one, as declared.
  if (type === undefined) return { status, body: undefined };
  const sent = type.includes('*') ? 'application/json' : type;
  const media: MediaTypeObject = content[type] ?? {};
  const schema = schemaNodeOf(document, media.schema);
  const example = declaredExamples(document, media)[0];
  if (isJsonType(sent)) {
    const told = example !== undefined && options.toldExamples ? toldExample(document, schema, example, failure.message) : example;
    const body = told !== undefined ? told : withMessage(document, schema, sampleOf(document, schema, { direction: 'response' }), failure.message, status);
    return body === undefined ? { status, body: undefined } : { status, body, contentType: sent };
  }
  if (isTextType(sent)) {
    if (typeof example === 'string') return { status, body: undefined, text: example, contentType: sent };
    if (isXmlType(sent)) {
      const value = withMessage(document, schema, sampleOf(document, schema, { direction: 'response' }), failure.message, status);
      const xml = schema?.xml;
      return { status, body: undefined, text: xmlOf(value, isJsonObject(xml) && typeof xml.name === 'string' ? xml.name : 'error'), contentType: sent };
    }
    return { status, body: undefined, text: failure.message, contentType: sent };
  }
  return { status, body: undefined, text: typeof example === 'string' ? example : '', contentType: sent };
}

/** The sample with the failure's sentence in its message-like string field and its status in an integer `status`/`code`, where the schema has them. */
function withMessage(document: OpenAPI3, schema: SchemaNode | undefined, sample: unknown, message: string, status: number): unknown {
  if (sample === null || typeof sample !== 'object' || Array.isArray(sample)) return sample;
  const properties = propertiesOf(document, schema);
  const out = { ...(sample as Record<string, unknown>) };
  const field = messageFields.find((name) => isPlainType(properties[name], 'string'));
  if (field) out[field] = message;
  for (const name of ['status', 'code', 'statusCode']) if (isPlainType(properties[name], 'integer') && name in out) out[name] = status;
  return out;
}

/** A declared example with the failure's sentence in a message-like string field it already has. */
function toldExample(document: OpenAPI3, schema: SchemaNode | undefined, example: unknown, message: string): unknown {
  if (example === null || typeof example !== 'object' || Array.isArray(example)) return example;
  const properties = propertiesOf(document, schema);
  const field = messageFields.find((name) => typeof (example as Record<string, unknown>)[name] === 'string' && isPlainType(properties[name], 'string'));
  return field ? { ...(example as Record<string, unknown>), [field]: message } : example;
}

function isPlainType(schema: SchemaNode | undefined, type: string): boolean {
  if (!schema || schema.enum || schema.const !== undefined || schema.pattern || schema.format) return false;
  return [schema.type].flat().includes(type);
}

/** The properties a schema declares, through `allOf` and `$ref`s. */
function propertiesOf(document: OpenAPI3, schema: SchemaNode | undefined, depth = 0): Record<string, SchemaNode | undefined> {
  if (!schema || depth > 8) return {};
  const own = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, s]) => [name, schemaNodeOf(document, s)]));
  const parts = (schema.allOf ?? []).map((part) => propertiesOf(document, schemaNodeOf(document, part), depth + 1));
  return Object.assign({}, ...parts, own);
}

/** The schema a subschema names, where it has keywords to read (not `true`/`false`). */
function schemaNodeOf(document: OpenAPI3, node: unknown): SchemaNode | undefined {
  const schema = deref(document, node);
  return isSchemaNode(schema) ? schema : undefined;
}

/** A JSON value as an XML document under one root element: objects as elements, arrays as repeated ones. */
export function xmlOf(value: unknown, root: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element(root, value)}\n`;
}

function element(name: string, value: unknown): string {
  const tag = /^[A-Za-z_][\w.-]*$/.test(name) ? name : 'item';
  if (Array.isArray(value)) return value.map((item) => element(tag, item)).join('');
  if (value !== null && typeof value === 'object') return `<${tag}>${Object.entries(value).map(([key, item]) => element(key, item)).join('')}</${tag}>`;
  if (value === undefined || value === null) return `<${tag}/>`;
  return `<${tag}>${String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</${tag}>`;
}
