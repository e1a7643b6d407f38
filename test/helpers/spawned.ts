/**
 * Waiting on a spawned process by its events, never by time: the line it prints when it is ready
 * (a server started on port 0 prints the port it got), and the end of its output.
 */
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

export type Spawned = ChildProcessByStdio<null, Readable, Readable>;

/** Collects everything the process writes, for the failure message. */
export function outputOf(child: Spawned): () => string {
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return () => output;
}

/**
 * Resolves with the match of the first stdout line matching `pattern`; rejects when the process
 * exits first, with what it wrote.
 */
export function lineMatching(child: Spawned, pattern: RegExp, output: () => string): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let pending = '';
    const onData = (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        const match = pattern.exec(line);
        if (match) {
          stop();
          resolve(match);
          return;
        }
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      stop();
      reject(new Error(`exited (${code ?? signal}) before printing a line matching ${pattern}:\n${output()}`));
    };
    const stop = () => {
      child.stdout.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * Resolves when the process has exited and its stdout and stderr are closed: a pipe closes only
 * when every process holding it (the children it started, which inherit it) has ended too.
 */
export function ended(child: Spawned): Promise<void> {
  const closed = (stream: Readable) => (stream.closed ? Promise.resolve() : new Promise<void>((resolve) => stream.once('close', () => resolve())));
  const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return Promise.all([exited, closed(child.stdout), closed(child.stderr)]).then(() => undefined);
}
