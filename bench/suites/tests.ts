/**
 * The test suite's own time: `npm test`'s steps as scripts/test.ts runs them (its plan, run by its
 * runner: the contract checks and the type check first, vitest once the contract checks have
 * passed, the code lint on the first core free), vitest with a JSON report beside its usual output,
 * each step timed, the whole by the clock, then the per-file table of the vitest run, costliest
 * first. Also rewrites test/helpers/file-costs.json, the costs the test sequencer orders and shards
 * the files by.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { planTests, runSteps } from '../../scripts/test.js';
import { fileCostsJson, fileCostsPath, timingTable, type StepTimes, type VitestJsonReport } from '../lib/test-timings.js';
import type { Suite, Target } from '../suite.js';

export const suite: Suite = {
  description: "npm test's steps timed, and vitest's per-file table",
  async run() {
    const { steps, slots } = planTests([]);
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-tests-'));
    const reportFile = path.join(tmp, 'vitest.json');
    try {
      const started = performance.now();
      const reported = steps.map((step) => (step.name === 'vitest' ? { ...step, args: [...step.args, '--reporter=default', '--reporter=json', `--outputFile.json=${reportFile}`] } : step));
      const { results } = await runSteps(reported, { slots });
      const total = (performance.now() - started) / 1000;
      const failed = results.filter((r) => r.code !== 0);
      if (failed.length > 0 || results.length < steps.length) throw new Error(`npm test's steps did not all pass: ${failed.map((r) => `${r.name} exited ${r.code}`).join(', ') || 'stopped'}`);
      const report = JSON.parse(readFileSync(reportFile, 'utf8')) as VitestJsonReport;
      // The test sequencer orders and shards by these: kept as fresh as this section.
      writeFileSync(fileCostsPath, fileCostsJson(report));
      const times: StepTimes = Object.fromEntries(results.map((r) => [r.name, r.ms / 1000]));
      const targets: Target[] = [{ name: 'npm test, check + typecheck + vitest, s (< 180)', measured: Math.round(total), met: total < 180 }];
      const markdown = [
        '## Test suite, after (`npm run bench -- tests`)',
        '',
        `\`npm test\`'s steps as scripts/test.ts runs them (the contract checks beside the type check, vitest once the contract checks have passed, the code lint, oxlint, on the first core free), ${Math.round(total)} s in all by the clock.`,
        'File time is from a file\'s start to its end on its worker; vitest runs one worker more than the machine has cores, side by side, so it sums to more than the vitest step.',
        '',
        timingTable(report, times),
      ].join('\n');
      return { markdown, targets };
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  },
};
