/**
 * Contract validation on the request path: express-openapi-validator's security handlers, and its
 * request and response validators (its ajv instances, keywords, compiled schemas and error objects),
 * assembled (validator-adapter.ts) rather than through its `middleware()` so a request pays only
 * for validating.
 *
 * Profiled under load (bench/RESULTS.md), the middleware's per-request cost was mostly not
 * validation: its route lookup compiles a path-to-regexp for every path of the contract on every
 * request (~110 regexes per request for mail); each of its five middlewares waits on a settled
 * promise; per request it builds a parameter mutator, parses the content type for a cache key, and
 * wraps `res.json` to look the response validators up again. Here the router's own match
 * (`req.matched`) finds the operation, each operation's checks are built once (per request content
 * type, as the library keys them), and the steps run synchronously once built. What a request is
 * checked against, how it is coerced and defaulted, and the errors failures.ts maps are the library's.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { OpenAPI3 } from 'openapi-typescript';
import type { Contract, OperationInfo } from './contract.js';
import { runSteps, type Step } from './middleware-chain.js';
import { compilableDocument } from './compilable-document.js';
import { operationDocument } from './operation-document.js';
import { securityCheck } from './security-check.js';
import { compileOperation, contentTypeKey, OpenApiRequest, type CompiledOperation, type OperationMetadata, type RequestCheck, type ResponseCheck, type ValidationOptions } from './validator-adapter.js';

export type { ValidationOptions } from './validator-adapter.js';

interface OperationChecks {
  operation: OperationInfo;
  metadata: OperationMetadata;
  /** by the request's normalized content type, as the library keys its validators */
  request: Map<string, RequestCheck>;
  response?: ResponseCheck;
  /** security, then the request check: made once per operation */
  steps?: Step[];
}

interface Built {
  /** the operation's checks; none when the library does not route it */
  checks: OperationChecks | undefined;
  security?: Step;
  requestCheck?: (checks: OperationChecks, contentType: string, req: Request) => RequestCheck;
  responseCheck?: (checks: OperationChecks) => ResponseCheck;
}

/**
 * One middleware: the operation's metadata from `req.matched`, then security and the request check;
 * the response check is left on `req.matched` for the answer. Each operation's checks are built on
 * its first request, from its own slice of the contract (operation-document.ts): compiling a
 * contract's validators was most of a service's start.
 */
export function contractValidation(contract: Contract, options: ValidationOptions): RequestHandler {
  const ready = new Map<OperationInfo, Built>();
  const building = new Map<OperationInfo, Promise<Built>>();
  const run = (built: Built, req: Request, res: Response, next: NextFunction) => {
    const { checks } = built;
    const matched = req.matched;
    if (!matched || !checks) return next();
    const pathParams = { ...matched.pathParams };
    req.openapi = new OpenApiRequest(checks.metadata, pathParams);
    // As the library's metadata middleware sets it: one object, which its mutator and the request
    // check read and coerce in place (Express types it as text, which it is not once coerced).
    req.params = pathParams as Request['params'];
    if (built.responseCheck) matched.checkResponse = checks.response ??= built.responseCheck(checks);
    runSteps((checks.steps ??= operationSteps(built, checks)), req, res, next);
  };
  return (req, res, next) => {
    const operation = req.matched?.operation;
    if (!operation) return next();
    const built = ready.get(operation);
    if (built) return run(built, req, res, next);
    let pending = building.get(operation);
    if (!pending) {
      pending = build(contract.document, operation, options);
      building.set(operation, pending);
      // A failed build is not kept: the next request tries again.
      void pending.then(
        (done) => {
          ready.set(operation, done);
          building.delete(operation);
        },
        () => building.delete(operation),
      );
    }
    pending.then((done) => run(done, req, res, next), next);
  };
}

function operationSteps(built: Built, checks: OperationChecks): Step[] {
  const steps: Step[] = [];
  if (built.security) steps.push(built.security);
  const makeCheck = built.requestCheck;
  if (makeCheck) {
    steps.push((req, _res, next) => {
      const key = contentTypeKey(req);
      let check = checks.request.get(key);
      if (!check) {
        // Built per content type on first sight, as the library does: an unsupported type fails here (415).
        check = makeCheck(checks, key, req);
        checks.request.set(key, check);
      }
      check(req);
      next();
    });
  }
  return steps;
}

/**
 * An operation's compiled validators, by the validation settings: the same for every app that serves
 * the loaded contract (the security handlers, an app's own, are not in them), so a process compiles
 * each once however many apps it starts (a test file starts one per test).
 */
const compiledOperations = new WeakMap<OperationInfo, Map<string, Promise<CompiledOperation>>>();

function compiledOperation(document: OpenAPI3, operation: OperationInfo, options: ValidationOptions): Promise<CompiledOperation> {
  let bySettings = compiledOperations.get(operation);
  if (!bySettings) compiledOperations.set(operation, (bySettings = new Map()));
  const settings = `${options.validateRequests} ${options.validateResponses}`;
  let compiled = bySettings.get(settings);
  if (!compiled) {
    compiled = compileOperation(compilableDocument(operationDocument(document, operation.path, operation.method)), operation, options);
    bySettings.set(settings, compiled);
    // A failed compile is not kept: the next request tries again.
    compiled.catch(() => bySettings.delete(settings));
  }
  return compiled;
}

async function build(document: OpenAPI3, operation: OperationInfo, options: ValidationOptions): Promise<Built> {
  const compiled = await compiledOperation(document, operation, options);
  const { metadata, apiDoc } = compiled;
  const built: Built = { checks: metadata && { operation, metadata, request: new Map() } };
  if (apiDoc.components?.securitySchemes) built.security = securityCheck(apiDoc, options.security);
  const { requestCheck, responseCheck } = compiled;
  if (requestCheck) built.requestCheck = (checks, contentType, req) => requestCheck(checks.operation, checks.metadata, contentType, req);
  if (responseCheck) built.responseCheck = (checks) => responseCheck(checks.operation, checks.metadata);
  return built;
}
