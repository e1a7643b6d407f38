/**
 * The error bodies the mock answers itself: the service's own mapper (the one its stub answers
 * with), or for a contract without a stub the document's declared error shapes (`documentErrors`),
 * with the status folded into one the operation declares, as the stubs fold theirs.
 */
import { STATUS_CODES } from 'node:http';
import { badInputStatus, declares, responseKeyFor, type Contract } from '../server-stubs/lib/contract.js';
import { describeIssues, failedOperation, type ErrorMapper, type Failure } from '../server-stubs/lib/errors.js';
import type { OperationInfo } from '../server-stubs/lib/contract.js';
import { deref, firstExample, type JsonNode } from '../scripts/lib/operations.js';
import { sampleOf } from '../scripts/lib/sample.js';

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

function declaredStatus(operation: OperationInfo, failure: Failure): number {
  if (declares(operation, failure.status)) return failure.status;
  const fallback = failure.kind === 'validation' ? badInputStatus(operation) : failure.kind === 'internal' ? 500 : failure.status;
  return declares(operation, fallback) ? fallback : failure.status;
}

/** A failure of the operation, in the shape the mapper expects. */
export function failureFor(operation: OperationInfo | undefined, failure: Omit<Failure, 'operation'>): Failure {
  return { ...failure, operation: operation && failedOperation(operation) };
}

/**
 * The body of an error the contract declares without content. Writers of mapped errors send no
 * body for it; one that can only write JSON text (the stubs' validating proxy) writes
 * `NO_BODY_TEXT`, which the front drops on the way out (front.ts).
 */
const NO_BODY_MARKER = '\u0000no body';
export const NO_BODY_TEXT = JSON.stringify(NO_BODY_MARKER);
export const NO_BODY = { toJSON: () => NO_BODY_MARKER };

/** An error body's message goes into the first of these the declared body has as a string. */
const MESSAGE_FIELDS = ['message', 'detail', 'error_description', 'error', 'title', 'description', 'msg'];

/**
 * For a service without a stub (an imported document, DECISIONS I-2): the error the document
 * declares for the status (exact, its range, or `default`), in its declared media type, from its
 * example or else a sample of its schema, with the message put where the body has room for one;
 * where the document declares nothing fitting, RFC 9457 `application/problem+json`. The media type
 * travels as the Content-Type header of the mapped answer.
 */
export function documentErrors(contract: Contract): ErrorMapper {
  return (failure) => {
    const operation = failure.operation ? contract.operations.get(failure.operation.id) : undefined;
    const key = operation ? responseKeyFor(operation, failure.status) : undefined;
    const response = key ? deref(contract.document, operation!.op.responses[key]) : undefined;
    // Declared without content (`400: {description: Invalid ID}`): the answer has none either.
    if (response && Object.keys(response.content ?? {}).length === 0) return { status: failure.status, body: NO_BODY };
    const declared = declaredBody(contract, operation, key, response, describeIssues(failure));
    if (declared) return { status: failure.status, body: declared.body, headers: { 'Content-Type': declared.mediaType } };
    return {
      status: failure.status,
      body: { type: 'about:blank', title: STATUS_CODES[failure.status] ?? 'Error', status: failure.status, detail: describeIssues(failure) },
      headers: { 'Content-Type': 'application/problem+json' },
    };
  };
}

function declaredBody(contract: Contract, operation: OperationInfo | undefined, key: string | undefined, response: JsonNode | undefined, message: string) {
  const content: JsonNode = response?.content ?? {};
  // JSON first: the front writes the body as JSON text.
  const mediaType = Object.keys(content).find((type) => /json/i.test(type));
  if (!operation || !key || !mediaType) return undefined;
  const media = content[mediaType] ?? {};
  const example = firstExample(contract.document, media);
  const base = example.found ? example.value : sampleOf(contract.document, media.schema, 'response').value;
  if (base === undefined) return undefined;
  const place = ['paths', operation.path, operation.method, 'responses', key, 'content', mediaType, 'schema'];
  const field = base && typeof base === 'object' && !Array.isArray(base) ? MESSAGE_FIELDS.find((f) => typeof (base as JsonNode)[f] === 'string') : undefined;
  if (field && media.schema) {
    const told = { ...(base as JsonNode), [field]: message };
    try {
      if (contract.validator(place)(told)) return { mediaType, body: told };
    } catch {
      // a schema Ajv cannot compile: the body as declared, unchecked
    }
  }
  return { mediaType, body: base };
}
