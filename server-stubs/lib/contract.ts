import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';
import type { OpenAPI3 } from 'openapi-typescript';
import { createAjv } from './openapi/ajv.js';
import { mountPathOf, escapePointerToken, listOperations, localRef, pointerTokens, valueAt, type Operation } from './openapi/document.js';

const generatedDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../generated');

/** An operation of the contract, with path-level parameters merged in (see `listOperations`). */
export type OperationInfo = Operation;

/** A path template of the contract, matched against request paths relative to the base path. */
interface Route {
  template: string;
  pattern: RegExp;
  names: string[];
  /** method (lower case) -> operation */
  methods: Map<string, OperationInfo>;
}

/**
 * `near`, where no operation matched: an operation of the path the request named (another method,
 * or a path that is not valid percent-encoding), or of the longest path of the contract the request
 * path lies under (`/v1/chat/completions` for `/v1/chat/completions/x`), so a service whose error
 * body differs by route (DECISIONS coder-5) answers in that route's family.
 */
export type RouteMatch =
  | { kind: 'operation'; operation: OperationInfo; pathParams: Record<string, string>; head: boolean }
  | { kind: 'method_not_allowed'; allow: string[]; near: OperationInfo }
  | { kind: 'not_found'; near?: OperationInfo | undefined }
  | { kind: 'malformed_path'; near: OperationInfo };

export interface Contract {
  slug: string;
  document: OpenAPI3;
  /** path of the first `servers` URL: where the service router must be mounted */
  basePath: string;
  operations: Map<string, OperationInfo>;
  /** the operation a request path (relative to the base path) and method address, or why none */
  match(method: string, requestPath: string): RouteMatch;
  /**
   * A validator for the schema at a place in the document (`['paths', '/projects', 'get',
   * 'responses', '200', 'content', 'application/json', 'schema']`), following `$ref`s of responses and
   * other objects on the way; compiled once, on first use.
   */
  validator(place: string[]): ValidateFunction;
}

const cache = new Map<string, Contract>();

/** The service's bundle, generated/<slug>/openapi.json: the stubs validate against exactly what ships. */
export function loadContract(slug: string): Contract {
  const cached = cache.get(slug);
  if (cached) return cached;
  const document = JSON.parse(readFileSync(path.join(generatedDir, slug, 'openapi.json'), 'utf8'));
  const contract = contractOf(slug, document);
  cache.set(slug, contract);
  return contract;
}

/**
 * Contracts by slug and document content, held weakly: the same document read twice in a process
 * (the stubs' bundle, then the mock's and the runner's reads of that text; a contract-only stub's
 * document, for every app a test file builds of it) is one contract, so its routes are built once and
 * its schemas compiled once, here and in the stubs' validators (contract-validation.ts keeps those by
 * operation). An equal document gives the same contract whoever asks: nothing in a contract is
 * anyone's own state.
 */
const byContent = new Map<string, WeakRef<Contract>>();

export function contractOf(slug: string, document: OpenAPI3): Contract {
  const key = contentKey(slug, document);
  // A document JSON cannot write (a cycle) has no content to share it by.
  if (key === undefined) return newContract(slug, document);
  const kept = byContent.get(key)?.deref();
  if (kept) return kept;
  const made = newContract(slug, document);
  // Entries whose contract nobody holds any longer go, so the map does not grow with every document read.
  for (const [other, ref] of byContent) if (ref.deref() === undefined) byContent.delete(other);
  byContent.set(key, new WeakRef(made));
  return made;
}

function contentKey(slug: string, document: OpenAPI3): string | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(document);
  } catch {
    return undefined;
  }
  return text === undefined ? undefined : `${slug}\n${createHash('sha256').update(text).digest('base64')}`;
}

function newContract(slug: string, document: OpenAPI3): Contract {
  const operations = new Map<string, OperationInfo>();
  const routes = new Map<string, Route>();
  for (const operation of listOperations(document)) {
    operations.set(operation.id, operation);
    let route = routes.get(operation.path);
    if (!route) {
      const names: string[] = [];
      const source = operation.path
        .split(/(\{[^}]+\})/)
        .map((part) => {
          const name = /^\{([^}]+)\}$/.exec(part)?.[1];
          if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(name);
          return '([^/]+)';
        })
        .join('');
      route = { template: operation.path, pattern: new RegExp(`^${source}/?$`), names, methods: new Map() };
      routes.set(operation.path, route);
    }
    route.methods.set(operation.method, operation);
  }
  // Literal paths first (`/sessions/list` before `/sessions/{id}`), as a reader of the contract expects.
  const ordered = [...routes.values()].sort((a, b) => a.names.length - b.names.length || b.template.length - a.template.length);

  const match = (method: string, requestPath: string): RouteMatch => {
    const wanted = method.toLowerCase();
    for (const route of ordered) {
      const found = route.pattern.exec(requestPath);
      if (!found) continue;
      const direct = route.methods.get(wanted);
      const operation = direct ?? (wanted === 'head' ? route.methods.get('get') : undefined);
      if (!operation) return { kind: 'method_not_allowed', allow: allowedMethods(route), near: anyOperation(route) };
      const pathParams: Record<string, string> = Object.create(null);
      try {
        route.names.forEach((name, i) => {
          pathParams[name] = decodeURIComponent(found[i + 1]!);
        });
      } catch {
        return { kind: 'malformed_path', near: operation };
      }
      return { kind: 'operation', operation, pathParams, head: wanted === 'head' && !direct };
    }
    return { kind: 'not_found', near: under(requestPath) };
  };

  /** The operation of the longest path template the request path starts with, segment by segment (literal segments win a tie). */
  const under = (requestPath: string): OperationInfo | undefined => {
    const segments = requestPath.split('/').filter(Boolean);
    let best: { route: Route; length: number; literals: number } | undefined;
    for (const route of routes.values()) {
      const template = route.template.split('/').filter(Boolean);
      if (template.length === 0 || template.length >= segments.length) continue;
      let literals = 0;
      const fits = template.every((part, i) => {
        const literal = !/\{[^}]+\}/.test(part);
        if (literal) literals++;
        return literal ? part === segments[i] : segments[i] !== '';
      });
      if (fits && (!best || template.length > best.length || (template.length === best.length && literals > best.literals))) best = { route, length: template.length, literals };
    }
    return best && anyOperation(best.route);
  };

  return { slug, document, basePath: mountPathOf(slug, document), operations, match, validator: schemaValidators(slug, document) };
}

function schemaValidators(slug: string, document: OpenAPI3) {
  const id = `https://contracts.platform.example/bundle/${slug}.json`;
  const compiled = new Map<string, ValidateFunction>();
  // By the place as asked: the checks ask for the same few places on every answer, and following
  // the pointer and its `$ref`s again each time cost more than the lookup.
  const byPlace = new Map<string, ValidateFunction>();
  let ajv: ReturnType<typeof createAjv> | undefined;
  return (place: string[]): ValidateFunction => {
    const asked = JSON.stringify(place);
    const known = byPlace.get(asked);
    if (known) return known;
    const at = bareRefTarget(document, locate(document, place));
    const key = at.map(escapePointerToken).join('/');
    let validate = compiled.get(key);
    if (!validate) {
      if (!ajv) {
        // The bundle is an OpenAPI document, not a schema: its other keywords are fine here. Checked
        // against the JSON Schema meta-schema, it would pass whatever it holds (none of its top-level
        // fields is a schema keyword, and the meta-schema reads no further), so that check, which
        // compiles the meta-schema in every contract's Ajv, is not made.
        ajv = createAjv({ strict: false, allErrors: true, validateSchema: false });
        ajv.addSchema(document, id);
      }
      validate = ajv.compile({ $ref: `${id}#/${key}` });
      compiled.set(key, validate);
    }
    byPlace.set(asked, validate);
    return validate;
  };
}

/** The real location of a place in the document, with the `$ref`s along the way followed. */
function locate(document: OpenAPI3, place: string[]): string[] {
  let node: unknown = document;
  let at: string[] = [];
  for (const key of place) {
    for (let ref = localRef(node); ref !== undefined; ref = localRef(node)) {
      at = pointerTokens(ref);
      node = valueAt(document, at);
    }
    node = valueAt(node, [key]);
    at = [...at, key];
    if (node === undefined) throw new Error(`nothing at ${place.join(' > ')}`);
  }
  return at;
}

/**
 * Where a schema that is nothing but a local `$ref` points, followed to the end: it validates as its
 * target does, so the operations whose responses name the same component share one compiled
 * validator instead of compiling it once each.
 */
function bareRefTarget(document: OpenAPI3, at: string[]): string[] {
  const seen = new Set<string>();
  for (let node = valueAt(document, at); ; ) {
    const ref = localRef(node);
    if (ref === undefined || Object.keys(node as object).length !== 1 || seen.has(ref)) return at;
    seen.add(ref);
    const next = pointerTokens(ref);
    node = valueAt(document, next);
    if (node === undefined) return at;
    at = next;
  }
}

const anyOperation = (route: Route): OperationInfo => route.methods.values().next().value!;

function allowedMethods(route: Route): string[] {
  const methods = [...route.methods.keys()].map((m) => m.toUpperCase());
  if (methods.includes('GET') && !methods.includes('HEAD')) methods.push('HEAD');
  if (!methods.includes('OPTIONS')) methods.push('OPTIONS');
  return methods;
}

/** The statuses an operation documents, as strings (`200`, `4XX`, `default`). */
export function declaredStatuses(operation: OperationInfo): string[] {
  return Object.keys(operation.op.responses ?? {});
}

/** The response key that documents `status`: the status itself, its range (`4XX`) or `default`. */
export function responseKeyFor(operation: OperationInfo, status: number): string | undefined {
  const declared = declaredStatuses(operation);
  return [String(status), `${String(status)[0]}XX`, 'default'].find((key) => declared.includes(key));
}

/** The response keys an answer can have over HTTP: every declared one but the informational (1xx), which cannot end an exchange. */
export function answerableKeys(operation: OperationInfo): string[] {
  return declaredStatuses(operation).filter((key) => !/^1(\d\d|XX)$/i.test(key));
}

/**
 * Whether an operation documents only failures (no 2xx, 3xx or `default`: `GET /status/503` of a
 * document that lists HTTP statuses, a `PUT` whose success was left out): a declared 4xx or 5xx is
 * then its documented answer, not a refusal or a crash.
 */
export function documentsOnlyFailures(operation: OperationInfo): boolean {
  const keys = answerableKeys(operation);
  return keys.length > 0 && keys.every((key) => /^[45](\d\d|XX)$/i.test(key));
}

/** Whether the operation documents `status`, exactly or through a range (`4XX`) or `default`. */
export function declares(operation: OperationInfo, status: number): boolean {
  return responseKeyFor(operation, status) !== undefined;
}

/** Whether the operation takes input the validator can refuse: parameters or a body. */
export function takesInput(operation: OperationInfo): boolean {
  return operation.op.parameters.length > 0 || operation.op.requestBody !== undefined;
}

/** Whether any security requirement of the operation names a scheme (an empty `{}` means anonymous is fine). */
export function isSecured(document: OpenAPI3, operation: OperationInfo): boolean {
  const requirements: Array<Record<string, unknown>> = operation.op.security ?? document.security ?? [];
  return requirements.length > 0 && requirements.every((r) => Object.keys(r).length > 0);
}

/**
 * The status of input that fails the contract: 400, or 422 on an operation that declares 422 and
 * not 400 (APIs in the FastAPI style answer validation with 422).
 */
export function badInputStatus(operation: OperationInfo): 400 | 422 {
  return !declares(operation, 400) && declares(operation, 422) ? 422 : 400;
}

/**
 * Every status the framework itself can answer for an operation, before any handler runs: 400 (or 422, see badInputStatus) for
 * input that fails the contract (invalid JSON, too large, wrong media type and too many fields all
 * fold into it unless the operation declares 413 or 415), 401 where it is secured, 429 where it is
 * rate limited. The contract rules check that each is declared (DECISIONS G-2).
 */
export function frameworkStatuses(document: OpenAPI3, operation: OperationInfo): number[] {
  const statuses: number[] = [];
  if (takesInput(operation)) statuses.push(badInputStatus(operation));
  if (isSecured(document, operation)) statuses.push(401);
  if (operation.op['x-rate-limit']) statuses.push(429);
  return statuses;
}
