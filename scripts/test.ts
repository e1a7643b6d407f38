/**
 * `npm test [-- --shard=<i>/<n>] [vitest arguments…]`: the steps of the test suite, each started as
 * soon as what it reads is ready and a core is free, announced when it starts and timed when it
 * ends; it fails, naming the steps that failed and those it did not start, if any fails.
 *
 * - no shard: `npm run check`'s contract checks and `npm run typecheck` first, one core each; vitest
 *   once the contract checks have passed; the code lint (oxlint, the rest of `npm run check`) on the
 *   first core free, which is the type check's, as it ends before the contract checks;
 * - `--shard=i/n`: that shard's part of the vitest files (vitest's own `--shard`), and beside it the
 *   type check in shard 1 alone. The contract checks are left to their own job (`npm run check`),
 *   so that the n shards and `npm run check` together do what `npm test` does.
 *
 * Any other argument goes to vitest as it is (`npm test -- test/seo` runs those files after and beside the checks).
 *
 * What each step reads and writes, hence the one dependency: the contract checks build into a
 * temporary folder and write only Spectral's content-keyed cache under node_modules/.cache (written
 * atomically) and, when generated/ is current, the build state in .cache/build-state.json; the tests
 * read both (copies of the toolkit take the build state and Spectral's findings from there), so
 * vitest starts after them. The type check and the lint read the sources and generated/, which no
 * step writes, and write nothing; tests write in temporary folders. So the lint and the type check
 * need nothing but a core.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CheckPart } from './check.js';
import { descendantsOf } from './lib/process-tree.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Step {
  name: string;
  /** what it does, said when it starts */
  doing: string;
  /** run with this Node binary, in the repository root */
  args: string[];
  /** its output shown as it comes (the long step); the others' is kept while it runs and shown whole when they end */
  live?: boolean;
  /** the steps whose output it reads: it starts once they have passed */
  after?: string[];
}

export interface TestPlan {
  shard?: { index: number; count: number };
  /** in the order they take a free core when several are ready */
  steps: Step[];
  /** steps running at once at most */
  slots: number;
}

/** `--shard=i/n` or `--shard i/n` (1 ≤ i ≤ n); every other argument is vitest's. */
export function planTests(argv: string[], cores = availableParallelism()): TestPlan {
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
  // Its fresh build in one process: the type check beside it keeps the other core busy, and a
  // second build process would only load the toolchain again (bench/RESULTS.md).
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
  // The steps are CPU-bound: one per core, but never fewer than the two that always ran side by side.
  const slots = Math.max(2, cores);
  // The tests read what the contract checks write (above), and a broken contract would fail them by
  // the dozen. vitest before the lint when both are ready: it is the long step.
  if (!shard) return { slots, steps: [contracts, typecheck, { ...vitest, after: [contracts.name] }, lint] };
  return { shard, slots, steps: shard.index === 1 ? [typecheck, vitest] : [vitest] };
}

/** Sends `signal` to each of `pids` still running, and to what each has started since. */
function signalTree(pids: number[], signal: NodeJS.Signals) {
  for (const pid of pids) {
    for (const target of [pid, ...(signal === 'SIGKILL' ? descendantsOf(pid) : [])]) {
      try {
        process.kill(target, signal);
      } catch {
        // ended already
      }
    }
  }
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

/** Passes a stream on in whole lines, so that another step's block never lands inside one of its lines. */
function wholeLines(write: (lines: string) => unknown) {
  let pending = '';
  return {
    write(text: string) {
      pending += text;
      const end = pending.lastIndexOf('\n');
      if (end < 0) return;
      write(pending.slice(0, end + 1));
      pending = pending.slice(end + 1);
    },
    flush() {
      if (pending) write(`${pending}\n`);
      pending = '';
    },
  };
}

/**
 * Runs one step; resolves with its exit code and time. A live step's output comes as it is written.
 * Another's comes line by line after its name until a live step runs beside it (`keep` at its start
 * if one already does), so that no minute passes silent; from then on it is kept and shown whole,
 * under its name, when the step ends.
 */
function runStep(step: Step, keep: boolean, liveRunning: () => boolean, stopping: () => boolean, out: Output, env: NodeJS.ProcessEnv, children: Set<ChildProcess>, signalledTrees: Map<ChildProcess, number[]>): Promise<StepResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    // In npm test's own session, not a process group of its own (scripts/lib/process-tree.ts says why):
    // a signal reaches what it started through `signalTree`.
    const child = spawn(process.execPath, step.args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    const kept: Array<[NodeJS.WritableStream, string]> = [];
    let keeping = keep;
    const prefix = `${step.name} │ `;
    const streams = ([[child.stdout, out.stdout], [child.stderr, out.stderr]] as const).map(([from, to]) => {
      // Kept output is kept in whole lines too: stdout and stderr arrive in no fixed order, and a line
      // one of them has not ended yet must not run into the other's next line.
      const lines = wholeLines((text) => {
        keeping ||= !step.live && liveRunning();
        if (step.live) to.write(text);
        else if (keeping) kept.push([to, text]);
        else to.write(`${prefix}${text.slice(0, -1).split('\n').join(`\n${prefix}`)}\n`);
      });
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
      // Stopped by a signal: what the step started and left running goes too (TypeScript 7's native
      // compiler carries on to its end after a SIGINT or SIGTERM).
      if (stopping()) signalTree(signalledTrees.get(child) ?? [], 'SIGKILL');
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

export interface RunOptions {
  /** steps running at once at most (default: all of them) */
  slots?: number;
  out?: Output;
  env?: NodeJS.ProcessEnv;
  /** where SIGINT and SIGTERM come from (npm test's own process) */
  signals?: NodeJS.EventEmitter;
}

export interface RunResults {
  /** the steps that ran, in the order they started */
  results: StepResult[];
  /** the steps never started, a step having failed (or npm test having been stopped) first */
  notRun: string[];
}

/**
 * Runs the steps, each as soon as the steps it comes `after` have passed and fewer than `slots` run;
 * when several are ready, the first listed first. Each says when it starts and when it ends. Once a
 * step fails, none starts any more and those running run to their end. A signal to npm test goes on
 * to every step running and the processes each started, and no step starts after it.
 */
export async function runSteps(steps: Step[], options: RunOptions = {}): Promise<RunResults> {
  const { slots = steps.length, out = process, env = process.env, signals = process } = options;
  steps.forEach((step, i) => {
    for (const name of step.after ?? []) if (!steps.slice(0, i).some((s) => s.name === name)) throw new Error(`step ${step.name} comes after ${name}, which is not a step listed before it`);
  });
  const children = new Set<ChildProcess>();
  const pending = [...steps];
  const running = new Set<Step>();
  const passed = new Set<string>();
  const results: Array<Promise<StepResult>> = [];
  let stopped = false;
  let signalled = false;
  const liveRunning = () => [...running].some((step) => step.live);
  // What each step had started when the signal came: once the step has ended, they are no longer
  // found below it, and whatever of them still runs is killed.
  const signalledTrees = new Map<ChildProcess, number[]>();
  const forward = (signal: NodeJS.Signals) => {
    stopped = signalled = true;
    for (const child of children) {
      const tree = descendantsOf(child.pid!);
      signalledTrees.set(child, [...(signalledTrees.get(child) ?? []), ...tree]);
      child.kill(signal);
      signalTree(tree, signal);
    }
  };
  signals.on('SIGINT', forward).on('SIGTERM', forward);
  try {
    await new Promise<void>((allEnded) => {
      const startReady = () => {
        const batch: Step[] = [];
        for (const step of stopped ? [] : [...pending]) {
          if (running.size + batch.length >= slots) break;
          if (!(step.after ?? []).every((name) => passed.has(name))) continue;
          batch.push(step);
          pending.splice(pending.indexOf(step), 1);
        }
        const withLive = liveRunning() || batch.some((step) => step.live);
        for (const step of batch) {
          // Steps already running whose lines came as they were written: from here on, kept.
          const held = step.live && !liveRunning() ? [...running].map((s) => s.name) : [];
          const note = !step.live && withLive ? ' (its output when it ends)' : held.length > 0 ? ` (${held.join(', ')}: the rest of the output when it ends)` : '';
          out.stdout.write(`▶ ${step.name}: ${step.doing}${note}\n`);
        }
        for (const step of batch) {
          running.add(step);
          results.push(
            runStep(step, !step.live && withLive, liveRunning, () => signalled, out, env, children, signalledTrees).then((result) => {
              running.delete(step);
              if (result.code === 0) passed.add(step.name);
              else stopped = true;
              startReady();
              return result;
            }),
          );
        }
        if (running.size === 0) allEnded();
      };
      startReady();
    });
  } finally {
    signals.off('SIGINT', forward).off('SIGTERM', forward);
  }
  return { results: await Promise.all(results), notRun: pending.map((step) => step.name) };
}

/** The closing line: every step's time, the failed steps by name, and those not run. */
export function verdict(results: StepResult[], totalMs: number, label = 'npm test', notRun: string[] = []): { line: string; code: number } {
  const failed = results.filter((r) => r.code !== 0);
  const times = `(side by side: ${results.map((r) => `${r.name} ${seconds(r.ms)}`).join(', ')})`;
  const skipped = notRun.length > 0 ? `; not run: ${notRun.join(', ')}` : '';
  if (failed.length === 0 && notRun.length === 0) return { line: `${label} passed in ${seconds(totalMs)} ${times}`, code: 0 };
  // Every step that ran passed, yet some never started: stopped by a signal.
  if (failed.length === 0) return { line: `${label} stopped in ${seconds(totalMs)} ${times}${skipped}`, code: 1 };
  const names = failed.map((r) => `${r.name} (exit ${r.code})`).join(', ');
  return { line: `${label} failed in ${seconds(totalMs)}: ${names} ${times}${skipped}`, code: failed[0]!.code };
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
  const { results, notRun } = await runSteps(plan.steps, { slots: plan.slots, env: { ...process.env, ...colour } });
  const { line, code } = verdict(results, performance.now() - started, `npm test${plan.shard ? ` --shard=${plan.shard.index}/${plan.shard.count}` : ''}`, notRun);
  if (code === 0) console.log(`\n${line}`);
  else console.error(`\n✘ ${line}`);
  process.exit(code);
}
