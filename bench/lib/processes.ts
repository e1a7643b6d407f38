import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The CPU time a process has used so far (user and system, every thread), in µs, from
 * /proc/<pid>/stat: its 14th and 15th fields, in clock ticks of 10 ms (Linux's USER_HZ).
 */
export function processCpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name, in parentheses, may hold spaces: fields are counted after it, from the 3rd.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[14 - 3]) + Number(fields[15 - 3])) * 10_000;
}

/** Resident set size of a process, MB, from /proc (Linux). */
export function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (!kb) throw new Error(`no VmRSS for process ${pid}`);
  return Math.round(Number(kb) / 1024);
}

/** A process and every process it started, and theirs (Linux): the pids, the process first. */
export function processTree(pid: number): number[] {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
  );
  return [pid, ...children.flatMap(processTree)];
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Runs a command to its end in the repository; resolves with its wall time in ms (rejects on a non-zero exit). */
export async function timeCommand(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    child.stdout.on('data', (d) => (output = (output + d).slice(-4000)));
    child.stderr.on('data', (d) => (output = (output + d).slice(-4000)));
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`))));
  });
  return Math.round(performance.now() - started);
}

/** Runs `node <args>` in `cwd` to its end: exit code, output (the last 64 kB), wall time. */
export function runNode(args: string[], cwd: string): Promise<{ code: number; output: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    const keep = (d: Buffer) => (output = (output + d).slice(-65_536));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('exit', (code) => resolve({ code: code ?? 1, output, ms: Math.round(performance.now() - started) }));
  });
}

export interface StartOptions {
  cwd: string;
  /** printed when ready; its groups are handed back */
  ready: RegExp;
  env?: NodeJS.ProcessEnv;
  /** variables removed from the inherited environment */
  unset?: string[];
  limitMs?: number;
}

/** Starts `node <args>` and resolves once its output matches `ready`: the process, the match, ms since spawning. */
export function startNode(args: string[], options: StartOptions): Promise<{ child: ChildProcess; match: RegExpExecArray; ms: number; spawnedAt: number }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...options.env };
  for (const name of options.unset ?? []) delete env[name];
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], env });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`not ready in ${options.limitMs} ms: ${output.slice(-3000)}`));
    }, options.limitMs ?? 60_000);
    const onData = (d: Buffer) => {
      output = (output + d).slice(-65_536);
      const match = options.ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, ms: Math.round(performance.now() - spawnedAt), spawnedAt });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before ready: ${output.slice(-3000)}`));
    });
  });
}

/** Stops a process and waits for it to be gone (SIGKILL after 5 s). */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await gone;
  clearTimeout(force);
}
