/**
 * Every use of express-openapi-validator, behind one module: the stubs' request and response checks
 * are the library's (its ajv instances, keywords, compiled schemas, coercion, defaults and error
 * objects), assembled from its modules rather than through its `middleware()`, so a request pays
 * only for validating (README, "Validation and auth": the figures). The modules are private to the
 * library (`dist/…`) and move between versions: test/toolkit/validator-adapter.test.ts pins, through
 * HTTP, what the stubs rely on, so an upgrade of the library is a run of that test.
 */
import { createRequire } from 'node:module';
import type { Request, Response } from 'express';
import type { OpenAPI3, OperationObject, ParameterObject } from 'openapi-typescript';
import type { OperationInfo } from './contract.js';
import type { SecurityHandler } from './auth.js';
import { unknownFormats } from './compilable-document.js';
import { isFormType, isJsonType, isMultipartType, isTextType } from './media-types.js';
import { deref, operationAt } from './openapi/document.js';
import { isSchemaNode, type SchemaNode } from './openapi/json-schema.js';
import { delimitedQueryReader } from './parameter-styles.js';

const require = createRequire(import.meta.url);
const eov = 'express-openapi-validator/dist';
const { OpenApiValidator } = require(`${eov}/openapi.validator.js`);
const { OpenApiSpecLoader } = require(`${eov}/framework/openapi.spec.loader.js`);
const { OpenAPIFramework } = require(`${eov}/framework/index.js`);
const { OpenApiContext } = require(`${eov}/framework/openapi.context.js`);
const { BadRequest, HttpError, InternalServerError } = require(`${eov}/framework/types.js`);
const { RequestValidator } = require(`${eov}/middlewares/openapi.request.validator.js`);
const { ResponseValidator } = require(`${eov}/middlewares/openapi.response.validator.js`);
const { SchemaPreprocessor } = require(`${eov}/middlewares/parsers/schema.preprocessor.js`);
const { ParametersSchemaParser } = require(`${eov}/middlewares/parsers/schema.parse.js`);
const { BodySchemaParser } = require(`${eov}/middlewares/parsers/body.parse.js`);
const { RequestParameterMutator } = require(`${eov}/middlewares/parsers/req.parameter.mutator.js`);
const { ContentType, augmentAjvErrors, ajvErrorsToValidatorError, findResponseContent, useAjvCache } = require(`${eov}/middlewares/util.js`);

/** The library's error objects, as failures.ts and security-check.ts read them: `status`, `message`, `errors[]` of `{path, message}`. */
export interface ValidatorError extends Error {
  status: number;
  errors?: Array<{ path?: string; message?: string; errorCode?: string }>;
}
type ErrorInit = { path?: string; message?: string; errors?: unknown };
export const validatorErrors = {
  /** a refusal with the status a security handler threw (401 unless it says) */
  http: (init: ErrorInit & { status?: number }): ValidatorError => HttpError.create(init),
  internal: (init: ErrorInit): ValidatorError => new InternalServerError(init),
};

export interface ValidationOptions {
  validateRequests: boolean;
  validateResponses: boolean;
  security: Record<string, SecurityHandler>;
}

/** What express-openapi-validator's metadata middleware would put on `req.openapi`, per operation. */
export interface OperationMetadata {
  expressRoute: string;
  openApiRoute: string;
  /** the operation as the library dereferenced it */
  schema: OperationObject;
  _responseSchema: OperationObject | undefined;
  serial: number;
}

declare module 'express-serve-static-core' {
  interface Request {
    openapi?: OperationMetadata & { pathParams: Record<string, unknown> };
  }
}

type AjvValidate = ((data: unknown) => boolean) & { errors?: unknown[] | null };

/** What the adapter reads of the library's ajv instances (its own ajv, whose types it does not export). */
interface LibraryAjv {
  errorsText(errors: unknown, options: { dataVar: string }): string;
}

/** What the adapter reads of the library's RequestValidator (middlewares/openapi.request.validator.js). */
interface LibraryRequestValidator {
  apiDoc: OpenAPI3;
  ajv: LibraryAjv;
  ajvBody: LibraryAjv;
  requestOpts: { allowUnknownQueryParameters?: boolean };
  discriminatorValidator(request: Request, discriminator: unknown): AjvValidate | null;
}

/** What the adapter reads of the library's ResponseValidator (middlewares/openapi.response.validator.js). */
interface LibraryResponseValidator {
  buildValidators(responses: Record<string, unknown>, key: string): Record<string, Record<string, AjvValidate>>;
  canValidateContentType(contentType: string): boolean;
  ajvBody: LibraryAjv;
}
export type RequestCheck = (req: Request) => void;
export type ResponseCheck = (req: Request, res: Response, body: unknown) => void;

/** `req.openapi` as the library's metadata middleware sets it, in one fixed shape. */
export class OpenApiRequest {
  readonly expressRoute: string;
  readonly openApiRoute: string;
  readonly schema: OperationObject;
  readonly _responseSchema: OperationObject | undefined;
  readonly serial: number;
  constructor(
    metadata: OperationMetadata,
    readonly pathParams: Record<string, unknown>,
  ) {
    this.expressRoute = metadata.expressRoute;
    this.openApiRoute = metadata.openApiRoute;
    this.schema = metadata.schema;
    this._responseSchema = metadata._responseSchema;
    this.serial = metadata.serial;
  }
}

const contentTypeKeys = new Map<string, string>();

/** The library's cache key for a request's content type (its normalized form), remembered per header value. */
export function contentTypeKey(req: Request): string {
  const header = req.headers['content-type'];
  if (header === undefined) return 'not_provided';
  let key = contentTypeKeys.get(header);
  if (key === undefined) {
    key = (ContentType.from(req).normalize() as string | undefined) ?? 'not_provided';
    // Bounded: the header comes from clients.
    if (contentTypeKeys.size < 1024) contentTypeKeys.set(header, key);
  }
  return key;
}

/** What the library compiles for one operation's slice of the contract. */
export interface CompiledOperation {
  /** `req.openapi` of the operation; none when the library does not route it */
  metadata: OperationMetadata | undefined;
  /** the document as the library dereferenced it (security reads its schemes) */
  apiDoc: OpenAPI3;
  requestCheck?: (operation: OperationInfo, metadata: OperationMetadata, contentType: string, req: Request) => RequestCheck;
  responseCheck?: (operation: OperationInfo, metadata: OperationMetadata) => ResponseCheck;
}

/** What the library's spec framework is given: the document, and how its `$ref`s are resolved. */
interface SpecArgs {
  apiDoc: OpenAPI3;
  $refParser: unknown;
}

/** What the library's spec framework yields: the document it bundled and the base paths of its servers. */
interface LoadedSpec {
  apiDoc: OpenAPI3;
  basePaths: string[];
}

/**
 * The library's spec framework (framework/index.js) as it runs with `validateApiSpec: false`: it
 * bundles the document, reads its servers' base paths and sorts its tags. The library's own
 * `initialize` also compiles the OpenAPI meta-schema before it looks at that setting, a compile it
 * then never uses: for a stub, which loads one slice of the contract per operation, that compile
 * was most of the cost of building an operation's checks.
 */
class SpecFramework extends OpenAPIFramework {
  declare args: SpecArgs;
  constructor(args: SpecArgs) {
    super(args);
  }
  async initialize(visitor: { visitApi?(context: { basePaths: string[]; getApiDoc(): OpenAPI3 }): void }): Promise<LoadedSpec> {
    const apiDoc: OpenAPI3 = await this.loadSpec(this.args.apiDoc, this.args.$refParser);
    const basePaths = [...new Set<string>(this.getBasePathsFromServers(apiDoc.servers).flatMap((basePath: { all(): string[] }) => basePath.all()))];
    this.sortApiDocTags(apiDoc);
    visitor.visitApi?.({ basePaths, getApiDoc: () => apiDoc });
    return { apiDoc, basePaths };
  }
}

/** What the library's schema preprocessor asks of its ajv (middlewares/parsers/schema.preprocessor.js). */
interface PreprocessorAjv {
  getSchema(key: string): { schema: unknown } | undefined;
  compile(schema: unknown): AjvValidate;
}

/**
 * The preprocessor's ajv, with the component schemas it registered looked up rather than compiled:
 * the preprocessor resolves a `$ref` to `#/components/schemas/<name>` with `getSchema`, which compiles
 * the schema, only to read the schema back. The validators compile what they check themselves.
 */
function componentLookup(ajv: PreprocessorAjv, apiDoc: OpenAPI3): PreprocessorAjv {
  const prefix = '#/components/schemas/';
  const schemas: Record<string, unknown> = apiDoc.components?.schemas ?? {};
  return {
    getSchema: (key) => {
      const name = key.startsWith(prefix) ? key.slice(prefix.length) : undefined;
      // The very objects the library registered under these keys (framework/ajv/index.js); any other key goes to ajv.
      return name !== undefined && Object.hasOwn(schemas, name) ? { schema: schemas[name] } : ajv.getSchema(key);
    },
    compile: (schema) => ajv.compile(schema),
  };
}

/** The library's validators for one operation's slice of the contract (`document` made compilable). */
export async function compileOperation(document: OpenAPI3, operation: OperationInfo, options: Omit<ValidationOptions, 'security'>): Promise<CompiledOperation> {
  const validator = new OpenApiValidator({
    apiSpec: document,
    // The build lints every bundle against the OpenAPI schema already.
    validateApiSpec: false,
    validateRequests: options.validateRequests ? { allErrors: true, allowUnknownQueryParameters: true } : false,
    validateResponses: options.validateResponses ? { allErrors: true } : false,
    // Security runs apart (security-check.ts) with the app's handlers; what is compiled here is the same for every app.
    validateSecurity: false,
    validateFormats: true,
    formats: Object.fromEntries(unknownFormats(document).map((format) => [format, true as const])),
    ignoreUndocumented: false,
  });
  const loader = new OpenApiSpecLoader({});
  loader.framework = new SpecFramework({ apiDoc: structuredClone(document), $refParser: validator.options.$refParser });
  const spec = await loader.load();
  const preprocessor = new SchemaPreprocessor(spec.apiDoc, validator.ajvOpts.preprocessor, validator.options.validateResponses);
  preprocessor.ajv = componentLookup(preprocessor.ajv, spec.apiDoc);
  const preprocessed = preprocessor.preProcess();
  const context = new OpenApiContext(spec, undefined, false, false);
  const apiDoc: OpenAPI3 = context.apiDoc;
  const responseApiDoc: OpenAPI3 | undefined = preprocessed.apiDocRes;

  let metadata: OperationMetadata | undefined;
  for (const route of context.routes as Array<{ basePath: string; expressRoute: string; openApiRoute: string; method: string }>) {
    const path = route.openApiRoute.substring(route.basePath.length);
    const method = route.method.toLowerCase();
    const schema = operationAt(apiDoc, path, method);
    if (path !== operation.path || method !== operation.method || !schema) continue;
    metadata = {
      expressRoute: route.expressRoute,
      openApiRoute: route.openApiRoute,
      schema,
      _responseSchema: responseApiDoc && operationAt(responseApiDoc, path, method),
      serial: context.serial,
    };
  }

  const compiled: CompiledOperation = { metadata, apiDoc };
  if (options.validateRequests) {
    const requestValidator = new RequestValidator(apiDoc, validator.ajvOpts.request);
    compiled.requestCheck = (op, meta, contentType, req) => requestCheck(requestValidator, op, meta, contentType, req);
  }
  if (options.validateResponses) {
    const responseValidator = new ResponseValidator(
      responseApiDoc,
      validator.ajvOpts.response,
      validator.options.validateResponses,
      context.serial,
    );
    compiled.responseCheck = (op, meta) => responseCheck(responseValidator, op, meta);
  }
  return compiled;
}

/** The library's RequestValidator, split into what is built once and what runs per request. */
function requestCheck(rv: LibraryRequestValidator, operation: OperationInfo, metadata: OperationMetadata, contentTypeKey: string, req: Request): RequestCheck {
  const apiDoc = rv.apiDoc;
  const path = metadata.expressRoute;
  const reqSchema = metadata.schema;
  const ajvCacheKey = `${req.method}-${path}-${contentTypeKey}`;
  const parameters = new ParametersSchemaParser(rv.ajv, apiDoc).parse(path, reqSchema.parameters);
  const body: SchemaNode = new BodySchemaParser().parse(path, reqSchema, ContentType.from(req));
  // A body the parsers keep as text or bytes (XML, octet-stream, images) is not a JSON value its
  // schema could check; only a text body of a string schema is checked (its length, its pattern).
  const isBodyBinary = body?.format === 'binary' || (!structuredBody(contentTypeKey) && !(isTextType(contentTypeKey) && isStringSchema(apiDoc, body)));
  const schemaGeneral = { paths: apiDoc.paths, components: apiDoc.components, required: ['query', 'headers', 'params'], properties: { ...parameters, body: {} } };
  const schemaBody = {
    paths: apiDoc.paths,
    components: apiDoc.components,
    properties: { query: {}, headers: {}, params: {}, cookies: {}, body: isBodyBinary ? {} : body },
    ...(body.required && !isBodyBinary && { required: ['body'] }),
  };
  const allSchemaProperties = { ...schemaGeneral.properties, body: schemaBody.properties.body };
  const validatorGeneral: AjvValidate = useAjvCache(rv.ajv, schemaGeneral, ajvCacheKey);
  const validatorBody: AjvValidate = useAjvCache(rv.ajvBody, schemaBody, ajvCacheKey);
  const allowUnknown = reqSchema['x-eov-allow-unknown-query-parameters'] ?? reqSchema['x-allow-unknown-query-parameters'] ?? rv.requestOpts.allowUnknownQueryParameters;
  if (!allowUnknown) throw new Error('the stub framework accepts unknown query parameters (DECISIONS G-1); the check for them is not wired here');
  // The preprocessor's note on a body schema with a discriminator.
  const discriminator = isBodyBinary ? undefined : body._discriminator;
  // The mutator is stateless across requests; it is built once and run only where it can change
  // something: a query string to deserialize and check, or, without one, a header, path or cookie
  // parameter that is not a plain scalar, or a deepObject query parameter (it fills its default).
  const mutator = new RequestParameterMutator(rv.ajv, apiDoc, path, allSchemaProperties);
  const mutatesWithoutQuery = operation.op.parameters.some((p) => {
    const parameter = deref(apiDoc, p);
    return parameter?.in === 'query' ? parameter.style === 'deepObject' : !isPlainScalar(apiDoc, parameter);
  });

  const readDelimited = delimitedQueryReader(apiDoc, operation);

  return (request) => {
    let query = request.query;
    if (mutatesWithoutQuery || request.originalUrl.includes('?')) {
      // As the library: req.query (a getter that parses again on each read) becomes a plain value the mutator rewrites.
      Object.defineProperty(request, 'query', { writable: true, value: query });
      mutator.modifyRequest(request);
      query = request.query;
      if (query) readDelimited?.(query as Record<string, unknown>);
    }
    // ajv coerces and fills defaults in place: the handler gets these objects, so its query and
    // path parameters are of their schemas' types (`7`, not `'7'`), as the generated types say.
    request.matched!.query = query;
    request.matched!.pathParams = request.params;
    const data = {
      query: query ?? {},
      headers: request.headers,
      params: request.params,
      cookies: request.cookies ? { ...request.cookies, ...request.signedCookies } : undefined,
      body: request.body,
    };
    // The library reads the discriminator property off the body: a body that is no object (JSON `null`, `3`) gets the plain check, which refuses it.
    const isObject = request.body !== null && typeof request.body === 'object' && !Array.isArray(request.body);
    const discriminatorValidator: AjvValidate | null = discriminator && isObject ? rv.discriminatorValidator(request, discriminator) : null;
    const validatorForBody = discriminatorValidator ?? validatorBody;
    const valid = validatorGeneral(data);
    const validBody = validatorForBody(discriminatorValidator ? data.body : data);
    if (valid && validBody) return;
    const errors = augmentAjvErrors([...(validatorGeneral.errors ?? []), ...(validatorForBody.errors ?? [])]);
    const error = new BadRequest({ path: request.path, message: rv.ajv.errorsText(errors, { dataVar: 'request' }) });
    error.errors = ajvErrorsToValidatorError(400, errors).errors;
    throw error;
  };
}

/** Media types parsed into a value the body schema describes: JSON, forms. */
function structuredBody(contentTypeKey: string): boolean {
  return contentTypeKey === 'not_provided' || isJsonType(contentTypeKey) || isFormType(contentTypeKey) || isMultipartType(contentTypeKey);
}

function isStringSchema(document: OpenAPI3, schema: SchemaNode): boolean {
  const resolved = deref(document, schema);
  return isSchemaNode(resolved) && [resolved.type].flat().includes('string') && resolved.format !== 'binary';
}

/** A parameter the library's mutator leaves as it is: a scalar schema, no `content`. */
function isPlainScalar(document: OpenAPI3, p: ParameterObject | undefined): boolean {
  if (!p || p.content || p.in === 'cookie') return false;
  const schema = deref(document, p.schema);
  if (!isSchemaNode(schema) || schema.$ref || schema.allOf || schema.oneOf || schema.anyOf) return false;
  return [schema.type].flat().every((t) => t === 'string' || t === 'integer' || t === 'number' || t === 'boolean' || t === 'null');
}

/**
 * The library's ResponseValidator `_validate`, split: which validator a status and content
 * negotiation select is worked out once per (status, content type, Accept) and kept; only the body is
 * checked per answer. Parsing the declared media types again for every answer was most of its cost.
 */
function responseCheck(rv: LibraryResponseValidator, operation: OperationInfo, metadata: OperationMetadata): ResponseCheck {
  const responses: Record<string, unknown> = metadata._responseSchema?.responses ?? {};
  const cacheKey = `${operation.method.toUpperCase()}-${metadata.expressRoute}-response`;
  // The library builds the validators of every declared response at once; each response's are built
  // from that response alone (under the same cache keys), so they are built here when its status is
  // first answered: most answers of an operation are one or two of its statuses.
  const built = new Map<string, ResponseValidators | undefined>();
  const validators = (code: string): ResponseValidators | undefined => {
    if (!built.has(code)) built.set(code, Object.hasOwn(responses, code) ? rv.buildValidators({ [code]: responses[code] }, cacheKey)[code] : undefined);
    return built.get(code);
  };
  const plans = new Map<string, BodyCheck>();
  return (req, res, body) => {
    const contentType = res.getHeader('content-type');
    const accept = contentType ? undefined : req.headers.accept;
    const key = `${res.statusCode}\n${contentType ?? ''}\n${accept ?? ''}`;
    let plan = plans.get(key);
    if (!plan) {
      const accepts = contentType ? [String(contentType)] : accept ? accept.split(',').map((h) => h.trim()) : [];
      plan = bodyCheck(rv, validators, res.statusCode, accepts);
      // Bounded: Accept headers come from clients.
      if (plans.size < 256) plans.set(key, plan);
    }
    plan(body, req.originalUrl);
  };
}

type BodyCheck = (body: unknown, path: string) => void;

/** One declared response's validators by media type (none for a response without content). */
type ResponseValidators = Record<string, AjvValidate>;

function bodyCheck(rv: LibraryResponseValidator, validators: (code: string) => ResponseValidators | undefined, statusCode: number | undefined, accepts: string[]): BodyCheck {
  const status = statusCode ?? 'default';
  const statusXX = `${status.toString()[0]}XX`;
  const chosen = validators(String(status)) ?? validators(statusXX) ?? validators('default');
  if (!chosen) {
    return (_body, path) => {
      throw new InternalServerError({ path, message: `no schema defined for status code '${status}' in the openapi spec` });
    };
  }
  const types = Object.keys(chosen);
  if (types.length === 0) {
    return (body) => {
      if (body !== undefined) throw new InternalServerError({ path: '/response', message: 'response should NOT have a body' });
    };
  }
  const contentType: string | undefined = findResponseContent(accepts, types) || types[0];
  const validator = contentType ? chosen[contentType] : undefined;
  if (!contentType || !validator) {
    const warning = contentType ? 'no validator found' : 'no contentType found';
    return () => console.warn(warning);
  }
  let validatable = true;
  try {
    validatable = rv.canValidateContentType(contentType);
  } catch {
    // As the library: a media type it cannot parse is validated all the same.
  }
  return (body, path) => {
    if (body === undefined || body === null) throw new InternalServerError({ path: '/response', message: 'response body required.' });
    if (!validatable) return console.warn('Cannot validate content type', contentType);
    if (validator({ response: body })) return;
    const errors = augmentAjvErrors(validator.errors);
    throw new InternalServerError({ path, errors: ajvErrorsToValidatorError(500, errors).errors, message: rv.ajvBody.errorsText(errors, { dataVar: '' }) });
  };
}
