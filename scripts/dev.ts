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
import chokidar, { type FSWatcher } from 'chokidar';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { startMockServer, type MockServer } from '../mock/server.js';
import { startPlatformServer, type PlatformServer } from '../server-stubs/server.js';
import { planFor, servicesRebuilt } from './lib/dev/plan.js';
import { reloadStub, restartMocks, servedSlugs, type StubFolders } from './lib/dev/reloads.js';
import { batchSaves } from './lib/dev/save-batches.js';
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

/** What the steps of `npm run dev` share. */
interface DevContext {
  root: string;
  folders: StubFolders;
  platform: PlatformServer;
  mock: MockServer | undefined;
  log: (line: string) => void;
  /** the build's log without its `skip` lines */
  buildLog: (line: string) => void;
}

export async function startDevServer(options: DevOptions = {}): Promise<DevServer> {
  const root = options.root ?? defaultRoot;
  const log = options.log ?? ((line: string) => console.log(line));
  const host = options.host ?? '0.0.0.0';
  const buildLog = (line: string) => {
    if (!line.startsWith('skip')) log(line);
  };
  const folders: StubFolders = { generatedDir: path.join(root, 'generated'), stubsDir: path.join(root, 'server-stubs') };

  await buildFirst(root, buildLog, log);
  let mock: MockServer | undefined;
  const platform = await startPlatformServer(options.port ?? 4000, host, {
    importApp: freshImport,
    generatedDir: folders.generatedDir,
    stateDir: 'stateDir' in options ? options.stateDir : stateDirFromEnv(root),
    log,
    stubsDir: folders.stubsDir,
    // The docs' console offers the mock on the port it was given, not the contract's 4010.
    docsServers: () => (mock ? [{ port: mock.port, description: 'the mock of npm run dev' }] : []),
  });
  mock = options.mock === false ? undefined : await startMockServer(options.mockPort ?? 4010, host, { bundlesDir: folders.generatedDir });
  const context: DevContext = { root, folders, platform, mock, log, buildLog };

  const saves = batchSaves((changed) => serveChanges(context, changed), log);
  const watcher = await watchSources(root, saves.saved);
  return {
    platform,
    mock,
    settled: () => saves.settled(),
    close: async () => {
      // A build under way is not waited for: stopping must be prompt, and an interrupted build
      // leaves the last build state, so the next one redoes that unit.
      saves.stop();
      await watcher.close();
      await Promise.all([platform.close(), mock?.close()]);
    },
  };
}

/** The build before serving; a failed one still serves what was built before. */
async function buildFirst(root: string, buildLog: (line: string) => void, log: (line: string) => void): Promise<void> {
  const first = await build({ root, log: buildLog });
  if (!first.ok) log(`build failed: ${first.failures.join('; ')} (serving what was built before; fix and save to rebuild)`);
}

/** Serves a batch of saved files: the build they need, then the stubs and mocks they changed. */
async function serveChanges(context: DevContext, changed: string[]): Promise<void> {
  const { root, folders, platform, mock, log } = context;
  const plan = planFor(root, changed, servedSlugs(folders));
  const reloads = new Set(plan.reload);
  const mocked = plan.build ? await rebuildAndServe(context, reloads) : [];
  // The stubs first: a stub reloads in milliseconds, a Prism restarts in seconds.
  for (const slug of reloads) await reloadStub(platform, slug, folders, freshImport, log);
  if (mock) await restartMocks(mock, mocked, log);
  for (const file of plan.restartNeeded) log(`changed  ${file}: restart npm run dev to take it`);
}

/**
 * Runs the incremental build. A stub needs only its bundle: it serves the new contract while the
 * build goes on to the types, client and docs. Adds to `reloads` the served services the build
 * rebuilt and answers the mocked ones to restart.
 */
async function rebuildAndServe({ root, folders, platform, mock, log, buildLog }: DevContext, reloads: Set<string>): Promise<string[]> {
  const served = new Set<string>();
  const onBundled = async (slug: string) => {
    // A bundle built for the first time (a document just added) is served from then on.
    if (!servedSlugs(folders).includes(slug)) return;
    served.add(slug);
    reloads.delete(slug);
    await reloadStub(platform, slug, folders, freshImport, log);
  };
  const result = await build({ root, log: buildLog, onBundled });
  if (!result.ok) log(`build failed: ${result.failures.join('; ')} (a document that is not valid OpenAPI keeps serving its last good build; one that breaks only style or house rules is served)`);
  for (const slug of servicesRebuilt(result.rebuilt, servedSlugs(folders))) if (!served.has(slug)) reloads.add(slug);
  return mock ? servicesRebuilt(result.rebuilt, [...mock.services, ...mock.failed].map((s) => s.slug)) : [];
}

/** Watches the contracts, schemas, stubs and lint configuration; resolves once the watcher is ready. */
async function watchSources(root: string, saved: (file: string) => void): Promise<FSWatcher> {
  const watcher = chokidar.watch(['openapi', 'schemas', 'server-stubs', 'redocly.yaml'].map((p) => path.join(root, p)), {
    ignoreInitial: true,
    ignored: (file) => /(^|[/\\])(node_modules|\.cache)([/\\]|$)|~$|\.swp$/.test(file),
  });
  watcher.on('all', (_event, file) => saved(file));
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return watcher;
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
