/**
 * The `fuzz` check: the fuzzer (scripts/lib/fuzz/), a fixed seed, `runs` requests, its findings
 * gathered per case kind. Against a stateless mock only the checks that hold for one are kept.
 */
import type { FuzzConfig } from '../fuzz/config.js';
import type { Violation } from '../fuzz/oracle.js';
import { formatCases, formatReport } from '../fuzz/report.js';
import { runFuzz, type FuzzTarget, type Judged } from '../fuzz/runner.js';
import type { FuzzRequest } from '../fuzz/wire.js';
import type { CheckResult } from './check-result.js';
import type { ContractRunContext } from './run-context.js';

/**
 * What the fuzzer's oracle may still demand of a stateless mock. Prism answers a declared example
 * to any request that passes its own request validation, and answers the rest itself (its
 * problem+json, 405 for HEAD, 406, a 500 for an odd content type, its own JSON parse error body):
 * those answers are the mock's, not the contract's. So:
 * - every answer: it arrives, with no HTML, stack trace or file path (`STATELESS_ALWAYS`);
 * - answers to the valid requests the generator built (cases `valid…`, about half): a declared
 *   status, no 5xx, a declared media type and a body valid against the contract (`STATELESS_VALID`);
 * The unknown-path 404 is left to the negative check (Prism resolves dot segments, `/./x`, as a
 * route, which a server may rightly do). Dropped: every check of what a server decides (bad input refused, credentials checked, unknown
 * query parameters ignored), the shape of error bodies, CORS, OPTIONS/405/HEAD handling, 501 bodies.
 */
export const STATELESS_ALWAYS: ReadonlySet<string> = new Set(['no answer', 'HTML body', 'stack trace or file path in body']);
export const STATELESS_VALID: ReadonlySet<string> = new Set([
  'server error (5xx)',
  'status not declared for the operation',
  'response media type not declared',
  'response body does not match the contract',
  'body on a response declared without content',
]);

/** Does a fuzz violation count against a stateless mock? */
export function holdsForStatelessMock(request: Pick<FuzzRequest, 'case' | 'expect'>, violation: Violation): boolean {
  // `expect: accept` is a request the generator checked valid (a body it could build in its media type included).
  return STATELESS_ALWAYS.has(violation.kind) || (request.case.startsWith('valid') && request.expect === 'accept' && STATELESS_VALID.has(violation.kind));
}

export interface FuzzSettings {
  runs: number;
  seed: number;
  config: FuzzConfig;
  /** time allowed to shrink failures (default: the config's) */
  shrinkMs?: number | undefined;
}

export interface FuzzFindings {
  /** one result per case kind */
  results: CheckResult[];
  /** the report's line on the run: requests, time, seed, cases */
  summary: string;
  /** the fuzzer's own report of what failed, shrunk, with a replay line */
  report?: string;
  /** what the run spent on the server (rate windows) */
  notes: string[];
}

/** What the explore phase saw of one case kind. */
interface CaseTally {
  count: number;
  failed: number;
  kinds: Map<string, number>;
  first?: Judged;
}

export async function fuzzChecks(run: ContractRunContext, settings: FuzzSettings): Promise<FuzzFindings> {
  const { runs, seed, config } = settings;
  const base = run.fuzzTarget();
  const byCase = new Map<string, CaseTally>();
  const result = await runFuzz(tallied(run, base, runs, byCase), { ...config, seed, numRuns: runs, shrinkBudgetMs: settings.shrinkMs ?? config.shrinkBudgetMs });
  const perCase = result.ms / Math.max(1, result.runs);
  const stateless = run.stateless ? ' --stateless' : '';
  const replay = `npm run contract -- --base-url ${run.baseUrl} --service ${run.slug}${stateless} --seed ${seed} --runs ${runs}`;
  return {
    results: [...byCase].sort((a, b) => a[0].localeCompare(b[0])).map(([name, tally]) => caseResult(name, tally, perCase)),
    summary: `fuzz: ${result.runs} requests in ${(result.ms / 1000).toFixed(1)} s (seed ${result.seed}${run.stateless ? ', stateless checks only' : ''}); cases: ${formatCases(result)}`,
    ...(result.kinds.length ? { report: formatReport(`fuzz ${run.slug}`, result, replay) } : {}),
    notes: base.rateLimited() > 0 ? [`rate limits: ${base.rateLimited()} answers were 429; clients of the same credentials wait out the window (Retry-After) too`] : [],
  };
}

/**
 * The target, its violations narrowed for a stateless mock, and each of the first `runs` requests
 * (the explore phase; the shrink phase's replays after them are not counted) tallied by case kind.
 */
function tallied(run: ContractRunContext, base: FuzzTarget<FuzzRequest>, runs: number, byCase: Map<string, CaseTally>): FuzzTarget<FuzzRequest> {
  let executed = 0;
  return {
    ...base,
    async execute(value) {
      const explore = executed++ < runs;
      const judged = await base.execute(value);
      const violations = run.stateless ? judged.violations.filter((v) => holdsForStatelessMock(value, v)) : judged.violations;
      if (explore) {
        const tally = byCase.get(value.case) ?? { count: 0, failed: 0, kinds: new Map<string, number>() };
        tally.count++;
        if (violations.length) {
          tally.failed++;
          for (const v of violations) tally.kinds.set(v.kind, (tally.kinds.get(v.kind) ?? 0) + 1);
          tally.first ??= { ...judged, violations };
        }
        byCase.set(value.case, tally);
      }
      return { ...judged, violations };
    },
  };
}

function caseResult(name: string, tally: CaseTally, perCase: number): CheckResult {
  const ms = perCase * tally.count;
  if (!tally.failed) return { kind: 'fuzz', name, outcome: 'passed', ms };
  const kinds = [...tally.kinds].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} (${n})`);
  const first = tally.first!;
  return {
    kind: 'fuzz',
    name,
    outcome: 'failed',
    message: `${tally.failed} of ${tally.count} requests: ${kinds.join(', ')}`,
    details: `${first.violations.map((v) => `- ${v.kind}: ${v.detail}`).join('\n')}\n→ ${first.request}\n← ${first.response}`,
    ms,
  };
}
