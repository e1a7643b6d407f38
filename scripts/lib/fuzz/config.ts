/**
 * The fuzzer's knobs. vitest passes no custom flags to a test file, so environment variables are
 * the knobs: `FUZZ_SEED=<n>` replays a run, `FUZZ_RUNS=<n>` sets the requests per service.
 */
export interface FuzzConfig {
  seed: number;
  numRuns: number;
  concurrency: number;
  shrinkBudgetMs: number;
  shrinkPerKindMs: number;
}

/** Fixed by default, so CI is deterministic; a failure prints the seed it used. */
export const DEFAULT_SEED = 20_260_601;
export const DEFAULT_RUNS = 1_000;

function integer(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return value;
}

export function fuzzConfig(env: NodeJS.ProcessEnv = process.env): FuzzConfig {
  return {
    seed: integer('FUZZ_SEED', env.FUZZ_SEED, DEFAULT_SEED),
    numRuns: Math.max(1, integer('FUZZ_RUNS', env.FUZZ_RUNS, DEFAULT_RUNS)),
    // Modest, for a 2-core CI machine that also runs the server in the same process.
    concurrency: Math.max(1, integer('FUZZ_CONCURRENCY', env.FUZZ_CONCURRENCY, 8)),
    shrinkBudgetMs: integer('FUZZ_SHRINK_MS', env.FUZZ_SHRINK_MS, 8_000),
    shrinkPerKindMs: 1_500,
  };
}

export function replayCommand(config: FuzzConfig): string {
  return `FUZZ_SEED=${config.seed} FUZZ_RUNS=${config.numRuns} npx vitest run test/toolkit/fuzz.test.ts`;
}
