/**
 * The test suite's own time: `npm test`'s steps as scripts/test.ts runs them, side by side (check's
 * contracts and the type check, then check's code lint and vitest with a JSON report beside its
 * usual output), each timed, the whole by the clock, then the per-file table of the vitest run,
 * costliest first. Also rewrites test/helpers/file-costs.json, the costs the test sequencer orders
 * and shards the files by.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { planTests, type Step } from '../../scripts/test.js';
import { root } from '../lib/processes.js';
import { fileCostsJson, fileCostsPath, timingTable, type StepTimes, type VitestJsonReport } from '../lib/test-timings.js';
import type { Suite, Target } from '../suite.js';

/**
 * Runs `node <args>` in the repository; its wall time in s and its output. A `live` step's output is
 * shown as it comes, another's when it ends (as npm test shows them).
 */
function runShown(args: string[], live: boolean): Promise<{ seconds: number; output: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let output = '';
    const kept: Array<[NodeJS.WriteStream, Buffer]> = [];
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (stream: NodeJS.WriteStream) => (d: Buffer) => {
      if (live) stream.write(d);
      else kept.push([stream, d]);
      output = (output + d).slice(-65_536);
    };
    child.stdout.on('data', keep(process.stdout));
    child.stderr.on('data', keep(process.stderr));
    child.once('exit', (code) => {
      for (const [stream, d] of kept) stream.write(d);
      if (code === 0) resolve({ seconds: (performance.now() - started) / 1000, output });
      else reject(new Error(`node ${args.join(' ')} exited ${code}`));
    });
  });
}

export const suite: Suite = {
  description: "npm test's steps timed, and vitest's per-file table",
  async run() {
    const [[contracts, typecheck], [lint, vitest]] = planTests([]).phases as [[Step, Step], [Step, Step]];
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-tests-'));
    const reportFile = path.join(tmp, 'vitest.json');
    try {
      const started = performance.now();
      const [contracted, typechecked] = await Promise.all([runShown(contracts.args, false), runShown(typecheck.args, false)]);
      const [linted, tested] = await Promise.all([
        runShown(lint.args, false),
        runShown([...vitest.args, '--reporter=default', '--reporter=json', `--outputFile.json=${reportFile}`], true),
      ]);
      const total = (performance.now() - started) / 1000;
      const report = JSON.parse(readFileSync(reportFile, 'utf8')) as VitestJsonReport;
      // The test sequencer orders and shards by these: kept as fresh as this section.
      writeFileSync(fileCostsPath, fileCostsJson(report));
      const steps: StepTimes = { 'check: contracts': contracted.seconds, typecheck: typechecked.seconds, 'check: lint': linted.seconds, vitest: tested.seconds };
      const targets: Target[] = [{ name: 'npm test, check + typecheck + vitest, s (< 180)', measured: Math.round(total), met: total < 180 }];
      const markdown = [
        '## Test suite, after (`npm run bench -- tests`)',
        '',
        `\`npm test\`'s steps as scripts/test.ts runs them (the contract checks beside the type check, then the code lint, oxlint, beside vitest), ${Math.round(total)} s in all by the clock.`,
        'File time is from a file\'s start to its end on its worker; vitest runs one worker more than the machine has cores, side by side, so it sums to more than the vitest step.',
        '',
        timingTable(report, steps),
      ].join('\n');
      return { markdown, targets };
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  },
};
