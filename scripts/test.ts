/**
 * `npm test [-- --shard=<i>/<n>] [vitest arguments…]`: the steps of the test suite, in two phases
 * of steps side by side, each step announced when it starts and timed when it ends; it fails, naming
 * the steps that failed, if any does.
 *
 * - no shard: first `npm run check`'s contract checks beside `npm run typecheck`, then the code
 *   lint (oxlint, the rest of `npm run check`) beside every vitest file; a failure in the first
 *   phase stops there;
 * - `--shard=i/n`: that shard's part of the vitest files (vitest's own `--shard`), and beside it the
 *   type check in shard 1 alone. The contract checks are left to their own job (`npm run check`),
 *   so that the n shards and `npm run check` together do what `npm test` does.
 *
 * Any other argument goes to vitest as it is (`npm test -- test/seo` runs those files after and beside the checks).
 *
 * Side by side: the lint and the type check are CPU-bound, and vitest's workers often wait on
 * the processes and sockets they start. No step writes what another reads: check builds into a
 * temporary folder and keeps only Spectral's content-keyed cache under node_modules/.cache (written
 * atomically) and, when generated/ is current, the build state in .cache/ (read by later builds,
 * none of them beside it); the lint and the type check write nothing, and tests write in temporary
 * folders.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CheckPart } from './check.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Step {
  name: string;
  /** what it does, said when it starts */
  doing: string;
  /** run with this Node binary, in the repository root */
  args: string[];
  /** its output shown as it comes (the long step); the others' is kept and shown whole when they end */
  live?: boolean;
}

export interface TestPlan {
  shard?: { index: number; count: number };
  /** run one after the other, each's steps side by side; a phase with a failed step is the last */
  phases: Step[][];
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
  const check = (part: CheckPart, doing: string, more: string[] = []): Step => ({ name: `check: ${part}`, doing, args: ['--import', 'tsx', 'scripts/check.ts', '--only', part, ...more] });
  // Its fresh build in one process: the type check beside it keeps both cores busy, and a second
  // build process would only load the toolchain again (bench/RESULTS.md).
  const contracts = check('contracts', 'Redocly lint, build, Spectral, drift of generated/, breaking changes', ['--workers', '1']);
  const lint = check('lint', 'oxlint: the type-aware rules over the hand-written TypeScript, the correctness rules over the JavaScript');
  // One checker, where `npm run typecheck` has TypeScript 7's several: each checker builds its own
  // types of what the files share, and here the contract checks keep the other core busy. The same
  // diagnostics either way (bench/RESULTS.md).
  const typecheck: Step = { name: 'typecheck', doing: 'tsc --noEmit over the hand-written and generated TypeScript', args: ['node_modules/typescript-7/bin/tsc', '--noEmit', '-p', 'tsconfig.json', '--checkers', '1'] };
  const vitest: Step = {
    name: shard ? `vitest shard ${shard.index}/${shard.count}` : 'vitest',
    doing: shard ? `this shard's part of the test files` : 'every test file, on one worker more than the machine has cores',
    live: true,
    args: ['node_modules/vitest/vitest.mjs', 'run', ...(shard ? [`--shard=${shard.index}/${shard.count}`] : []), ...vitestArgs],
  };
  // The contract checks first: tests check copies of the project, whose Spectral findings they take
  // from the cache these fill, and a broken contract would fail tests by the dozen. The lint goes
  // beside vitest.
  if (!shard) return { phases: [[contracts, typecheck], [lint, vitest]] };
  return { shard, phases: [shard.index === 1 ? [typecheck, vitest] : [vitest]] };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export interface StepResult {
  name: string;
  /** 0 when it passed */
  code: number;
  ms: number;
}

interface Output {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * Passes a stream on in whole lines, so that another step's block never lands inside one of its
 * lines; each line after `prefix` if given.
 */
function wholeLines(write: (text: string) => unknown, prefix = '') {
  let pending = '';
  // `lines` ends with its newline.
  const put = (lines: string) => write(prefix ? `${prefix}${lines.slice(0, -1).split('\n').join(`\n${prefix}`)}\n` : lines);
  return {
    write(text: string) {
      pending += text;
      const end = pending.lastIndexOf('\n');
      if (end < 0) return;
      put(pending.slice(0, end + 1));
      pending = pending.slice(end + 1);
    },
    flush() {
      if (pending) put(`${pending}\n`);
      pending = '';
    },
  };
}

/** How a step's output is shown: as it comes, as it comes after its name, or whole when it ends. */
type Shown = 'live' | 'prefixed' | 'kept';

/** Runs one step, its output shown as `shown` says; resolves with its exit code and time. */
function runStep(step: Step, shown: Shown, out: Output, env: NodeJS.ProcessEnv, children: Set<ChildProcess>): Promise<StepResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, step.args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    const kept: Array<[NodeJS.WritableStream, string]> = [];
    const streams = ([[child.stdout, out.stdout], [child.stderr, out.stderr]] as const).map(([from, to]) => {
      // Kept output is kept in whole lines too: stdout and stderr arrive in no fixed order, and a line
      // one of them has not ended yet must not run into the other's next line.
      const lines = shown === 'kept' ? wholeLines((text) => kept.push([to, text])) : wholeLines((text) => to.write(text), shown === 'prefixed' ? `${step.name} │ ` : '');
      from.setEncoding('utf8');
      from.on('data', (text: string) => lines.write(text));
      return { from, lines };
    });
    let code: number | undefined;
    let done = false;
    const finish = () => {
      if (code === undefined || done) return;
      done = true;
      children.delete(child);
      for (const { from, lines } of streams) {
        from.destroy();
        lines.flush();
      }
      const ms = performance.now() - started;
      if (kept.length > 0) {
        out.stdout.write(`\n── ${step.name} ──\n`);
        for (const [to, text] of kept) to.write(text);
      }
      if (code === 0) out.stdout.write(`✔ ${step.name} in ${seconds(ms)}\n`);
      else out.stderr.write(`✘ ${step.name} failed (exit ${code}) after ${seconds(ms)}\n`);
      resolve({ name: step.name, code, ms });
    };
    child.once('error', (error) => {
      kept.push([out.stderr, `${error.message}\n`]);
      code = 1;
      finish();
    });
    child.once('exit', (exitCode, signal) => {
      code = exitCode ?? (signal ? 1 : 0);
      // What it wrote before it ended is read to the end; a process it left running that still
      // holds the pipes must not keep npm test waiting.
      let open = streams.filter(({ from }) => !from.closed).length;
      if (open === 0) finish();
      for (const { from } of streams)
        from.once('close', () => {
          if (--open === 0) finish();
        });
      setTimeout(finish, 2000).unref();
    });
  });
}

/**
 * Starts every step at once and waits for all of them: each says when it starts and when it ends.
 * A live step's output comes as it is written, the others' whole when they end, so no two steps'
 * lines mix; where no step is live, each line comes as it is written after its step's name (no
 * silent minute). A signal to npm test goes on to every step still running.
 */
export async function runSideBySide(steps: Step[], out: Output = process, env: NodeJS.ProcessEnv = process.env): Promise<StepResult[]> {
  const children = new Set<ChildProcess>();
  const forward = (signal: NodeJS.Signals) => {
    for (const child of children) child.kill(signal);
  };
  process.on('SIGINT', forward).on('SIGTERM', forward);
  try {
    const anyLive = steps.some((step) => step.live);
    const shownOf = (step: Step): Shown => (step.live ? 'live' : anyLive ? 'kept' : 'prefixed');
    for (const step of steps) out.stdout.write(`▶ ${step.name}: ${step.doing}${shownOf(step) === 'kept' ? ' (its output when it ends)' : ''}\n`);
    return await Promise.all(steps.map((step) => runStep(step, shownOf(step), out, env, children)));
  } finally {
    process.off('SIGINT', forward).off('SIGTERM', forward);
  }
}

/** The closing line: every step's time, and the failed steps by name. */
export function verdict(results: StepResult[], totalMs: number, label = 'npm test'): { line: string; code: number } {
  const failed = results.filter((r) => r.code !== 0);
  const times = results.map((r) => `${r.name} ${seconds(r.ms)}`).join(', ');
  if (failed.length === 0) return { line: `${label} passed in ${seconds(totalMs)} (side by side: ${times})`, code: 0 };
  const names = failed.map((r) => `${r.name} (exit ${r.code})`).join(', ');
  return { line: `${label} failed in ${seconds(totalMs)}: ${names} (side by side: ${times})`, code: failed[0]!.code };
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
  // Output goes through pipes: colours stay on where the terminal shows them.
  const colour = process.stdout.isTTY && !('NO_COLOR' in process.env) && !('FORCE_COLOR' in process.env) ? { FORCE_COLOR: '1' } : {};
  const results: StepResult[] = [];
  for (const phase of plan.phases) {
    results.push(...(await runSideBySide(phase, process, { ...process.env, ...colour })));
    if (results.some((r) => r.code !== 0)) break;
  }
  const skipped = plan.phases.flat().slice(results.length).map((s) => s.name);
  const { line, code } = verdict(results, performance.now() - started, `npm test${plan.shard ? ` --shard=${plan.shard.index}/${plan.shard.count}` : ''}`);
  if (code === 0) console.log(`\n${line}`);
  else console.error(`\n✘ ${line}${skipped.length > 0 ? `; not run: ${skipped.join(', ')}` : ''}`);
  process.exit(code);
}
