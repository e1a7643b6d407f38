/**
 * `npm test` (scripts/test.ts): with no argument, the three steps of today in order; with
 * `--shard=i/n`, vitest's shard and the type check in shard 1 alone; a bad shard refused with the
 * usage and exit 2 before anything runs. The per-file timing table of bench/RESULTS.md from a report.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { fileTimings, parseSteps, timingTable, type VitestJsonReport } from '../../bench/lib/test-timings.js';
import { planTests } from '../../scripts/test.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';

const run = promisify(execFile);
const names = (argv: string[]) => planTests(argv).steps.map((s) => s.name);
const vitestArgs = (argv: string[]) => planTests(argv).steps.at(-1)!.args.slice(2);

describe('npm test steps', () => {
  test('no argument: check, typecheck, then every vitest file', () => {
    expect(names([])).toEqual(['check', 'typecheck', 'vitest']);
    expect(vitestArgs([])).toEqual([]);
    expect(planTests([]).steps[0]!.args).toEqual(['--import', 'tsx', 'scripts/check.ts']);
  });

  test('a shard: its part of the vitest files, the type check in shard 1 alone, never the contract checks', () => {
    expect(names(['--shard=1/3'])).toEqual(['typecheck', 'vitest shard 1/3']);
    expect(names(['--shard', '3/3'])).toEqual(['vitest shard 3/3']);
    expect(vitestArgs(['--shard=2/3'])).toEqual(['--shard=2/3']);
  });

  test('other arguments go to vitest as they are', () => {
    expect(vitestArgs(['test/seo', '--shard=2/2', '--bail=1'])).toEqual(['--shard=2/2', 'test/seo', '--bail=1']);
  });

  test.each([['--shard=0/2'], ['--shard=3/2'], ['--shard=a/b'], ['--shard'], ['--shard=1/']])('%s is refused', (arg) => {
    expect(() => planTests([arg])).toThrow(/--shard takes <i>\/<n> with 1 ≤ i ≤ n/);
  });

  test('the command refuses a bad shard with exit 2 and the usage, running nothing', async () => {
    const failed = await run(process.execPath, ['--import', 'tsx', path.join(defaultRoot, 'scripts/test.ts'), '--shard=4/3'], { cwd: defaultRoot }).then(
      () => undefined,
      (error: { code?: number; stdout?: string; stderr?: string }) => error,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toMatch(/^test: --shard takes <i>\/<n> with 1 ≤ i ≤ n, e\.g\. --shard=1\/3; got 4\/3$/m);
    expect(failed?.stdout).not.toMatch(/▶/);
  }, 120_000); // a Node process with tsx: seconds on a busy machine
});

describe('the timing table', () => {
  const report: VitestJsonReport = {
    startTime: 0,
    numTotalTests: 3,
    testResults: [
      { name: '/somewhere/else/test/seo/projects.test.ts', startTime: 1000, endTime: 3500, assertionResults: [{}, {}] },
      { name: '/somewhere/else/test/toolkit/fuzz.test.ts', startTime: 0, endTime: 90_000, assertionResults: [{}] },
    ],
  };

  test('one row per file from test/ on, costliest first, with its tests; the steps above', () => {
    expect(fileTimings(report)).toEqual([
      { file: 'test/toolkit/fuzz.test.ts', seconds: 90, tests: 1 },
      { file: 'test/seo/projects.test.ts', seconds: 2.5, tests: 2 },
    ]);
    const table = timingTable(report, parseSteps(['check=40', 'vitest=120.25']), 1);
    expect(table).toContain('| check | 40.0 |\n| vitest | 120.3 |');
    expect(table).toContain('| test/toolkit/fuzz.test.ts | 90.0 | 1 |\n| 1 other files | 2.5 | 2 |');
  });

  test('a step time that is not a number is refused', () => {
    expect(() => parseSteps(['check=fast'])).toThrow(/expected step=seconds, got check=fast/);
  });
});
