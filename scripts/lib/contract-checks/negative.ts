/**
 * The `negative` checks: each secured operation without credentials answers a declared 401; each
 * operation taking JSON answers a malformed JSON body with a declared 4xx; an unknown path answers
 * 404. Against a stateless mock the malformed-JSON answer is held to its status only (Prism answers
 * its own error body there, not the service's).
 */
import type { OpenAPI3 } from 'openapi-typescript';
import { answerableKeys, declares, isSecured, type OperationInfo } from '../../../server-stubs/lib/contract.js';
import { deref } from '../../../server-stubs/lib/openapi/document.js';
import { isJsonType } from '../../../server-stubs/lib/media-types.js';
import { exampleRequest } from '../example-request.js';
import { answerProblems, problemFallback } from './answer-problems.js';
import type { CheckResult } from './check-result.js';
import { asWireRequest, checkRequest, unknownPathRequest } from './checked-request.js';
import type { ContractRunContext } from './run-context.js';

export async function negativeChecks(run: ContractRunContext): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  // An operation that declares no responses has no refusal to hold an answer to either.
  const answerable = run.operations.filter((operation) => answerableKeys(operation).length > 0);
  // A mutual-TLS credential is the connection's, not the request's: there is nothing to leave out.
  const secured = answerable.filter((operation) => isSecured(run.document, operation) && !onlyMutualTls(run.document, operation));
  for (const operation of secured) results.push(await withoutCredentialsCheck(run, operation));
  const takingJson = answerable.filter((operation) => Object.keys(deref(run.document, operation.op.requestBody)?.content ?? {}).some(isJsonType));
  for (const operation of takingJson) results.push(await malformedJsonCheck(run, operation));
  results.push(await unknownPathCheck(run));
  return results;
}

function withoutCredentialsCheck(run: ContractRunContext, operation: OperationInfo): Promise<CheckResult> {
  const r = asWireRequest(exampleRequest(run.document, operation, () => ({})), 'no credentials');
  const { fallbackRefusals } = run.credentials;
  return checkRequest(run, 'negative', `${operation.label} without credentials`, r, (o) => {
    if (o.status === 501) return 'not implemented';
    if (fallbackRefusals && problemFallback(operation, o, (s) => s === 401)) return [];
    const problems = answerProblems(run, operation, o, { statuses: (s) => s === 401, what: '401' });
    if (!declares(operation, 401) && !fallbackRefusals) problems.unshift('the contract does not declare 401 for this secured operation');
    return problems;
  }, operation);
}

function malformedJsonCheck(run: ContractRunContext, operation: OperationInfo): Promise<CheckResult> {
  const r = run.withExtra(asWireRequest(exampleRequest(run.document, operation, run.credentials.exampleCredentials), 'malformed JSON'));
  r.headers = { ...r.headers, 'content-type': 'application/json' };
  r.body = ['{"truncated":'];
  return checkRequest(run, 'negative', `${operation.label} with malformed JSON`, r, (o) => {
    if (o.status === 501) return 'not implemented';
    if (run.credentials.fallbackRefusals && problemFallback(operation, o, (s) => s === 400)) return [];
    return answerProblems(run, operation, o, { statuses: (s) => s >= 400 && s < 500, what: 'a declared 4xx', statusOnly: run.stateless });
  }, operation);
}

function unknownPathCheck(run: ContractRunContext): Promise<CheckResult> {
  return checkRequest(run, 'negative', 'unknown path answers 404', unknownPathRequest(run, 'unknown path'), (o) =>
    o.error ? [`no answer: ${o.error}`] : o.status === 404 ? [] : [`expected 404, got ${o.status}`],
  );
}

/** Whether every security requirement of the operation includes a mutualTLS scheme. */
function onlyMutualTls(document: OpenAPI3, operation: OperationInfo): boolean {
  const requirements: Array<Record<string, unknown>> = operation.op.security ?? document.security ?? [];
  return requirements.every((r) => Object.keys(r).some((name) => deref(document, document.components?.securitySchemes?.[name])?.type === 'mutualTLS'));
}
