/**
 * The error bodies the mock answers itself: the service's own mapper (the one its stub answers
 * with), or for a contract without a stub the document's declared error shapes (the contract-only
 * stub's `contractErrors`, DECISIONS I-2), with the status folded into one the operation declares,
 * as the stubs fold theirs.
 */
import { badInputStatus, declares, type Contract } from '../server-stubs/lib/contract.js';
import { contractErrors } from '../server-stubs/lib/contract-errors.js';
import { failedOperation, type ErrorMapper, type Failure } from '../server-stubs/lib/errors.js';
import type { OperationInfo } from '../server-stubs/lib/contract.js';

/**
 * The service's mapper, with the status made one the operation declares: a bad request is 400, or
 * 422 where only that is declared (`badInputStatus`); the validating proxy names 400 and 502 whatever
 * the operation says, so its answers pass through here too.
 */
export function foldedErrors(contract: Contract, errors: ErrorMapper): ErrorMapper {
  return (failure) => {
    const operation = failure.operation ? contract.operations.get(failure.operation.id) : undefined;
    return errors(operation ? { ...failure, status: declaredStatus(operation, failure) } : failure);
  };
}

/** The mapper of a service without a stub (an imported document): its declared errors, the refusal's sentence in them. */
export function documentErrors(contract: Contract): ErrorMapper {
  return contractErrors(contract.document, { toldExamples: true });
}

function declaredStatus(operation: OperationInfo, failure: Failure): number {
  if (declares(operation, failure.status)) return failure.status;
  const fallback = failure.kind === 'validation' ? badInputStatus(operation) : failure.kind === 'internal' ? 500 : failure.status;
  return declares(operation, fallback) ? fallback : failure.status;
}

/** A failure of the operation, in the shape the mapper expects. */
export function failureFor(operation: OperationInfo | undefined, failure: Omit<Failure, 'operation'>): Failure {
  return { ...failure, operation: operation && failedOperation(operation) };
}
