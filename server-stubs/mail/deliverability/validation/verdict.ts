/**
 * From the checks to the verdict, the score and the batch class: the rules the contract documents
 * in `ValidationResult` (verdict, score) and the batch `summary` (classes). Change them together.
 */

/** What the MX look-up said: records, none (NXDOMAIN, no MX, null MX), no answer, or not asked (bad syntax). */
export type MxState = 'found' | 'none' | 'unanswered' | 'unchecked';

export interface Findings {
  syntax: boolean;
  mx: MxState;
  smtp: boolean | null;
  catchAll: boolean | null;
  disposable: boolean;
  roleAccount: boolean;
}

export type ResultClass = 'valid' | 'invalid' | 'risky' | 'unknown';

/** The address cannot receive mail: nothing about it is uncertain. */
const undeliverable = (f: Findings) => !f.syntax || f.mx === 'none' || f.mx === 'unchecked' || f.smtp === false;

export function isValid(f: Findings): boolean {
  return f.syntax && f.mx === 'found' && f.smtp !== false;
}

export function scoreOf(f: Findings): number {
  if (undeliverable(f)) return 0;
  const deductions = [
    f.mx === 'unanswered' ? 40 : 0,
    f.smtp === null ? 10 : 0,
    f.catchAll === true ? 20 : f.catchAll === null ? 5 : 0,
    f.roleAccount ? 20 : 0,
    f.disposable ? 50 : 0,
  ];
  // 0 is kept for "cannot receive mail", so an uncertain address never reaches it.
  return Math.max(1, 100 - deductions.reduce((a, b) => a + b, 0));
}

export function classOf(f: Findings): ResultClass {
  if (undeliverable(f)) return 'invalid';
  if (f.mx === 'unanswered') return 'unknown';
  if (f.disposable || f.roleAccount || f.catchAll === true) return 'risky';
  return 'valid';
}
