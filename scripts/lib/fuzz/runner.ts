/**
 * Runs a fuzz target in two phases.
 *
 * 1. Explore: `fc.check` drives generation with a fixed seed, and every generated case is sent
 *    (several at a time: the predicate only waits for a free slot) and judged by the oracle. The
 *    predicate never fails, so all `numRuns` cases run and every violation is collected.
 * 2. Shrink: for each kind of violation, `fc.check` replays the run where the kind first showed
 *    (same seed, `path` = that run's index) with a predicate that fails on that kind, so fast-check
 *    shrinks it to a minimal request. Replays run one at a time against the same server, so a
 *    state-dependent failure (a rate limit that has since filled up) may not reproduce: then the
 *    report shows the original example.
 */
import fc from 'fast-check';
import type { Violation } from './oracle.js';

export interface Judged {
  violations: Violation[];
  /** the request and the answer, as printed in the report; a target may leave them empty when there is no violation */
  request: string;
  response: string;
}

export interface FuzzTarget<T> {
  arbitrary: fc.Arbitrary<T>;
  /** sends one case and judges its answer */
  execute(value: T): Promise<Judged>;
  /** the case's category, for the run's statistics */
  caseOf(value: T): string;
}

export interface KindReport {
  kind: string;
  count: number;
  /** distinct details with their counts, most frequent first */
  details: Array<[string, number]>;
  /** first run index where the kind appeared (replay with FUZZ_SEED and this path) */
  firstRun: number;
  /** the shrunk example, or the original one when the failure did not reproduce */
  minimal: Judged & { shrunk: boolean; shrinks: number; path?: string | undefined };
  /** the example as first found, unshrunk (for a failure that depends on earlier requests, the cause is near it) */
  first: Judged;
  /** another original example with a different detail, when there is one */
  other?: Judged | undefined;
}

export interface FuzzResult {
  seed: number;
  runs: number;
  ms: number;
  cases: Array<[string, number]>;
  kinds: KindReport[];
}

export interface FuzzOptions {
  seed: number;
  numRuns: number;
  concurrency: number;
  /** time allowed for shrinking, all kinds together, and per kind */
  shrinkBudgetMs: number;
  shrinkPerKindMs: number;
}

export async function runFuzz<T>(target: FuzzTarget<T>, options: FuzzOptions): Promise<FuzzResult> {
  const started = Date.now();
  const results: Array<{ value: T; judged: Judged } | undefined> = [];
  const cases = new Map<string, number>();
  let index = 0;
  let inFlight = 0;
  const waiting: Array<() => void> = [];
  const pending = new Set<Promise<void>>();

  // Phase 1: explore. The property returns at once after starting its request (bounded by `concurrency`).
  await fc.check(
    fc.asyncProperty(target.arbitrary, async (value) => {
      const run = index++;
      cases.set(target.caseOf(value), (cases.get(target.caseOf(value)) ?? 0) + 1);
      while (inFlight >= options.concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
      inFlight++;
      const job = target
        .execute(value)
        .catch((error: unknown): Judged => ({ violations: [{ kind: 'fuzzer error', detail: String(error) }], request: '', response: '' }))
        .then((judged) => {
          results[run] = { value, judged };
        })
        .finally(() => {
          inFlight--;
          pending.delete(job);
          waiting.shift()?.();
        });
      pending.add(job);
      return true;
    }),
    { seed: options.seed, numRuns: options.numRuns },
  );
  await Promise.all([...pending]);

  const byKind = new Map<string, { count: number; details: Map<string, number>; runs: number[] }>();
  results.forEach((r, run) => {
    if (!r) return;
    const kindsHere = new Set<string>();
    for (const v of r.judged.violations) {
      const entry = byKind.get(v.kind) ?? { count: 0, details: new Map<string, number>(), runs: [] as number[] };
      entry.details.set(v.detail, (entry.details.get(v.detail) ?? 0) + 1);
      if (!kindsHere.has(v.kind)) {
        entry.count++;
        entry.runs.push(run);
        kindsHere.add(v.kind);
      }
      byKind.set(v.kind, entry);
    }
  });

  // Phase 2: shrink, most frequent kinds first, within the budget.
  const kinds: KindReport[] = [];
  const shrinkDeadline = Date.now() + options.shrinkBudgetMs;
  for (const [kind, entry] of [...byKind].sort((a, b) => b[1].count - a[1].count)) {
    const firstRun = entry.runs[0]!;
    const original = results[firstRun]!;
    let minimal: KindReport['minimal'] = { ...original.judged, shrunk: false, shrinks: 0 };
    const remaining = shrinkDeadline - Date.now();
    if (remaining > 200) {
      let lastFailure: Judged | undefined;
      const details = await fc.check(
        fc.asyncProperty(target.arbitrary, async (value) => {
          const judged = await target.execute(value);
          const failed = judged.violations.some((v) => v.kind === kind);
          if (failed) lastFailure = judged;
          return !failed;
        }),
        {
          seed: options.seed,
          path: String(firstRun),
          numRuns: options.numRuns,
          endOnFailure: false,
          plugins: [fc.interruptAfterTimeLimit(Math.min(options.shrinkPerKindMs, remaining))],
        },
      );
      if (details.failed && lastFailure) {
        minimal = { ...lastFailure, shrunk: details.numShrinks > 0, shrinks: details.numShrinks, path: details.counterexamplePath ?? undefined };
      }
    }
    const firstDetail = original.judged.violations.find((v) => v.kind === kind)?.detail;
    const otherRun = entry.runs.find((run) => results[run]!.judged.violations.some((v) => v.kind === kind && v.detail !== firstDetail));
    kinds.push({
      kind,
      count: entry.count,
      details: [...entry.details].sort((a, b) => b[1] - a[1]),
      firstRun,
      minimal,
      first: original.judged,
      other: otherRun !== undefined ? results[otherRun]!.judged : undefined,
    });
  }

  return {
    seed: options.seed,
    runs: results.filter(Boolean).length,
    ms: Date.now() - started,
    cases: [...cases].sort((a, b) => b[1] - a[1]),
    kinds,
  };
}
