/**
 * How every long-running command (`npm start`, `npm run mock`, `npm run dev`) stops: on SIGINT or
 * SIGTERM it closes what it started (servers, Prism children, watchers) and exits; a second signal
 * exits at once. The npm scripts `exec` node, so the signal npm forwards reaches this process and
 * not only the shell in between (which would die and leave the server serving).
 */
export function stopOnSignals(close: () => Promise<void>, log: (line: string) => void = console.log): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    log(`${signal}: stopping`);
    const deadline = setTimeout(() => process.exit(1), 5_000);
    deadline.unref();
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`while stopping: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
