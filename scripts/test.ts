/**
 * `npm test [-- --shard=<i>/<n>] [vitest arguments…]`: the steps of the test suite, one after the
 * other, stopping at the first that fails, each announced when it starts and timed when it ends.
 *
 * - no shard: `npm run check` (contracts and ESLint), `npm run typecheck`, then every vitest file;
 * - `--shard=i/n`: that shard's part of the vitest files (vitest's own `--shard`), and the type check
 *   in shard 1 alone. The contract checks are left to their own job (`npm run check`), so that the
 *   n shards and `npm run check` together do what `npm test` does.
 *
 * Any other argument goes to vitest as it is (`npm test -- test/seo` runs those files after the checks).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Step {
  name: string;
  /** what it does, said when it starts */
  doing: string;
  /** run with this Node binary, in the repository root */
  args: string[];
}

export interface TestPlan {
  shard?: { index: number; count: number };
  steps: Step[];
}

/** `--shard=i/n` or `--shard i/n` (1 ≤ i ≤ n); every other argument is vitest's. */
export function planTests(argv: string[]): TestPlan {
  const vitestArgs: string[] = [];
  let shard: TestPlan['shard'];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    let value: string | undefined;
    if (arg === '--shard') value = argv[++i] ?? '';
    else if (arg.startsWith('--shard=')) value = arg.slice('--shard='.length);
    else {
      vitestArgs.push(arg);
      continue;
    }
    const match = /^(\d+)\/(\d+)$/.exec(value);
    const index = Number(match?.[1]);
    const count = Number(match?.[2]);
    if (!match || index < 1 || count < 1 || index > count) throw new Error(`--shard takes <i>/<n> with 1 ≤ i ≤ n, e.g. --shard=1/3; got ${value || 'nothing'}`);
    shard = { index, count };
  }
  const check: Step = { name: 'check', doing: 'contracts (lint, build, Spectral, drift, breaking changes), then ESLint', args: ['--import', 'tsx', 'scripts/check.ts'] };
  const typecheck: Step = { name: 'typecheck', doing: 'tsc --noEmit over the hand-written and generated TypeScript', args: ['node_modules/typescript-7/bin/tsc', '--noEmit', '-p', 'tsconfig.json'] };
  const vitest: Step = {
    name: shard ? `vitest shard ${shard.index}/${shard.count}` : 'vitest',
    doing: shard ? `this shard's part of the test files` : 'every test file, two at a time',
    args: ['node_modules/vitest/vitest.mjs', 'run', ...(shard ? [`--shard=${shard.index}/${shard.count}`] : []), ...vitestArgs],
  };
  if (!shard) return { steps: [check, typecheck, vitest] };
  return { shard, steps: shard.index === 1 ? [typecheck, vitest] : [vitest] };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Runs one step with its output shown; resolves with its exit code. */
function runStep(step: Step): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, step.args, { cwd: root, stdio: 'inherit' });
    child.once('error', () => resolve(1));
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let plan: TestPlan;
  try {
    plan = planTests(process.argv.slice(2));
  } catch (error) {
    console.error(`test: ${(error as Error).message}`);
    process.exit(2);
  }
  const started = performance.now();
  const times: string[] = [];
  for (const step of plan.steps) {
    console.log(`\n▶ ${step.name}: ${step.doing}`);
    const stepStarted = performance.now();
    const code = await runStep(step);
    const took = performance.now() - stepStarted;
    times.push(`${step.name} ${seconds(took)}`);
    if (code !== 0) {
      console.error(`✘ ${step.name} failed (exit ${code}) after ${seconds(took)}; npm test stops here (${times.join(', ')})`);
      process.exit(code);
    }
    console.log(`✔ ${step.name} in ${seconds(took)}`);
  }
  console.log(`\nnpm test${plan.shard ? ` --shard=${plan.shard.index}/${plan.shard.count}` : ''} passed in ${seconds(performance.now() - started)} (${times.join(', ')})`);
}
