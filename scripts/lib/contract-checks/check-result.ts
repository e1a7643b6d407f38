/** What one check of `npm run contract` found: the text report and the JUnit XML are written from these. */

export type CheckKind = 'examples' | 'negative' | 'scenario' | 'fuzz';
/** The kinds of check in the order a run makes them, and its reports list them. */
export const CHECK_KINDS: readonly CheckKind[] = ['examples', 'negative', 'scenario', 'fuzz'];

export interface CheckResult {
  kind: CheckKind;
  /** the operation (`GET /projects`), the negative case, or the fuzz case kind */
  name: string;
  outcome: 'passed' | 'failed' | 'skipped';
  /** what was wrong (failed) or why skipped */
  message?: string;
  /** the request as a curl line and the answer */
  details?: string;
  ms: number;
  /** the operation called (examples, negative and scenario checks), and the status it answered */
  call?: { operationId: string; status: number; /** the answer's Content-Type header as sent ('' without one), where the check kept it */ contentType?: string };
}
