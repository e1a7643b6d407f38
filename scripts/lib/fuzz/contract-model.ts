/**
 * What the fuzzer needs to know about one HTTP service, read from its bundle once: operations with
 * their parameters, bodies and credentials; the path templates (to tell a known path from an
 * unknown one); the documented error bodies; and validity checks for parameters and bodies.
 */
import type { MediaTypeObject, OpenAPI3, ParameterObject } from 'openapi-typescript';
import { createAjv } from '../../../server-stubs/lib/openapi/ajv.js';
import type { AnySchema } from 'ajv';
import { deref, firstExample, listOperations, requestBodyOf, type Operation } from '../../../server-stubs/lib/openapi/document.js';
import { schemaAt, isJsonObject, isSchemaNode, type Schema } from '../../../server-stubs/lib/openapi/json-schema.js';
import { loadContract, type Contract } from '../../../server-stubs/lib/contract.js';
import { contractChecker, type ContractChecker } from '../contract-checker.js';
import { createSchemaArbitraries, type PropertyHook, type SchemaArbitraries } from './arbitraries.js';
import { credentialsFor, type OperationCredentials, type PublishedCredential } from './credentials.js';
import { isJsonType } from '../../../server-stubs/lib/media-types.js';
import { hasStyleSerialization } from '../parameter-style.js';

export interface ParamModel {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
  /** the contract's examples of the parameter (path parameters of valid requests come from here) */
  examples: unknown[];
  /**
   * Written by its `style`/`explode` or `content` (scripts/lib/parameter-style.ts) rather than as
   * one plain value: an object or array, a label or matrix path segment, a JSON parameter.
   */
  styled: boolean;
  /** the parameter object itself, for its style */
  parameter: ParameterObject;
}

export interface OperationModel {
  operation: Operation;
  label: string;
  params: ParamModel[];
  /** request body media types with their schemas */
  body: { required: boolean; media: Array<{ type: string; schema: MediaTypeObject['schema'] }> } | undefined;
  credentials: OperationCredentials;
}

export interface PathModel {
  template: string;
  segments: string[];
  /** upper-case methods the contract declares on the path */
  methods: string[];
}

export interface ServiceModel {
  slug: string;
  basePath: string;
  document: OpenAPI3;
  checker: ContractChecker;
  schemas: SchemaArbitraries;
  operations: OperationModel[];
  paths: PathModel[];
  /** one (path, method, status) per distinct documented 4xx or `default` JSON error schema of the service */
  errorShapes: Array<{ path: string; method: string; status: string; mediaType: string }>;
  /** component schemas the documented 4xx error bodies are built on (`allOf: [$ref Error, ...]`) */
  errorSchemas: string[];
  /** the template a raw path (below the base path) matches, if any */
  match(path: string): PathModel | undefined;
  /** is this raw query value invalid for the parameter (after the usual string → type coercion)? */
  paramInvalid(param: ParamModel, raw: string): boolean;
  /** ajv errors of a parsed body against the operation's request schema for a media type; [] when valid */
  bodyErrors(model: OperationModel, mediaType: string, value: unknown): string[];
}

/** Whose credentials the model knows: a stub service (`StubService` fits), or credentials given by hand. */
export interface CredentialSource {
  slug: string;
  credentials: ReadonlyArray<PublishedCredential>;
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * `contract`: the service's contract when it is not the repository's bundle of `slug` (an imported
 * document, read through its schema view).
 */
export function buildServiceModel(slug: string, services: ReadonlyArray<CredentialSource>, propertyHook?: PropertyHook, contract?: Contract): ServiceModel {
  const { document, basePath } = contract ?? loadContract(slug);
  const checker = contractChecker(contract ?? slug);
  // A contract served by the platform server itself (the development controls) has no StubService
  // and so no seeded credentials.
  const service = services.find((s) => s.slug === slug);
  const otherCredentials = services.filter((s) => s.slug !== slug).flatMap((s) => s.credentials);
  const schemas = createSchemaArbitraries((ref) => (ref.startsWith('#/') ? deref(document, { $ref: ref }) : undefined), propertyHook);

  const operations: OperationModel[] = listOperations(document).map((operation) => {
    const sendable = operation.op.parameters.filter((p) => p.required || hasStyleSerialization(document, p));
    const params: ParamModel[] = sendable.map((p) => {
      const example = firstExample(document, p);
      const media = p.content ? deref(document, Object.values(p.content)[0]) : undefined;
      const raw = p.schema ?? media?.schema ?? {};
      const schema = schemas.resolve(raw);
      const examples = [...(example.found ? [example.value] : []), ...Object.values(p.examples ?? {}).map((e) => deref(document, e)?.value), ...(Array.isArray(schema.examples) ? schema.examples : [])];
      const types = schemas.typesOf(schema);
      const defaultStyle = p.in === 'query' || p.in === 'cookie' ? 'form' : 'simple';
      const styled = Boolean(p.content) || types.includes('object') || types.includes('array') || (p.style !== undefined && p.style !== defaultStyle);
      return { name: p.name, in: p.in, required: Boolean(p.required), schema: raw, examples: [...new Set(examples.filter((e) => e !== undefined))], styled, parameter: p };
    });
    const requestBody = requestBodyOf(document, operation);
    const body = requestBody?.content
      ? { required: Boolean(requestBody.required), media: Object.entries(requestBody.content).map(([type, media]) => ({ type, schema: deref(document, media)?.schema })) }
      : undefined;
    return {
      operation,
      label: operation.label,
      params,
      body,
      credentials: credentialsFor(service?.credentials ?? [], document, operation.op.security, otherCredentials),
    };
  });

  const paths: PathModel[] = Object.keys(document.paths ?? {}).map((template) => ({
    template,
    segments: template.split('/').slice(1),
    methods: operations.filter((o) => o.operation.path === template).map((o) => o.operation.method.toUpperCase()),
  }));

  // A literal segment beats a parameter (`/v1/contacts/import` before `/v1/contacts/{id}`).
  const ranked = [...paths].sort((a, b) => b.segments.filter((s) => !s.startsWith('{')).length - a.segments.filter((s) => !s.startsWith('{')).length);
  const decodes = (segment: string) => {
    try {
      decodeURIComponent(segment);
      return true;
    } catch {
      return false;
    }
  };
  /**
   * As routers match: on the raw path (`%2F` stays inside its segment), one trailing slash
   * ignored; a parameter segment must be non-empty and valid percent-encoding, or nothing matches.
   */
  function match(path: string): PathModel | undefined {
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const segments = trimmed.split('/').slice(1);
    return ranked.find(
      (p) =>
        p.segments.length === segments.length &&
        p.segments.every((s, i) => (s.startsWith('{') && s.endsWith('}') ? segments[i] !== '' && decodes(segments[i]!) : s === segments[i])),
    );
  }

  const errorShapes: ServiceModel['errorShapes'] = [];
  const errorSchemas: string[] = [];
  const seenShapes = new Set<string>();
  for (const { operation } of operations) {
    for (const [status, raw] of Object.entries(operation.op.responses ?? {})) {
      // `default` is where many documents put their one error shape.
      if (!/^4/.test(status) && status !== 'default') continue;
      for (const [mediaType, media] of Object.entries(deref(document, raw)?.content ?? {})) {
        if (!isJsonType(mediaType)) continue;
        const parts: unknown[] = [media.schema, ...(schemaAt(document, media.schema)?.allOf ?? [])];
        for (const part of parts) {
          const name = /^#\/components\/schemas\/([^/]+)$/.exec((isSchemaNode(part) ? part.$ref : undefined) ?? '')?.[1];
          if (name && !errorSchemas.includes(name)) errorSchemas.push(name);
        }
        const key = JSON.stringify(media.schema);
        if (seenShapes.has(key)) continue;
        seenShapes.add(key);
        errorShapes.push({ path: operation.path, method: operation.method, status, mediaType });
      }
    }
  }

  // Parameters: query strings carry text, so check the way a server must read them: a number is
  // a finite JSON number, a boolean is true/false, then the schema (non-coercing ajv).
  const ajv = createAjv({ strict: false, allErrors: false });
  const paramValidators = new Map<ParamModel, (v: unknown) => boolean>();
  // Most parameters share a handful of schemas (an id, a limit, a cursor): each is compiled once.
  const validatorsBySchema = new Map<string, (v: unknown) => boolean>();
  function paramInvalid(param: ParamModel, raw: string): boolean {
    const s = schemas.resolve(param.schema);
    const types = schemas.typesOf(s);
    let value: unknown = raw;
    if (!types.includes('string') && (types.includes('integer') || types.includes('number'))) {
      if (!JSON_NUMBER.test(raw) || !Number.isFinite(Number(raw))) return true;
      value = Number(raw);
    } else if (!types.includes('string') && types.includes('boolean')) {
      if (raw !== 'true' && raw !== 'false') return true;
      value = raw === 'true';
    }
    let validate = paramValidators.get(param);
    if (!validate) {
      const inlined = inlineRefs(document, param.schema);
      const text = JSON.stringify(inlined);
      validate = validatorsBySchema.get(text) ?? ajv.compile(inlined as AnySchema);
      validatorsBySchema.set(text, validate);
      paramValidators.set(param, validate);
    }
    return !validate(value);
  }

  function bodyErrors(model: OperationModel, mediaType: string, value: unknown): string[] {
    // Without a schema nothing says what is valid: such a body is never counted valid.
    if (!model.body?.media.find((m) => m.type === mediaType)?.schema) return ['no schema'];
    try {
      return checker.requestErrors(model.operation.path, model.operation.method, value, mediaType);
    } catch (error) {
      return [`no schema: ${(error as Error).message}`];
    }
  }

  return { slug, basePath, document, checker, schemas, operations, paths, errorShapes, errorSchemas, match, paramInvalid, bodyErrors };
}

/** A copy of a (small) schema with `#/...` refs replaced by their targets, for a stand-alone ajv compile. */
function inlineRefs(document: OpenAPI3, schema: unknown, depth = 0): unknown {
  if (depth > 20) return schema;
  if (Array.isArray(schema)) return schema.map((s) => inlineRefs(document, s, depth + 1));
  if (!isJsonObject(schema)) return schema;
  const node = schema;
  if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
    const { $ref, ...rest } = node;
    const target = deref(document, { $ref });
    return inlineRefs(document, { ...(isJsonObject(target) ? target : {}), ...rest }, depth + 1);
  }
  return Object.fromEntries(Object.entries(node).filter(([k]) => k !== 'examples' && k !== 'example').map(([k, v]) => [k, inlineRefs(document, v, depth + 1)]));
}
