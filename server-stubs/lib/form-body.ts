/**
 * Form bodies: `multipart/form-data` parsed with busboy (fields, and files as bytes), and the fields
 * of forms and multipart bodies, which arrive as text, read as the types their schema declares, as
 * the validator reads query parameters.
 */
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import type { OpenAPI3 } from 'openapi-typescript';
import type { Contract } from './contract.js';
import { failureOf } from './failures.js';
import { essence, isFormType, isMultipartType } from './media-types.js';
import { deref } from './openapi/document.js';
import { isSchemaNode, type SchemaNode } from './openapi/json-schema.js';

const require = createRequire(import.meta.url);

/** The part of busboy's API used here (it ships no types). */
interface Busboy {
  on(event: 'field', listener: (name: string, value: string) => void): this;
  on(event: 'file', listener: (name: string, stream: Readable & { truncated?: boolean }, info: { filename?: string; mimeType: string }) => void): this;
  on(event: 'close', listener: () => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  on(event: 'partsLimit' | 'filesLimit' | 'fieldsLimit', listener: () => void): this;
}
const busboy = require('busboy') as (options: { headers: Request['headers']; limits: Record<string, number> }) => Busboy & NodeJS.WritableStream;

/** A file part of a multipart body. */
export interface UploadedFile {
  field: string;
  filename: string | undefined;
  mimeType: string;
  data: Buffer;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** the file parts of a multipart body; each also stands in the body as an empty string, as the validator expects of `format: binary` */
    files?: UploadedFile[];
  }
}

const limits = { fileSize: 5 * 1024 * 1024, files: 20, fields: 1000, parts: 1020, fieldSize: 1024 * 1024 };

/** Parses a multipart body of an operation that declares one; any other request passes untouched. */
export function parseMultipart(req: Request, _res: Response, next: NextFunction) {
  if (req.body !== undefined || !isMultipartType(req.headers['content-type'] ?? '')) return next();
  let parser: ReturnType<typeof busboy>;
  try {
    parser = busboy({ headers: req.headers, limits });
  } catch (error) {
    return next(failureOf('validation', 400, `Malformed multipart body: ${(error as Error).message}`));
  }
  const fields: Record<string, unknown> = Object.create(null);
  const files: UploadedFile[] = [];
  let failed = false;
  const fail = (failure: ReturnType<typeof failureOf>) => {
    if (failed) return;
    failed = true;
    req.unpipe(parser);
    req.resume();
    next(failure);
  };
  const add = (name: string, value: unknown) => {
    const present = fields[name];
    fields[name] = present === undefined ? value : Array.isArray(present) ? [...present, value] : [present, value];
  };
  parser.on('field', (name, value) => add(name, value));
  parser.on('file', (name, stream, info) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      if (stream.truncated) return fail(failureOf('payload_too_large', 413, `File ${name} is over ${limits.fileSize} bytes`));
      files.push({ field: name, filename: info.filename, mimeType: info.mimeType, data: Buffer.concat(chunks) });
      add(name, '');
    });
  });
  for (const event of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) parser.on(event, () => fail(failureOf('payload_too_large', 413, 'Too many parts in the multipart body')));
  parser.on('error', (error) => fail(failureOf('validation', 400, `Malformed multipart body: ${error.message}`)));
  parser.on('close', () => {
    if (failed) return;
    req.body = fields;
    req.files = files;
    next();
  });
  req.pipe(parser);
}

/**
 * Form and multipart fields as their schema's types: `"3"` an integer, `"true"` a boolean, a field
 * sent once where an array is declared a one-item array, JSON text where an object is declared its value.
 */
export function coerceFormFields(contract: Contract) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const type = req.headers['content-type'];
    // Most requests are JSON or have no body: they leave at the first test.
    if (!type || req.body === null || typeof req.body !== 'object' || !(isFormType(type) || isMultipartType(type))) return next();
    const requestBody = req.matched && deref(contract.document, req.matched.operation.op.requestBody);
    if (!requestBody?.content) return next();
    const declared = Object.entries(requestBody.content).find(([name]) => essence(name) === essence(type))?.[1];
    const media = declared && deref(contract.document, declared);
    const schema = deref(contract.document, media?.schema);
    if (isSchemaNode(schema)) req.body = coerceObject(contract.document, schema, { ...(req.body as Record<string, unknown>) });
    next();
  };
}

function coerceObject(document: OpenAPI3, schema: SchemaNode, fields: Record<string, unknown>): Record<string, unknown> {
  const properties = propertiesOf(document, schema);
  for (const [name, value] of Object.entries(fields)) {
    const property = properties[name];
    if (property) fields[name] = coerce(document, property, value, 0);
  }
  return fields;
}

function coerce(document: OpenAPI3, schemaRef: unknown, value: unknown, depth: number): unknown {
  const schema = deref(document, schemaRef);
  if (!isSchemaNode(schema) || depth > 8) return value;
  const types = [schema.type].flat().filter((t): t is string => typeof t === 'string');
  if (types.includes('array')) {
    const items = Array.isArray(value) ? value : typeof value === 'string' && value.startsWith('[') ? parsed(value) ?? [value] : [value];
    return Array.isArray(items) ? items.map((item) => coerce(document, schema.items, item, depth + 1)) : items;
  }
  if (typeof value !== 'string') return value;
  if ((types.includes('integer') || types.includes('number')) && /^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/.test(value)) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  if (types.includes('null') && value === 'null') return null;
  if ((types.includes('object') || (types.length === 0 && (schema.properties || schema.allOf))) && /^\s*\{/.test(value)) return parsed(value) ?? value;
  return value;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function propertiesOf(document: OpenAPI3, schema: SchemaNode, depth = 0): Record<string, unknown> {
  if (depth > 8) return {};
  const parts = [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].map((part) => {
    const resolved = deref(document, part);
    return propertiesOf(document, isSchemaNode(resolved) ? resolved : {}, depth + 1);
  });
  return Object.assign({}, ...parts, schema.properties ?? {});
}
