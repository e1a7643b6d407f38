/**
 * `npm test` (scripts/test.ts): with no argument, the contract checks beside the type check, vitest
 * once the contract checks have passed, the code lint (oxlint) on the first core free; with
 * `--shard=i/n`, vitest's shard and the type check in shard 1 alone; a bad shard refused with the
 * usage and exit 2 before anything runs. The steps run side by side as their dependencies and the
 * cores allow, each one's output line by line after its name, whole when it ends beside vitest, or
 * (vitest's) as it comes; the run fails naming the steps that failed and those not run. The
 * per-file timing table of bench/RESULTS.md from a report.
 */
import { execFile, execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { fileTimings, parseSteps, timingTable, type VitestJsonReport } from '../../bench/lib/test-timings.js';
import { parseCheckArgs } from '../../scripts/check.js';
import { planTests, runSteps, verdict, type Step } from '../../scripts/test.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';

const run = promisify(execFile);
const names = (argv: string[]) => planTests(argv).steps.map((s) => (s.after ? `${s.name} after ${s.after.join(', ')}` : s.name));
const vitestArgs = (argv: string[]) => planTests(argv).steps.find((s) => s.live)!.args.slice(2);

describe('npm test steps', () => {
  test('no argument: the contract checks beside the type check, every vitest file once the contract checks passed, the code lint on the first core free; vitest alone shown as it comes', () => {
    // In this order on a free core: vitest before the lint when both are ready.
    expect(names([])).toEqual(['check: contracts', 'typecheck', 'vitest after check: contracts', 'check: lint']);
    const steps = planTests([]).steps;
    expect(steps.map((s) => s.live ?? false)).toEqual([false, false, true, false]);
    // One step per core, and on any machine the two first steps side by side.
    expect(planTests([], 2).slots).toBe(2);
    expect(planTests([], 1).slots).toBe(2);
    expect(planTests([], 8).slots).toBe(8);
    expect(vitestArgs([])).toEqual([]);
    // One checker: the contract checks beside it use the other core.
    expect(steps.find((s) => s.name === 'typecheck')!.args).toEqual(['node_modules/typescript-7/bin/tsc', '--noEmit', '-p', 'tsconfig.json', '--checkers', '1']);
    // Together the two parts are `npm run check`.
    expect(steps.filter((s) => s.name.startsWith('check')).map((s) => s.args)).toEqual([
      ['--import', 'tsx', 'scripts/check.ts', '--only', 'contracts', '--workers', '1'],
      ['--import', 'tsx', 'scripts/check.ts', '--only', 'lint'],
    ]);
    expect(parseCheckArgs(['--only', 'contracts', '--workers', '1'])).toEqual({ only: 'contracts', workers: 1 });
    expect(parseCheckArgs(['--workers=3'])).toEqual({ workers: 3 });
    for (const bad of [['--workers', '0'], ['--workers=two'], ['--workers']]) expect(() => parseCheckArgs(bad)).toThrow(/--workers takes a whole number from 1, got (0|two|nothing)$/);
    expect(parseCheckArgs(['--only=lint'])).toEqual({ only: 'lint' });
    // The part's former name, and the cache option of the linter it replaced, still work in users' scripts.
    expect(parseCheckArgs(['--only=eslint', '--no-eslint-cache'])).toEqual({ only: 'lint' });
    expect(parseCheckArgs(['--only', 'eslint'])).toEqual({ only: 'lint' });
    expect(() => parseCheckArgs(['--only', 'spectral'])).toThrow(/--only takes contracts or lint, got spectral/);
    expect(() => parseCheckArgs(['--only'])).toThrow(/--only takes contracts or lint, got nothing/);
    expect(() => parseCheckArgs(['--no-cache'])).toThrow(/unknown argument --no-cache/);
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

describe('steps side by side', () => {
  /** A stream that keeps what is written to it in `text`. */
  class CollectingSink extends Writable {
    text = '';
    constructor() {
      super({
        write: (chunk: Buffer, _encoding, done) => {
          this.text += chunk.toString();
          this.emit('text');
          done();
        },
      });
    }
    /** Resolves once `pattern` has been written. */
    async written(pattern: RegExp): Promise<void> {
      while (!pattern.test(this.text)) await new Promise((resolve) => this.once('text', resolve));
    }
  }
  /** A step that writes each `[stream, text]` in turn, then exits with `code`. */
  const step = (name: string, writes: Array<['stdout' | 'stderr', string]>, code: number, live = false): Step => ({
    name,
    doing: `${name}'s work`,
    live,
    args: ['-e', `for (const [to, text] of ${JSON.stringify(writes)}) process[to].write(text); process.exitCode = ${code}`],
  });

  test("each kept step's output whole, the live step's in whole lines; every step waited for, the failed one named, and none started after it", async () => {
    const sink = new CollectingSink();
    const started = performance.now();
    const { results, notRun } = await runSteps(
      [
        step('ok', [['stdout', 'a1\na2\n'], ['stderr', 'w1\n'], ['stdout', 'a3']], 0),
        step('bad', [['stderr', 'b1\n']], 3),
        step('live', [['stdout', 'l1\nl'], ['stderr', 'e1\n'], ['stdout', '2\nl3']], 0, true),
        // Once a step has failed, none starts.
        { ...step('needs-bad', [], 0), after: ['bad'] },
      ],
      { out: { stdout: sink, stderr: sink } },
    );
    expect(notRun).toEqual(['needs-bad']);
    expect(sink.text).not.toMatch(/▶ needs-bad/);
    expect(results.map((r) => [r.name, r.code])).toEqual([['ok', 0], ['bad', 3], ['live', 0]]);
    expect(sink.text).toMatch(/^▶ ok: ok's work \(its output when it ends\)\n▶ bad: bad's work \(its output when it ends\)\n▶ live: live's work\n/);
    const block = /\n── ok ──\n((?:[^\n]*\n){4})✔ ok in \d+\.\d s\n/.exec(sink.text);
    expect(block?.[1]?.split('\n').sort()).toEqual(['', 'a1', 'a2', 'a3', 'w1']);
    expect(block?.[1]).toMatch(/a1\na2\n(w1\n)?a3\n/);
    expect(sink.text).toMatch(/\n── bad ──\nb1\n✘ bad failed \(exit 3\) after \d+\.\d s\n/);
    // The live step's lines are written whole (stdout and stderr apart), so another step's block never splits one.
    expect(sink.text.split('\n')).toEqual(expect.arrayContaining(['l1', 'l2', 'l3', 'e1']));
    expect(sink.text).toMatch(/✔ live in /);
    const { line, code } = verdict(results, performance.now() - started, 'npm test', notRun);
    expect(code).toBe(3);
    expect(line).toMatch(/^npm test failed in \d+\.\d s: bad \(exit 3\) \(side by side: ok \d+\.\d s, bad \d+\.\d s, live \d+\.\d s\); not run: needs-bad$/);
    // A step can only come after one listed before it.
    await expect(runSteps([{ ...step('early', [], 0), after: ['late'] }, step('late', [], 0)], { out: { stdout: sink, stderr: sink } })).rejects.toThrow(/step early comes after late, which is not a step listed before it/);
    expect(verdict([results[0]!, results[2]!], 1000)).toEqual({ code: 0, line: expect.stringMatching(/^npm test passed in 1\.0 s \(side by side: ok \d+\.\d s, live /) as string });
  }, 120_000); // three Node processes on a busy machine

  test("a kept step's unended stdout line never runs into its stderr's next line", async () => {
    const sink = new CollectingSink();
    // stderr written once stdout's unended line has reached the pipe: read in that order, the two
    // chunks used to be kept side by side as `xy`.
    const unended: Step = { name: 'unended', doing: 'writing', args: ['-e', "process.stdout.write('x', () => process.stderr.write('y\\n'))"] };
    await runSteps([unended, step('live', [['stdout', 'l\n']], 0, true)], { out: { stdout: sink, stderr: sink } });
    const block = /\n── unended ──\n((?:[^\n]*\n){2})✔ unended in /.exec(sink.text);
    expect(block?.[1]?.split('\n').sort(), sink.text).toEqual(['', 'x', 'y']);
  }, 120_000); // two Node processes on a busy machine

  test("a step runs in npm test's own session: the kernel schedules it beside other busy processes thread by thread, not as a group of its own", async () => {
    // The session id is field 6 of /proc/<pid>/stat, counted after the command name's closing `)`.
    const sessionOf = `(stat) => stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]`;
    const sink = new CollectingSink();
    const telling: Step = { name: 'session', doing: 'telling its session', args: ['-e', `process.stdout.write('session ' + (${sessionOf})(require('node:fs').readFileSync('/proc/self/stat', 'utf8')) + '\\n')`] };
    const { results } = await runSteps([telling], { out: { stdout: sink, stderr: sink } });
    expect(results.map((r) => r.code)).toEqual([0]);
    const own = readFileSync('/proc/self/stat', 'utf8');
    expect(/^session │ session (\d+)$/m.exec(sink.text)?.[1], sink.text).toBe(own.slice(own.lastIndexOf(')') + 2).split(' ')[3]);
  }, 120_000); // one Node process on a busy machine

  test('a step starts once the steps it comes after have passed; a free slot goes to the first step ready', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'test-runner-'));
    try {
      // `contracts` ends only once `lint` has run, and `lint` gets a slot only once `typecheck` has
      // ended: the order of events is fixed, however fast or slow the machine.
      const fifo = path.join(dir, 'lint-ran');
      execFileSync('mkfifo', [fifo]);
      const contracts: Step = { name: 'contracts', doing: 'waiting for lint', args: ['-e', `require('node:fs').readFileSync(${JSON.stringify(fifo)})`] };
      const lint: Step = { name: 'lint', doing: 'letting contracts end', args: ['-e', `require('node:fs').writeFileSync(${JSON.stringify(fifo)}, 'x')`] };
      const vitest: Step = { ...step('vitest', [['stdout', 'v\n']], 0, true), after: ['contracts'] };
      const sink = new CollectingSink();
      const { results, notRun } = await runSteps([contracts, step('typecheck', [['stdout', 't\n']], 0), vitest, lint], { slots: 2, out: { stdout: sink, stderr: sink } });
      expect(notRun).toEqual([]);
      // In the order they started.
      expect(results.map((r) => [r.name, r.code])).toEqual([['contracts', 0], ['typecheck', 0], ['lint', 0], ['vitest', 0]]);
      const events = sink.text.split('\n').filter((line) => /^[▶✔✘] /.test(line)).map((line) => /^[▶✔✘] [a-z]+/.exec(line)![0]);
      expect(events.slice(0, 2), sink.text).toEqual(['▶ contracts', '▶ typecheck']);
      const at = (event: string) => events.indexOf(event);
      expect(at('✔ typecheck'), sink.text).toBeLessThan(at('▶ lint'));
      expect(at('▶ lint'), sink.text).toBeLessThan(at('✔ contracts'));
      expect(at('✔ contracts'), sink.text).toBeLessThan(at('▶ vitest'));
      // Before vitest started, each line came after its step's name.
      expect(sink.text.split('\n')).toEqual(expect.arrayContaining(['typecheck │ t', 'v']));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000); // four Node processes on a busy machine

  test('a signal to npm test goes on to every step running and the processes it started, and no step starts after it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'test-runner-'));
    let grandchild: number | undefined;
    try {
      // A process the step starts holds a FIFO open: the FIFO ends when that process does. It
      // carries on after a SIGTERM, as TypeScript 7's native compiler does.
      const fifo = path.join(dir, 'held');
      execFileSync('mkfifo', [fifo]);
      const held = createReadStream(fifo);
      const heldEnded = new Promise<void>((resolve) => held.once('end', () => resolve()));
      held.resume();
      const holder = `process.on('SIGTERM', () => {}); require('node:fs').openSync(${JSON.stringify(fifo)}, 'w'); process.stdout.write('holding ' + process.pid + '\\n'); setInterval(() => {}, 1 << 30)`;
      const starting: Step = { name: 'one', doing: 'starting a process', args: ['-e', `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(holder)}], { stdio: 'inherit' }); setInterval(() => {}, 1 << 30)`] };
      const waiting: Step = { name: 'two', doing: 'running until stopped', args: ['-e', "process.stdout.write('ready\\n'); setInterval(() => {}, 1 << 30)"] };
      const sink = new CollectingSink();
      const signals = new EventEmitter();
      const ran = runSteps([starting, waiting, { ...step('next', [], 0), after: ['one'] }], { out: { stdout: sink, stderr: sink }, signals });
      await sink.written(/^one │ holding \d+$/m);
      grandchild = Number(/^one │ holding (\d+)$/m.exec(sink.text)![1]);
      await sink.written(/^two │ ready$/m);
      signals.emit('SIGTERM', 'SIGTERM');
      const { results, notRun } = await ran;
      await heldEnded;
      expect(results.map((r) => [r.name, r.code])).toEqual([['one', 1], ['two', 1]]);
      expect(notRun).toEqual(['next']);
      expect(signals.listenerCount('SIGTERM') + signals.listenerCount('SIGINT')).toBe(0);
      const { line, code } = verdict(results, 1000, 'npm test', notRun);
      expect(code).toBe(1);
      expect(line).toMatch(/: one \(exit 1\), two \(exit 1\) .*; not run: next$/);
      // Every step that ran passed, but one never started: not a pass.
      expect(verdict([{ name: 'other', code: 0, ms: 10 }], 1000, 'npm test', ['next'])).toEqual({ code: 1, line: 'npm test stopped in 1.0 s (side by side: other 0.0 s); not run: next' });
    } finally {
      if (grandchild) {
        try {
          process.kill(grandchild, 'SIGKILL'); // left running only if the signal missed it
        } catch {
          // ended, as it should have
        }
      }
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  test('where no step is live, each line as it comes after its step name', async () => {
    const sink = new CollectingSink();
    const { results } = await runSteps([step('one', [['stdout', 'x1\nx'], ['stderr', 'w\n'], ['stdout', '2']], 0), step('two', [['stdout', 'y1\n']], 1)], { out: { stdout: sink, stderr: sink } });
    expect(results.map((r) => r.code)).toEqual([0, 1]);
    expect(sink.text).toMatch(/^▶ one: one's work\n▶ two: two's work\n/);
    expect(sink.text.split('\n')).toEqual(expect.arrayContaining(['one │ x1', 'one │ x2', 'one │ w', 'two │ y1']));
    expect(sink.text).not.toMatch(/──/);
    expect(sink.text).toMatch(/✘ two failed \(exit 1\) after /);
  }, 120_000);
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
