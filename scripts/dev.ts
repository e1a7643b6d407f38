/**
 * `npm run dev`: the stubs (PORT, default 4000) and the mock (MOCK_PORT, default 4010) in one process
 * tree, rebuilt and reloaded as files are saved:
 * - a contract or schema edit runs the incremental build (only the units whose inputs changed), then
 *   serves the new contract: the service's stub is loaded again and its Prism restarted;
 * - a stub edit (server-stubs/<slug>/) loads that service again; server-stubs/lib/ reloads them all.
 * A reloaded service keeps its state (the new instance takes the old one's; state the new code refuses
 * is named in one line and the service starts from its seeds); the clock and the others are untouched.
 * State is kept in STUB_STATE_DIR across restarts too (`.stub-state/` unless set; `off` keeps it in memory).
 */
import chokidar from 'chokidar';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { startMockServer, type MockServer } from '../mock/server.js';
import { contractOnlySlugs, loadContractService, loadService, serviceSlugs, startPlatformServer, type PlatformServer } from '../server-stubs/server.js';
import { planFor, servicesRebuilt } from './lib/dev/plan.js';
import { build } from './lib/pipeline.js';
import { defaultRoot } from '../server-stubs/lib/root.js';
import { stopOnSignals } from '../server-stubs/lib/shutdown.js';
import { StateDirInUse, stateDirFromEnv } from '../server-stubs/lib/state-dir.js';

export interface DevServer {
  platform: PlatformServer;
  mock?: MockServer;
  /** resolves when every change seen so far is served (tests and the benchmark wait on it) */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export interface DevOptions {
  root?: string;
  port?: number;
  mockPort?: number;
  host?: string;
  /** start the mock too (default true) */
  mock?: boolean;
  /** where the stubs keep their state across restarts (`STUB_STATE_DIR` unless given; undefined: in memory) */
  stateDir?: string;
  log?: (line: string) => void;
}

/** Every import is a fresh module graph (tsx's namespaced import), so an edited module is read again. */
const freshImport = (file: string) => tsImport(pathToFileURL(file).href, import.meta.url);

const ms = (since: number) => `${Math.round(performance.now() - since)} ms`;

export async function startDevServer(options: DevOptions = {}): Promise<DevServer> {
  const root = options.root ?? defaultRoot;
  const log = options.log ?? ((line: string) => console.log(line));
  const host = options.host ?? '0.0.0.0';
  const quiet = (line: string) => {
    if (!line.startsWith('skip')) log(line);
  };

  const first = await build({ root, log: quiet });
  if (!first.ok) log(`build failed: ${first.failures.join('; ')} (serving what was built before; fix and save to rebuild)`);
  const generatedDir = path.join(root, 'generated');
  const stubsDir = path.join(root, 'server-stubs');
  let mock: MockServer | undefined;
  const platform = await startPlatformServer(options.port ?? 4000, host, {
    importApp: freshImport,
    generatedDir,
    stateDir: 'stateDir' in options ? options.stateDir : stateDirFromEnv(root),
    log,
    stubsDir,
    // The docs' console offers the mock on the port it was given, not the contract's 4010.
    docsServers: () => (mock ? [{ port: mock.port, description: 'the mock of npm run dev' }] : []),
  });
  /** Every served service: those with an app, and bundles served from their contract alone. */
  const servedSlugs = () => [...serviceSlugs(stubsDir), ...contractOnlySlugs(generatedDir, stubsDir)];
  mock = options.mock === false ? undefined : await startMockServer(options.mockPort ?? 4010, host, { bundlesDir: generatedDir });

  const reload = async (slug: string) => {
    const started = performance.now();
    try {
      const fromContract = !serviceSlugs(stubsDir).includes(slug) && contractOnlySlugs(generatedDir, stubsDir).includes(slug);
      await platform.replace(fromContract ? loadContractService(slug, generatedDir) : await loadService(slug, freshImport, stubsDir));
      const broken = platform.broken.find((b) => b.slug === slug);
      log(broken ? `reload   ${slug}: failed to start, answers 503: ${broken.error}` : `reload   ${slug.padEnd(20)}${ms(started).padStart(8)}  serving`);
    } catch (error) {
      await platform.markBroken({ slug, basePath: `/${slug}`, error: (error as Error).message });
      log(`reload   ${slug}: does not load, answers 503: ${(error as Error).message}`);
    }
  };

  // Saves arrive in bursts (an editor writes, renames, touches): gather them, then work through one
  // batch at a time, so a build never runs twice at once.
  const pending = new Set<string>();
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const work = async () => {
    const changed = [...pending];
    pending.clear();
    const services = servedSlugs();
    const plan = planFor(root, changed, services);
    const reloads = new Set(plan.reload);
    let mocked: string[] = [];
    if (plan.build) {
      // A stub needs only its bundle: it serves the new contract while the build goes on to the
      // types, client and docs.
      const served = new Set<string>();
      const onBundled = async (slug: string) => {
        // A bundle built for the first time (a document just added) is served from then on.
        if (!servedSlugs().includes(slug)) return;
        served.add(slug);
        reloads.delete(slug);
        await reload(slug);
      };
      const result = await build({ root, log: quiet, onBundled });
      if (!result.ok) log(`build failed: ${result.failures.join('; ')} (a document that is not valid OpenAPI keeps serving its last good build; one that breaks only style or house rules is served)`);
      for (const slug of servicesRebuilt(result.rebuilt, servedSlugs())) if (!served.has(slug)) reloads.add(slug);
      mocked = mock ? servicesRebuilt(result.rebuilt, [...mock.services, ...mock.failed].map((s) => s.slug)) : [];
    }
    // The stubs first: a stub reloads in milliseconds, a Prism restarts in seconds.
    for (const slug of reloads) await reload(slug);
    await Promise.all(
      mocked.map(async (slug) => {
        const started = performance.now();
        await mock!.restart(slug).then(
          () => log(`mock     ${slug.padEnd(20)}${ms(started).padStart(8)}  serving`),
          (error: unknown) => log(`mock     ${slug}: ${(error as Error).message}`),
        );
      }),
    );
    for (const file of plan.restartNeeded) log(`changed  ${file}: restart npm run dev to take it`);
  };
  const schedule = (file: string) => {
    pending.add(path.resolve(file));
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(work).catch((error: unknown) => log(`dev: ${(error as Error).message}`));
    }, 40);
  };

  const watcher = chokidar.watch(['openapi', 'schemas', 'server-stubs', 'redocly.yaml'].map((p) => path.join(root, p)), {
    ignoreInitial: true,
    ignored: (file) => /(^|[/\\])(node_modules|\.cache)([/\\]|$)|~$|\.swp$/.test(file),
  });
  watcher.on('all', (_event, file) => schedule(file));
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));

  return {
    platform,
    mock,
    settled: async () => {
      // A save may still be inside the gathering window: wait it out, then for the work it started.
      while (timer && pending.size > 0) await new Promise((r) => setTimeout(r, 10));
      await running;
    },
    close: async () => {
      // A build under way is not waited for: stopping must be prompt, and an interrupted build
      // leaves the last build state, so the next one redoes that unit.
      clearTimeout(timer);
      await watcher.close();
      await Promise.all([platform.close(), mock?.close()]);
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // Handlers first: a signal during start-up still stops what was started.
  const starting = startDevServer({ port: Number(process.env.PORT ?? 4000), mockPort: Number(process.env.MOCK_PORT ?? 4010) });
  stopOnSignals(async () => (await starting).close());
  const dev = await starting.catch((error: unknown) => {
    if (!(error instanceof StateDirInUse)) throw error;
    console.error(`npm run dev: ${error.message}`);
    process.exit(1);
  });
  console.log(`dev: stubs on http://localhost:${dev.platform.port}${dev.mock ? `, mock on http://localhost:${dev.mock.port}` : ''}; watching openapi/, schemas/, server-stubs/`);
}
