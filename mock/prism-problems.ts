/**
 * Prism's own refusals, answered in problem+json (RFC 9457) with a `type` under Prism's errors page,
 * are no answer of the contract: a client of the stubs never meets them, and the validating proxy took
 * each for an answer off the contract (a 500). Each is told as the stubs tell the same refusal: in the
 * service's error body, with a status the operation declares (folded as the stubs fold theirs).
 *
 * The ones a client can reach are a path Prism normalises away (`/projects/..` is `/` to Prism) after
 * the front matched it to an operation, and an error Prism throws while answering (mock/prism.ts).
 */
import type { OperationInfo } from '../server-stubs/lib/contract.js';
import type { Failure, FailureKind } from '../server-stubs/lib/errors.js';
import { declaredFailure } from '../server-stubs/lib/failures.js';

export const PRISM_ERRORS = 'https://stoplight.io/prism/errors#';

/** The fields of Prism's problem body read here. */
export interface PrismProblem {
  type: string;
  title?: unknown;
  detail?: unknown;
  /** the request's violations, in the 422 Prism answers where the operation declares no 400 or 422 */
  validation?: unknown;
}

/** Prism's refusals by the status it gives them, as the kind of failure the stubs answer with. */
const kinds: Record<number, FailureKind> = {
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'unsupported_media_type',
  415: 'unsupported_media_type',
};

/** The failure a request gets for Prism's refusal `problem` (answered with `status`) of `method path` (with the base path). */
export function prismRefusal(operation: OperationInfo | undefined, method: string, path: string, status: number, problem: PrismProblem): Failure {
  const kind = status >= 500 ? 'internal' : (kinds[status] ?? 'validation');
  const said = [problem.title, problem.detail].filter((part) => typeof part === 'string' && part).join(': ');
  // Prism names the path it normalised to, which the client never sent: worded as the stubs' 404.
  const message = problem.type === `${PRISM_ERRORS}NO_PATH_MATCHED_ERROR` ? `No route ${method} ${path}` : kind === 'internal' ? `The mock could not answer: ${said}` : said;
  const failure: Failure = { kind, status: status >= 500 ? 500 : status, message };
  return operation ? declaredFailure(failure, operation) : failure;
}
