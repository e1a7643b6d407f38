/**
 * One service's stub alone, for the benchmarks: `serve-stub.ts <slug> [--no-validation]
 * [--no-coverage] [--state-dir=<folder>]`, on the server `npm start` runs (startPlatformServer, with only this
 * service; its state kept in the folder when given). Rate limits are off (a load run would be
 * answered 429 after a few requests). `--profile=<file>` writes a CPU profile of what
 * runs between SIGUSR2 and SIGTERM.
 */
import { existsSync, writeFileSync } from 'node:fs';
import inspector from 'node:inspector';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { startPlatformServer as StartPlatformServer } from '../../server-stubs/server.js';
import type { StubService } from '../../server-stubs/lib/service.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const slug = process.argv[2];
if (!slug || slug.startsWith('-')) throw new Error('usage: serve-stub.ts <slug> [--no-validation]');
const validation = !process.argv.includes('--no-validation');
const countCoverage = !process.argv.includes('--no-coverage');
const port = Number(process.env.PORT ?? 0);
const profileFile = process.argv.find((a) => a.startsWith('--profile='))?.slice('--profile='.length);
const stateDir = process.argv.find((a) => a.startsWith('--state-dir='))?.slice('--state-dir='.length);

// The compiled JavaScript that `npm start` runs (built by `npm run build`), else the sources: under
// tsx every function a request creates carries a naming wrapper the compiled code does not have.
const compiled = (file: string) => path.join(root, '.cache', 'js', 'server-stubs', `${file}.js`);
const source = (file: string) => (existsSync(compiled(file)) ? compiled(file) : path.join(root, 'server-stubs', `${file}.ts`));
const service = ((await import(pathToFileURL(source(`${slug}/app`)).href)) as { default: StubService }).default;
const { startPlatformServer } = (await import(pathToFileURL(source('server')).href)) as { startPlatformServer: typeof StartPlatformServer };
const running = await startPlatformServer(port, '127.0.0.1', {
  services: [service],
  switches: { validateRequests: validation, validateResponses: validation, rateLimits: false, countCoverage },
  stateDir,
});
process.stdout.write(`listening ${running.port}\n`);
// A normal exit on a signal, so `node --cpu-prof` writes its profile; a state folder is given up first, as `npm start` gives it up.
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void (stateDir ? running.close() : Promise.resolve()).finally(() => process.exit(0)));
if (profileFile) profileOnSignal(profileFile);

/** A CPU profile of the steady state only (start-up and warm-up left out): SIGUSR2 starts it, SIGTERM writes it and exits. */
function profileOnSignal(file: string) {
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result))));
  let started = false;
  process.on('SIGUSR2', () => {
    started = true;
    void post('Profiler.enable').then(() => post('Profiler.start'));
  });
  process.removeAllListeners('SIGTERM');
  process.on('SIGTERM', () => {
    const stopped = started ? post('Profiler.stop') : Promise.resolve(undefined);
    void stopped.then((result) => {
      if (result) writeFileSync(file, JSON.stringify((result as { profile: unknown }).profile));
      process.exit(0);
    });
  });
}
