/** The text report of a contract check: a section per kind of check, then what was not checked or left behind, then the verdict. */
import { CHECK_KINDS, type CheckKind, type CheckResult } from './check-result.js';

export interface RunFindings {
  slug: string;
  baseUrl: string;
  /** the lines above the sections: what was checked, with which credentials, what could not be */
  header: string[];
  results: CheckResult[];
  fuzz?: { summary: string; report?: string | undefined } | undefined;
  /** why the fuzzer sent nothing, when it did not run */
  fuzzSkipped?: string | undefined;
  /** schemas that could not be compiled */
  unchecked: ReadonlySet<string>;
  /** what the run left on the server: resources it could not remove, rate windows it spent */
  leftBehind: string[];
}

export function textReport(findings: RunFindings): string {
  const lines = [...findings.header];
  for (const kind of CHECK_KINDS) lines.push(...kindSection(kind, findings), '');
  for (const note of findings.unchecked) lines.push(`Not checked: ${note}`);
  if (findings.unchecked.size) lines.push('');
  if (findings.leftBehind.length) lines.push(...findings.leftBehind, '');
  const failed = findings.results.filter((r) => r.outcome === 'failed').length;
  lines.push(failed ? `FAILED: ${failed} check(s) broke the contract of ${findings.slug}.` : `PASSED: ${findings.slug} at ${findings.baseUrl} keeps its contract.`);
  return lines.join('\n');
}

function kindSection(kind: CheckKind, findings: RunFindings): string[] {
  const rs = findings.results.filter((r) => r.kind === kind);
  const n = (o: CheckResult['outcome']) => rs.filter((r) => r.outcome === o).length;
  // Each skipped check says why below (not implemented, nothing to hold the answer to).
  const lines = [`${kind}: ${n('passed')} passed, ${n('failed')} failed${n('skipped') ? `, ${n('skipped')} skipped` : ''}`];
  if (kind === 'fuzz') {
    if (findings.fuzz) lines.push(`  ${findings.fuzz.summary}`);
    else if (findings.fuzzSkipped) lines.push(`  (skipped: ${findings.fuzzSkipped})`);
  }
  for (const r of rs) {
    if (r.outcome === 'passed') continue;
    lines.push(`  ${r.outcome === 'failed' ? '✗' : '–'} ${r.name}: ${r.message ?? ''}`);
    if (r.outcome === 'failed' && r.details) lines.push(`      ${r.details.replace(/\n/g, '\n      ')}`);
  }
  if (kind === 'fuzz' && findings.fuzz?.report) lines.push('', `  ${findings.fuzz.report.trimEnd().replace(/\n/g, '\n  ')}`);
  return lines;
}
