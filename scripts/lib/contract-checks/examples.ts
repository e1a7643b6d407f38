/**
 * The `examples` check: every operation called with the contract's own examples; the answer must
 * have a declared status, not be a server error, and carry a body valid against the contract.
 */
import { answerableKeys, isSecured, type OperationInfo } from '../../../server-stubs/lib/contract.js';
import { isJsonType } from '../../../server-stubs/lib/media-types.js';
import { exampleRequest, type BuiltRequest } from '../example-request.js';
import type { FuzzRequest } from '../fuzz/wire.js';
import { answerProblems, problemFallback } from './answer-problems.js';
import type { CheckResult } from './check-result.js';
import { asWireRequest, checkRequest } from './checked-request.js';
import type { ContractRunContext } from './run-context.js';

export async function exampleChecks(run: ContractRunContext): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const operation of run.operations) results.push(await exampleCheck(run, operation));
  return results;
}

async function exampleCheck(run: ContractRunContext, operation: OperationInfo): Promise<CheckResult> {
  const skipped = (message: string): CheckResult => ({ kind: 'examples', name: operation.label, outcome: 'skipped', message, ms: 0 });
  if (answerableKeys(operation).length === 0) {
    const why = Object.keys(operation.op.responses ?? {}).length === 0 ? 'declares no responses' : 'declares only informational (1xx) answers, which HTTP cannot send as a response';
    return skipped(`the operation ${why}: no answer can be held to it`);
  }
  const built = exampleRequest(run.document, operation, run.credentials.exampleCredentials);
  const unfit = unfitSampledBody(run, operation, built);
  if (unfit.length > 0) return skipped(`no request example, and none could be built from the schemas (${unfit.slice(0, 2).join('; ')})`);
  const r = run.withExtra(asWireRequest(built, 'example'));
  const credentialed = sendsCredentials(run, operation, r);
  return checkRequest(run, 'examples', operation.label, r, (o) => {
    if (o.status === 501) return 'not implemented';
    // A form or multipart body sampled from the schema may not be written as the server reads
    // it (one part for a one-item list, say): its refusal proves nothing either way.
    if (built.sampledBody && run.credentials.fallbackRefusals && problemFallback(operation, o, (s) => s === 400)) {
      return { skipped: `no request example, and the ${built.sampledBody.mediaType} body built from the schema was refused: ${o.body.slice(0, 200)}` };
    }
    const problems = answerProblems(run, operation, o);
    // A declared 401 keeps the contract, but every example refused means nothing was checked.
    if (credentialed && o.status === 401) problems.unshift('the credentials sent were refused (401): check --header / CONTRACT_HEADERS');
    return problems;
  }, operation);
}

/**
 * What the schema itself refuses in a JSON body sampled from it (a format or a default the sampler
 * cannot honour): such a request calls nothing, as a refusal of it would be the runner's fault.
 */
function unfitSampledBody(run: ContractRunContext, operation: OperationInfo, built: BuiltRequest): string[] {
  const sampled = built.sampledBody;
  if (!sampled || !isJsonType(sampled.mediaType)) return [];
  try {
    return run.checker.requestErrors(operation.path, operation.method, sampled.value, sampled.mediaType);
  } catch {
    return [];
  }
}

/** Does the example carry credentials the operation could refuse? */
function sendsCredentials(run: ContractRunContext, operation: OperationInfo, r: FuzzRequest): boolean {
  const anonymous = asWireRequest(exampleRequest(run.document, operation, () => ({})), 'example');
  // An operation that declares no success (only its 401, say) is not refusing the credentials sent.
  const succeeds = Object.keys(operation.op.responses ?? {}).some((key) => /^2/.test(key));
  return succeeds && isSecured(run.document, operation) && (run.credentials.given.length > 0 || r.path !== anonymous.path || Object.keys(r.headers).length > Object.keys(anonymous.headers).length);
}
