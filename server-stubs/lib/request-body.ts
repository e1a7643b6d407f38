import express, { type NextFunction, type Request, type Response } from 'express';
import type { OpenAPI3, ParameterObject, ReferenceObject } from 'openapi-typescript';
import { deref } from './openapi/document.js';
import { isJsonObject, isSchemaNode, type SchemaNode } from './openapi/json-schema.js';
import type { Contract, OperationInfo } from './contract.js';
import { failureOf } from './failures.js';
import { parseMultipart } from './form-body.js';
import { declaresMediaType, isTextType } from './media-types.js';
import { runSteps } from './middleware-chain.js';

function keepRawBody(req: Request, _res: unknown, buffer: Buffer) {
  if (req.matched?.wantsRawBody) req.rawBody = Buffer.from(buffer);
}

/**
 * `1e309` is valid JSON and parses to Infinity, which no schema bound then stops. Only a number
 * literal with an exponent of three digits or a run of 300 digits can: the bodies that have one are
 * walked after parsing (a reviver, called for every value of every body, cost more than the parse).
 */
const mayOverflow = /[eE][+-]?\d{3}|\d{300}/;
const walkForInfinity = new WeakSet<Request>();

function verifyJson(req: Request, res: unknown, buffer: Buffer) {
  keepRawBody(req, res, buffer);
  if (mayOverflow.test(buffer.toString('latin1'))) walkForInfinity.add(req);
}

/** Where the JSON `text`, parsed to `value`, holds a number past any bound (`body.shape.radius`), if anywhere. */
export function overflowingNumber(text: string, value: unknown): string | undefined {
  return mayOverflow.test(text) ? nonFinite(value, 'body') : undefined;
}

/** Where a parsed value holds a number that is not finite (`body.shape.radius`), if anywhere. */
function nonFinite(value: unknown, at: string, depth = 0): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : at;
  if (value === null || typeof value !== 'object' || depth > 64) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = nonFinite(item, `${at}.${key}`, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Refused as body-parser refuses malformed JSON, so it is answered the same way (failures.ts). */
function finiteNumbersOnly(req: Request, _res: Response, next: NextFunction) {
  const where = walkForInfinity.has(req) ? nonFinite(req.body, 'body') : undefined;
  if (!where) return next();
  next(Object.assign(new Error(`${where} is not a finite number`), { type: 'entity.parse.failed', status: 400 }));
}

/** The largest request body a service takes unless its router says otherwise. */
export const defaultBodyLimit = '5mb';

function bodyParsers(limit: string) {
  const parsers = [
    // Not strict: a JSON body may be any JSON value (`"text"`, `42`), as a schema may declare.
    express.json({ type: ['application/json', 'application/*+json'], limit, verify: verifyJson, strict: false }),
    finiteNumbersOnly,
    // At most 1000 fields (body-parser's default); more is refused as too large, not a crash.
    express.urlencoded({ extended: false, limit, verify: keepRawBody }),
    express.text({ type: ['text/*', 'message/*'], limit, verify: keepRawBody }),
    parseMultipart,
  ];
  return { parsers, withRaw: [...parsers, express.raw({ type: () => true, limit })] };
}

/**
 * Parses the body of operations that take one, up to `limit` (the development controls' state import
 * takes more than a service's request); any other body is ignored unread, so it cannot fail a request
 * that has none (a GET with a stray JSON body is still a GET).
 */
export function bodyParser(limit: string = defaultBodyLimit) {
  const { parsers, withRaw } = bodyParsers(limit);
  return (req: Request, res: Response, next: NextFunction) => {
    if (!req.matched?.operation.op.requestBody) return next();
    runSteps(req.matched.wantsRawBody ? withRaw : parsers, req, res, next);
  };
}

/** {@link bodyParser} within the default limit. */
export const parseBody = bodyParser();

const anyText = express.text({ type: () => true, limit: defaultBodyLimit, verify: keepRawBody });
const anyBytes = express.raw({ type: () => true, limit: defaultBodyLimit, verify: keepRawBody });

/**
 * A body of a media type the operation declares that no parser above reads (XML, YAML, CSV, an image,
 * `application/octet-stream`): text where a person could read it, else bytes. A type the operation
 * does not declare is left unread, for the validator's 415.
 */
export function parseDeclaredMedia(contract: Contract) {
  return (req: Request, res: Response, next: NextFunction) => {
    const type = req.headers['content-type'];
    if (req.body !== undefined || !type || !req.matched?.operation.op.requestBody) return next();
    const declared = Object.keys(resolved(contract.document, req.matched.operation.op.requestBody)?.content ?? {});
    if (!declaresMediaType(declared, type)) return next();
    (isTextType(type) ? anyText : anyBytes)(req, res, next);
  };
}

/**
 * The numeric parameters of an operation whose text is a number beyond any bound (`Infinity`,
 * `1e309`), or not decimal (`0x1F`), as issues at `query.limit`; for the stubs' step below and the
 * validating proxy.
 */
export function numericParameterChecker(contract: Contract) {
  // Which parameters are numeric is a property of the operation: worked out once, not per request.
  const numericByOperation = new Map<OperationInfo, ParameterObject[]>();
  const numericOf = (operation: OperationInfo): ParameterObject[] => {
    const known = numericByOperation.get(operation);
    if (known) return known;
    const numeric = operation.op.parameters.filter((parameter) => {
      const schema: unknown = deref(contract.document, parameter.schema);
      const types = [isSchemaNode(schema) ? schema.type : undefined].flat();
      return types.includes('integer') || types.includes('number');
    });
    numericByOperation.set(operation, numeric);
    return numeric;
  };
  return (operation: OperationInfo, req: Request, pathParams: Record<string, unknown>): Issue[] => {
    const numeric = numericOf(operation);
    if (numeric.length === 0) return [];
    const issues: Issue[] = [];
    for (const parameter of numeric) {
      const raw = parameter.in === 'query' ? req.query[parameter.name] : parameter.in === 'path' ? pathParams[parameter.name] : parameter.in === 'header' ? req.headers[String(parameter.name).toLowerCase()] : undefined;
      for (const text of [raw].flat()) {
        if (typeof text === 'string' && Math.abs(Number(text)) === Infinity) {
          issues.push({ path: `${parameter.in}.${parameter.name}`, message: 'must be a finite number' });
        } else if (typeof text === 'string' && /^\s*[+-]?0[xob]/i.test(text)) {
          // Number() reads `0x1F` as 31; a parameter's number is written in decimal.
          issues.push({ path: `${parameter.in}.${parameter.name}`, message: 'must be a decimal number' });
        }
      }
    }
    return issues;
  };
}

/** Numeric parameters whose text is a number beyond any bound (`Infinity`, `1e309`), or not decimal (`0x1F`), are refused. */
export function checkFiniteParameters(contract: Contract) {
  const check = numericParameterChecker(contract);
  return (req: Request, _res: Response, next: NextFunction) => {
    const matched = req.matched;
    if (!matched) return next();
    const issues = check(matched.operation, req, matched.pathParams);
    if (issues.length === 0) return next();
    next(failureOf('validation', 400, issues.map((i) => `${i.path} ${i.message}`).join('; '), { issues }));
  };
}

/**
 * `deref`, remembered per document and `$ref` text: the tolerant reader resolves the same refs on
 * every request, and splitting a pointer each time was a visible share of a request's CPU. The
 * bundles a stub serves are never changed once loaded.
 */
const resolvedRefs = new WeakMap<OpenAPI3, Map<string, unknown>>();
function resolved<T>(document: OpenAPI3, node: T | ReferenceObject): T;
function resolved(document: OpenAPI3, node: unknown): unknown;
function resolved(document: OpenAPI3, node: unknown): unknown {
  const ref = isJsonObject(node) ? node.$ref : undefined;
  if (typeof ref !== 'string') return deref(document, node);
  let refs = resolvedRefs.get(document);
  if (!refs) resolvedRefs.set(document, (refs = new Map()));
  if (!refs.has(ref)) refs.set(ref, deref(document, node));
  return refs.get(ref);
}

/** The schema a subschema names (its `$ref` followed), where it is one with keywords. */
function schemaOf(document: OpenAPI3, node: unknown): SchemaNode | undefined {
  const schema = resolved(document, node);
  return isSchemaNode(schema) ? schema : undefined;
}

/**
 * The tolerant reader (DECISIONS G-1): properties a request schema does not name are dropped before
 * validation, not refused (unless it allows others: `additionalProperties` or `patternProperties`), so a newer client's extra field does not break an older service.
 * Where the schema is a `oneOf`/`anyOf`, the branch the value is meant for decides what is known.
 *
 * The same walk refuses an array longer than its `maxItems` before the validator sees it: with
 * `allErrors`, ajv's errors through a recursive `$ref` grow quadratically, so 90,000 items of a
 * 50-item list would hold the stub for minutes.
 */
export function pruneUnknownProperties(contract: Contract) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const requestBody = req.matched && resolved(contract.document, req.matched.operation.op.requestBody);
    if (!requestBody?.content || req.body === null || typeof req.body !== 'object') return next();
    const media = Object.entries(requestBody.content).find(([type]) => req.is(type));
    const issues = media ? pruneBody(contract.document, resolved(contract.document, media[1]).schema, req.body) : [];
    if (issues.length === 0) return next();
    next(failureOf('validation', 400, issues.map((i) => `${i.path} ${i.message}`).join('; '), { issues }));
  };
}

interface Issue {
  path: string;
  message: string;
}

/** The tolerant reader's walk of a parsed body (changed in place): what it refuses, as issues at `body.…`. */
export function pruneBody(document: OpenAPI3, schema: unknown, body: unknown): Issue[] {
  const issues: Issue[] = [];
  prune(document, schema, body, 0, 'body', issues);
  return issues;
}

function prune(document: OpenAPI3, schemaRef: unknown, value: unknown, depth: number, at: string, issues: Issue[]): void {
  if (depth > 32 || value === null || typeof value !== 'object') return;
  const schema = schemaOf(document, schemaRef);
  if (!schema) return;
  if (Array.isArray(value)) {
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
      issues.push({ path: at, message: `must NOT have more than ${schema.maxItems} items` });
      return;
    }
    if (schema.items && typeof schema.items === 'object') value.forEach((item, i) => prune(document, schema.items, item, depth + 1, `${at}.${i}`, issues));
    return;
  }
  const object = value as Record<string, unknown>;
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches) {
    const branch = chooseBranch(document, schema, branches, object);
    if (branch) prune(document, branch, object, depth + 1, at, issues);
    return;
  }
  const parts = flattenAllOf(document, schema);
  const properties: Record<string, unknown> = Object.assign(Object.create(null), ...parts.map((p) => p.properties ?? {}));
  // Request bodies are open in the contracts (DECISIONS G-1: no `additionalProperties: false`), so a
  // schema that names its properties and says nothing of others is one whose others are ignored:
  // dropped here, as a closed one's are, so a handler never sees a field its type does not have.
  const open = parts.some((p) => p.patternProperties || p.unevaluatedProperties !== undefined || (p.additionalProperties !== undefined && p.additionalProperties !== false));
  const named = parts.some((p) => p.properties && Object.keys(p.properties).length > 0);
  const closed = !open && (named || parts.some((p) => p.additionalProperties === false));
  for (const key of Object.keys(object)) {
    if (Object.hasOwn(properties, key)) prune(document, properties[key], object[key], depth + 1, `${at}.${key}`, issues);
    else if (closed) delete object[key];
  }
}

function flattenAllOf(document: OpenAPI3, schema: SchemaNode, depth = 0): SchemaNode[] {
  if (depth > 8) return [schema];
  return [schema, ...(schema.allOf ?? []).flatMap((part) => flattenAllOf(document, schemaOf(document, part) ?? {}, depth + 1))];
}

const isEmptySchema = (schema: unknown) => schema !== null && typeof schema === 'object' && Object.keys(schema).length === 0;

/** The branch a value is meant for: by discriminator, else the first whose required and constant properties it has. */
function chooseBranch(document: OpenAPI3, schema: SchemaNode, branches: unknown[], value: Record<string, unknown>): unknown {
  const discriminator = schema.discriminator?.propertyName;
  const tag = discriminator !== undefined && Object.hasOwn(value, discriminator) ? value[discriminator] : undefined;
  const mapped = typeof tag === 'string' ? schema.discriminator?.mapping?.[tag] : undefined;
  if (mapped) return { $ref: mapped };
  return branches.find((branch) => {
    const parts = flattenAllOf(document, schemaOf(document, branch) ?? {});
    const required = parts.flatMap((p) => p.required ?? []);
    if (!required.every((name) => Object.hasOwn(value, name))) return false;
    return parts.every((p) =>
      Object.entries(p.properties ?? {}).every(([name, property]) => {
        const s = resolved(document, property) ?? {};
        if (!Object.hasOwn(value, name)) return true;
        // A `false` (or `not: {}`) property schema says the branch forbids the field: a value carrying it is not for this branch.
        if (s === false || (typeof s === 'object' && isEmptySchema(s.not))) return false;
        if (typeof s !== 'object') return true;
        if ('const' in s) return s.const === value[name];
        if (Array.isArray(s.enum)) return s.enum.includes(value[name]);
        return true;
      }),
    );
  });
}
