/**
 * `npm start`: every service's stub on one port (PORT, default 4000) at its base path, the
 * development controls at /_stub, and the docs at /docs. Services are found as
 * server-stubs/<slug>/app.ts, so a new one slots in by adding its folder; a bundle
 * generated/<slug>/openapi.json without one (a document brought in by `npm run add-service`) is served
 * from its contract alone (DECISIONS I-2). One that fails to load is reported and answers 503, and
 * the others are served.
 */
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { credentialHeaders } from './lib/auth.js';
import { corsOriginsFromEnv } from './lib/browser.js';
import { stubClockFromEnv, type StubClock } from './lib/clock.js';
import { loadContract } from './lib/contract.js';
import { createStubControls } from './lib/controls.js';
import { CoverageBook } from './lib/coverage.js';
import { createExpressServer } from './lib/http-server.js';
import {
  defaultGeneratedDir,
  defaultStubsDir,
  discoverServices,
  servicesToLoad,
  stubsRoot,
  type AppImporter,
  type BrokenService,
  type ServiceToLoad,
} from './lib/platform/discovery.js';
import { platformFallbacks } from './lib/platform/fallbacks.js';
import { loadInBackground, loadOnFirstRequest } from './lib/platform/lazy-loading.js';
import { routeRequests } from './lib/platform/request-routing.js';
import { ServiceSlots } from './lib/platform/service-slots.js';
import { dispatchUpgrades } from './lib/platform/upgrades.js';
import { wellKnownUnderIssuer } from './lib/platform/well-known.js';
import type { RouterSwitches, StubInstance, StubService } from './lib/service.js';
import { answerClientErrors } from './lib/transport-errors.js';
import { defaultRoot } from './lib/root.js';
import { StateDirInUse, stateDirFromEnv } from './lib/state-dir.js';
import { StateKeeper } from './lib/state-keeper.js';
// The composition root serves the docs portal, which the pipeline renders: the one import of scripts/ kept here.
import type { PortalServer } from '../scripts/steps/docs.js';
import { stopOnSignals } from './lib/shutdown.js';

export {
  contractOnlySlugs,
  discoverServices,
  loadContractService,
  loadService,
  serviceSlugs,
  type AppImporter,
  type BrokenService,
} from './lib/platform/discovery.js';

export interface PlatformServer {
  server: http.Server;
  port: number;
  services: StubService[];
  broken: BrokenService[];
  clock: StubClock;
  instances: Array<{ slug: string; instance: StubInstance }>;
  /** the folder the services' state is kept in; undefined when it lives in memory */
  stateDir?: string;
  /**
   * Serves a new version of a service (a fresh instance, which takes the running one's state) in
   * place of the running one, or adds it; `npm run dev` calls it when a service's code or contract changes.
   */
  replace(service: StubService): Promise<void>;
  /** Answers 503 naming the error for a service until it is replaced (an edit that does not load). */
  markBroken(broken: BrokenService): Promise<void>;
  /** Resolves once every service is loaded (at once unless `lazy`). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export interface PlatformOptions {
  clock?: StubClock;
  /** the services to serve instead of those found in server-stubs/ (tests) */
  services?: StubService[];
  /** how the services found in server-stubs/ are imported (`npm run dev` loads fresh module graphs) */
  importApp?: AppImporter;
  /**
   * Listen at once and load each service on its first request, the rest in the background
   * (`npm start`); `services`, `instances` and `broken` fill in as they load (`ready` tells when).
   */
  lazy?: boolean;
  /** framework switches for every service (benchmarks turn rate limits off) */
  switches?: RouterSwitches;
  /** where the bundles are (the repo's generated/ unless given): those without an app are served from their contract */
  generatedDir?: string;
  /** where the services' folders are (the repo's server-stubs/ unless given) */
  stubsDir?: string;
  /** the other servers running beside this one (`npm run dev`'s mock), offered by the docs' console */
  docsServers?: () => PortalServer[];
  /**
   * Where every service's state is kept across restarts (`STUB_STATE_DIR`; see state-dir.ts); in
   * memory when absent. A folder another live server keeps state in is refused (`StateDirInUse`).
   */
  stateDir?: string;
  /** where the server says what it did with kept state (a file moved aside); the console unless given */
  log?: (line: string) => void;
}

export async function startPlatformServer(port = 4000, host = '0.0.0.0', options: PlatformOptions = {}): Promise<PlatformServer> {
  const generatedDir = options.generatedDir ?? defaultGeneratedDir;
  const stubsDir = options.stubsDir ?? defaultStubsDir;
  // Lazy (`npm start`): listen first and load the services afterwards (lib/platform/lazy-loading.ts).
  const lazy = options.lazy === true && !options.services;
  const eager = options.services ? { services: options.services, broken: [] } : lazy ? { services: [], broken: [] } : await discoverServices(options.importApp, generatedDir, stubsDir);
  const toLoad: ServiceToLoad[] = lazy ? servicesToLoad(generatedDir, stubsDir, options.importApp) : [];
  const clock = options.clock ?? stubClockFromEnv();
  const keeper = StateKeeper.open({ dir: options.stateDir, clock, log: options.log });
  const coverage = coverageBookFor(options.switches);
  const slots = new ServiceSlots({ clock, corsOrigins: corsOriginsFromEnv(), coverage, switches: options.switches, keeper, root: stubsRoot });
  const fallbacks = platformFallbacks(slots);

  const app = express();
  app.disable('x-powered-by');
  for (const service of toLoad) slots.expect(service);
  app.use(wellKnownUnderIssuer([...eager.services.map((s) => s.basePath), ...toLoad.map((s) => s.basePath)]));
  app.use(loadOnFirstRequest(slots));
  for (const service of eager.services) await slots.start(service);
  for (const b of eager.broken) slots.setBroken(b);
  app.use(slots.router);
  const { ready, allLoaded } = readiness();
  mountControls(app, slots, { clock, coverage, keeper, ready });
  await mountDocs(app, slots, generatedDir, options.docsServers);
  app.use(fallbacks.notFound);
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => fallbacks.failed(error, req, res));

  const server = createExpressServer(app, {}, routeRequests(app, slots, keeper, fallbacks));
  // Requests Node refuses before Express sees them, in the error body of the service their target names.
  answerClientErrors(server, slots.families);
  dispatchUpgrades(server, slots, toLoad.map((s) => s.slug));
  await listen(server, port, host).catch(async (error: unknown) => {
    await keeper.close();
    throw error;
  });
  if (lazy) loadInBackground(slots, toLoad.map((s) => s.slug), allLoaded);
  else allLoaded();
  return {
    server,
    port: (server.address() as AddressInfo).port,
    services: slots.services,
    broken: slots.broken,
    clock,
    instances: slots.instances,
    stateDir: keeper.folder,
    replace: (service) => slots.replace(service),
    markBroken: (b) => slots.markBroken(b),
    ready,
    close: async () => {
      await slots.closeAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await keeper.close();
    },
  };
}

/** A promise of every service being loaded, and what resolves it. */
function readiness(): { ready: Promise<void>; allLoaded: () => void } {
  let allLoaded: () => void = () => {};
  const ready = new Promise<void>((resolve) => (allLoaded = resolve));
  return { ready, allLoaded };
}

/**
 * The development controls at /_stub. They act on every service (reset, the clock's due work, mail's
 * inbound), so they wait until all are loaded.
 */
function mountControls(app: Express, slots: ServiceSlots, { clock, coverage, keeper, ready }: { clock: StubClock; coverage: CoverageBook | undefined; keeper: StateKeeper; ready: Promise<void> }): void {
  app.use('/_stub', (_req, _res, next) => void ready.then(() => next()));
  app.use('/_stub', createStubControls(clock, () => slots.instances, coverage, { changed: () => keeper.keepNow(), cleared: () => keeper.cleared() }).router);
}

/** The docs portal at /docs, rendered from the bundles with these stubs' seeded credentials in its console, and the index at `/`. */
async function mountDocs(app: Express, slots: ServiceSlots, generatedDir: string, docsServers: (() => PortalServer[]) | undefined): Promise<void> {
  const { createDocsRouter } = await import('../scripts/steps/docs/serve.js');
  app.use('/docs', createDocsRouter({ generatedDir, services: slots.services, servers: docsServers }));
  app.get('/', (_req, res) => {
    res.json({
      docs: '/docs/',
      controls: '/_stub',
      services: slots.services.map((s) => ({ slug: s.slug, title: s.title, baseUrl: s.basePath })),
      broken: slots.broken,
    });
  });
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
}

/**
 * What every service of the server counts its answers into, for `GET /_stub/coverage`: kept across a
 * service's reloads and `POST /_stub/reset` alike, so a test run's count is whole. None with the
 * `countCoverage: false` switch.
 */
function coverageBookFor(switches: RouterSwitches | undefined): CoverageBook | undefined {
  return switches?.countCoverage === false ? undefined : new CoverageBook();
}

export function banner(running: PlatformServer): string {
  const origin = `http://localhost:${running.port}`;
  const lines = [
    `Stubs of ${running.services.length} services on ${origin}`,
    `  docs        ${origin}/docs/`,
    `  controls    ${origin}/_stub   clock ${running.clock.manual ? 'manual (STUB_CLOCK=manual)' : 'system'}: GET/POST /_stub/clock, POST /_stub/reset, GET/PUT /_stub/state`,
    `  state       ${running.stateDir ? `kept in ${running.stateDir} (STUB_STATE_DIR; off keeps it in memory)` : 'in memory (STUB_STATE_DIR=off)'}`,
  ];
  for (const s of running.services) {
    const unimplemented = running.instances.find((i) => i.slug === s.slug)?.instance.unimplemented ?? [];
    lines.push(`  ${s.slug.padEnd(11)} ${origin}${s.basePath}   ${s.title}${unimplemented.length ? ` (${unimplemented.length} operations answer 501)` : ''}`);
    const document = s.credentials.length > 0 ? loadContract(s.slug).document : undefined;
    for (const c of s.credentials) {
      const headers = Object.entries(credentialHeaders(document!, c)).map(([name, value]) => `${name}: ${value}`);
      lines.push(`  ${''.padEnd(11)}   ${c.label}: ${headers.join('; ')}`);
    }
    if (s.anyCredential?.length) lines.push(`  ${''.padEnd(11)}   from its contract alone; no credentials seeded, any value is taken: ${s.anyCredential.join(' | ')}`);
  }
  for (const b of running.broken) lines.push(`  ${b.slug.padEnd(11)} FAILED TO START (answers 503): ${b.error}`);
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // Handlers first: a signal during start-up still closes what was started.
  const starting = startPlatformServer(Number(process.env.PORT ?? 4000), undefined, { lazy: true, stateDir: stateDirFromEnv(defaultRoot) });
  stopOnSignals(async () => (await starting).close());
  const running = await starting.catch((error: unknown) => {
    if (!(error instanceof StateDirInUse)) throw error;
    console.error(`npm start: ${error.message}`);
    process.exit(1);
  });
  console.log(`Listening on http://localhost:${running.port}; loading the services`);
  void running.ready.then(() => console.log(banner(running)));
}
