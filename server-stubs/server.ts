/**
 * `npm start`: every service's stub on one port (PORT, default 4000) at its base path, the
 * development controls at /_stub, and the docs at /docs. Services are found as
 * server-stubs/<slug>/app.ts, so a new one slots in by adding its folder; a bundle
 * generated/<slug>/openapi.json without one (a document brought in by `npm run add-service`) is served
 * from its contract alone (DECISIONS I-2). One that fails to load is reported and answers 503, and
 * the others are served.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { OpenAPI3 } from 'openapi-typescript';
import { credentialHeaders } from './lib/auth.js';
import { corsOriginsFromEnv } from './lib/browser.js';
import { stubClockFromEnv, type StubClock } from './lib/clock.js';
import { loadContract } from './lib/contract.js';
import { contractStub } from './lib/contract-stub.js';
import { createStubControls } from './lib/controls.js';
import { CoverageBook } from './lib/coverage.js';
import { createExpressServer, isUnder, runMounted } from './lib/http-server.js';
import type { RouterSwitches, StubInstance, StubService } from './lib/service.js';
import type { ErrorResponse } from './lib/errors.js';
import { writeError } from './lib/results.js';
import { answerClientErrors, answerIn, errorFamilies, platformError, withoutAbsolutePaths } from './lib/transport-errors.js';
import { mountPathOf } from './lib/openapi/document.js';
import { defaultRoot } from './lib/root.js';
import { StateDirInUse, stateDirFromEnv } from './lib/state-dir.js';
import { StateKeeper } from './lib/state-keeper.js';
// The composition root serves the docs portal, which the pipeline renders: the one import of scripts/ kept here.
import type { PortalServer } from '../scripts/steps/docs.js';
import { stopOnSignals } from './lib/shutdown.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

const repoGenerated = path.join(root, 'generated');

/** Bundles that are not a service: the development controls' own contract (served by controls.ts). */
const notServices = new Set(['stub-controls']);

/** A service folder that could not be loaded or started, and why. */
export interface BrokenService {
  slug: string;
  basePath: string;
  error: string;
}

/** How a service's `app.ts` is imported: plain `import()`, or a fresh module graph each time (`npm run dev`). */
export type AppImporter = (file: string) => Promise<unknown>;

const importOnce: AppImporter = (file) => import(pathToFileURL(file).href);

/** A service's app module: the source, or the compiled JavaScript when this runs from `.cache/js/` (`npm start`). */
const appFile = (slug: string, stubsDir: string) => ['app.ts', 'app.js'].map((name) => path.join(stubsDir, slug, name)).find((file) => existsSync(file));

/**
 * The slugs of server-stubs/<slug>/app.ts; `stubsDir` is another project's server-stubs/ (`npm run
 * dev` on a copy of the project, as its tests run it).
 */
export function serviceSlugs(stubsDir: string = here): string[] {
  return readdirSync(stubsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'lib' && appFile(d.name, stubsDir))
    .map((d) => d.name)
    .sort();
}

/** Imports one service's app module; throws with a message naming the file when it has no StubService. */
export async function loadService(slug: string, importApp: AppImporter = importOnce, stubsDir: string = here): Promise<StubService> {
  const file = appFile(slug, stubsDir);
  if (!file) throw new Error(`server-stubs/${slug}/app.ts does not exist`);
  const module = (await importApp(file)) as { default?: StubService };
  if (!module.default?.create) throw new Error(`server-stubs/${slug}/app.ts has no default StubService export`);
  return module.default;
}

/** The slugs with a bundle in `generatedDir` and no server-stubs/<slug>/app.ts: served from their contract alone. */
export function contractOnlySlugs(generatedDir: string = repoGenerated, stubsDir: string = here): string[] {
  if (!existsSync(generatedDir)) return [];
  const withApp = new Set(serviceSlugs(stubsDir));
  return readdirSync(generatedDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !notServices.has(d.name) && !withApp.has(d.name) && existsSync(path.join(generatedDir, d.name, 'openapi.json')))
    .map((d) => d.name)
    .sort();
}

/** The contract stub of a bundle; throws with a message naming the file when it cannot be read or served. */
export function loadContractService(slug: string, generatedDir: string = repoGenerated): StubService {
  const file = path.join(generatedDir, slug, 'openapi.json');
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`generated/${slug}/openapi.json cannot be read: ${(error as Error).message}`);
  }
  return contractStub(slug, document as OpenAPI3);
}

/** Where a bundle would be served, read without trusting it: `/<slug>` when it cannot be read. */
function bundleMountPath(slug: string, generatedDir: string): string {
  try {
    return mountPathOf(slug, JSON.parse(readFileSync(path.join(generatedDir, slug, 'openapi.json'), 'utf8')) as OpenAPI3);
  } catch {
    return `/${slug}`;
  }
}

export async function discoverServices(
  importApp: AppImporter = importOnce,
  generatedDir: string = repoGenerated,
  stubsDir: string = here,
): Promise<{ services: StubService[]; broken: BrokenService[] }> {
  const services: StubService[] = [];
  const broken: BrokenService[] = [];
  for (const slug of serviceSlugs(stubsDir)) {
    try {
      services.push(await loadService(slug, importApp, stubsDir));
    } catch (error) {
      broken.push({ slug, basePath: bundleMountPath(slug, generatedDir), error: (error as Error).message });
    }
  }
  for (const slug of contractOnlySlugs(generatedDir, stubsDir)) {
    try {
      services.push(loadContractService(slug, generatedDir));
    } catch (error) {
      broken.push({ slug, basePath: bundleMountPath(slug, generatedDir), error: (error as Error).message });
    }
  }
  return { services, broken };
}

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

/**
 * RFC 8414 §3.1 (and RFC 8615): the metadata of an issuer with a path, `http://host/mail`, is found
 * at `http://host/.well-known/oauth-authorization-server/mail`. A service serves its metadata under
 * its own base path, so that address is routed there; discovery clients (oauth4webapi) then work.
 */
function wellKnownUnderIssuer(basePaths: string[]) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const m = /^\/\.well-known\/(oauth-authorization-server|openid-configuration)(\/.+)$/.exec(req.path);
    const basePath = m && basePaths.find((b) => b === m[2]);
    // originalUrl too: the contract validator matches operations on it.
    if (m && basePath) req.url = req.originalUrl = `${basePath}/.well-known/${m[1]}${req.url.slice(req.path.length)}`;
    next();
  };
}

function sendError(res: Response, mapped: ErrorResponse): void {
  writeError(res.status(mapped.status).set(mapped.headers ?? {}), mapped);
}

export async function startPlatformServer(port = 4000, host = '0.0.0.0', options: PlatformOptions = {}): Promise<PlatformServer> {
  // Lazy: listen first, and load each service on its first request or in the background, whichever
  // comes first, so one service's first answer does not wait for every other service's modules.
  const lazy = options.lazy === true && !options.services;
  const generatedDir = options.generatedDir ?? repoGenerated;
  const stubsDir = options.stubsDir ?? here;
  const discovered = options.services ? { services: options.services, broken: [] } : lazy ? { services: [], broken: [] } : await discoverServices(options.importApp, generatedDir, stubsDir);
  const broken = [...discovered.broken];
  const clock = options.clock ?? stubClockFromEnv();
  const keeper = StateKeeper.open({ dir: options.stateDir, clock, log: options.log });
  const corsOrigins = corsOriginsFromEnv();
  const coverage = coverageBookFor(options.switches);
  const app = express();
  app.disable('x-powered-by');
  const services: StubService[] = [];
  const instances: Array<{ slug: string; instance: StubInstance }> = [];
  /** Services whose create() threw: their error body still answers their 503. */
  const failedToStart: StubService[] = [];
  const families = errorFamilies(() => [...services, ...failedToStart]);
  // What each base path serves now: a running instance, or why it is broken (503). `replace` swaps
  // an entry while the server runs; requests in flight finish on the instance they started on.
  const slots = new Map<string, { instance: StubInstance } | { broken: BrokenService } | { loading: Promise<void> }>();
  const mounted = express.Router();
  /** base path → slug */
  const mountedAt = new Map<string, string>();
  const mount = (slug: string, basePath: string) => {
    if (mountedAt.has(basePath)) return;
    mountedAt.set(basePath, slug);
    mounted.use(basePath, (req, res, next) => {
      const serve = () => {
        const slot = slots.get(slug);
        if (slot && 'instance' in slot) return slot.instance.router(req, res, next);
        const problem = withoutAbsolutePaths(slot && 'broken' in slot ? slot.broken.error : 'not loaded', root);
        sendError(res, answerIn(families, req.originalUrl, { kind: 'internal', status: 503, message: `The ${slug} stub failed to start: ${problem}` }));
      };
      const slot = slots.get(slug);
      if (slot && 'loading' in slot) void slot.loading.then(serve);
      // A lazy service mounted where its first path segment is not its slug is loaded by its own first request.
      else if (!slot && unloaded.has(slug)) void load(slug).then(serve);
      else serve();
    });
  };
  const setBroken = (b: BrokenService) => {
    mount(b.slug, b.basePath);
    slots.set(b.slug, { broken: b });
    const at = broken.findIndex((x) => x.slug === b.slug);
    if (at >= 0) broken[at] = b;
    else broken.push(b);
  };
  const start = async (service: StubService) => {
    try {
      const instance = await service.create({ clock, corsOrigins, coverage, ...options.switches });
      keeper.adopt(service.slug, instance, instances.find((i) => i.slug === service.slug)?.instance);
      mount(service.slug, service.basePath);
      slots.set(service.slug, { instance });
      const upsert = <T extends { slug: string }>(list: T[], entry: T) => {
        const at = list.findIndex((x) => x.slug === entry.slug);
        if (at >= 0) list[at] = entry;
        else list.push(entry);
      };
      upsert(instances, { slug: service.slug, instance });
      upsert(services, service);
      const wasBroken = broken.findIndex((b) => b.slug === service.slug);
      if (wasBroken >= 0) broken.splice(wasBroken, 1);
    } catch (error) {
      if (!failedToStart.includes(service)) failedToStart.push(service);
      setBroken({ slug: service.slug, basePath: service.basePath, error: (error as Error).message });
    }
  };
  const contractSlugs = new Set(lazy ? contractOnlySlugs(generatedDir, stubsDir) : []);
  const lazySlugs = lazy ? [...serviceSlugs(stubsDir), ...contractSlugs] : [];
  /** Where a lazy service is mounted before it loads: where its bundle's `servers` says, as once loaded. */
  const lazyMountPath = (slug: string) => bundleMountPath(slug, generatedDir);
  /** The lazy services no request or background load has started yet. */
  const unloaded = new Set(lazySlugs);
  /** Loads a service found in server-stubs/ (once); its requests wait for it meanwhile. */
  const load = (slug: string): Promise<void> => {
    const slot = slots.get(slug);
    if (slot) return 'loading' in slot ? slot.loading : Promise.resolve();
    unloaded.delete(slug);
    const service = contractSlugs.has(slug) ? Promise.resolve().then(() => loadContractService(slug, generatedDir)) : loadService(slug, options.importApp, stubsDir);
    const basePath = lazyMountPath(slug);
    const loading = service.then(start, (error: unknown) => setBroken({ slug, basePath, error: (error as Error).message }));
    slots.set(slug, { loading });
    mount(slug, basePath);
    return loading;
  };
  for (const slug of lazySlugs) mount(slug, lazyMountPath(slug));
  app.use(wellKnownUnderIssuer([...discovered.services.map((s) => s.basePath), ...lazySlugs.map(lazyMountPath)]));
  app.use((req, _res, next) => {
    // The first request to a service starts its loading (a base path is `/<slug>` by convention);
    // once every service is loaded, requests pass straight on.
    if (unloaded.size === 0) return next();
    const slug = req.path.split('/', 2)[1];
    if (slug !== undefined && unloaded.has(slug)) void load(slug);
    next();
  });
  for (const service of discovered.services) await start(service);
  for (const b of discovered.broken) setBroken(b);
  app.use(mounted);
  // The controls act on every service (reset, the clock's due work, mail's inbound): they wait until all are loaded.
  let allLoaded: () => void = () => {};
  const ready = new Promise<void>((resolve) => (allLoaded = resolve));
  app.use('/_stub', (_req, _res, next) => void ready.then(() => next()));
  app.use('/_stub', createStubControls(clock, () => instances, coverage, { changed: () => keeper.keepNow(), cleared: () => keeper.cleared() }).router);

  // The docs portal, rendered from the bundles with these stubs' seeded credentials in its console.
  const { createDocsRouter } = await import('../scripts/steps/docs/serve.js');
  app.use('/docs', createDocsRouter({ generatedDir, services, servers: options.docsServers }));
  app.get('/', (_req, res) => {
    res.json({
      docs: '/docs/',
      controls: '/_stub',
      services: services.map((s) => ({ slug: s.slug, title: s.title, baseUrl: s.basePath })),
      broken,
    });
  });
  // Outside every service: still JSON, never Express's HTML page.
  const notFound = (req: Request, res: Response) => {
    const { body } = platformError({ kind: 'not_found', status: 404, message: `No route ${req.method} ${req.path}` });
    res.status(404).json({ ...(body as object), services: services.map((s) => s.basePath) });
  };
  const failed = (error: unknown, req: Request, res: Response) => {
    console.error(`${req.method} ${req.originalUrl}:`, error);
    if (res.headersSent) return void res.end();
    const status = (error as { status?: number }).status;
    const refused = status !== undefined && status >= 400 && status < 500;
    sendError(res, answerIn(families, req.originalUrl, refused ? { kind: 'validation', status, message: 'Bad request' } : { kind: 'internal', status: 500, message: 'Internal error' }));
  };
  app.use(notFound);
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => failed(error, req, res));

  // A running service's requests go to it straight from the server; the rest (a service loading or
  // broken, the docs, the controls, discovery under the issuer) through the app's layers.
  const passedOn = (req: Request, res: Response, error?: unknown) => (error ? failed(error, req, res) : notFound(req, res));
  // What a request changed is written once it is answered (batched, within a second): one listener
  // per service, made once, so a request allocates nothing for it.
  const touchers = new Map<string, () => void>();
  const toucher = (slug: string) => touchers.get(slug) ?? touchers.set(slug, () => keeper.touched(slug)).get(slug)!;
  const keeping = keeper.folder !== undefined;
  const server = createExpressServer(app, {}, (req, res) => {
    for (const [basePath, slug] of mountedAt) {
      if (!isUnder(req.url, basePath)) continue;
      if (keeping) res.on('close', toucher(slug));
      const slot = slots.get(slug);
      if (slot && 'instance' in slot) return runMounted(basePath, slot.instance.router, req, res, passedOn);
      break;
    }
    app(req, res);
  });
  // Requests Node refuses before Express sees them, in the error body of the service their target names.
  answerClientErrors(server, families);
  server.on('upgrade', (req, socket, head) => {
    const dispatch = () => {
      const match = instances.find(({ slug }) => {
        const basePath = services.find((s) => s.slug === slug)!.basePath;
        return (req.url ?? '').startsWith(`${basePath}/`) || req.url === basePath;
      });
      if (!match?.instance.upgrade?.(req, socket, head)) socket.destroy();
    };
    const slug = lazySlugs.find((s) => req.url === `/${s}` || (req.url ?? '').startsWith(`/${s}/`));
    if (slug) void load(slug).then(dispatch);
    else dispatch();
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
  } catch (error) {
    await keeper.close();
    throw error;
  }
  // The rest load in the background once the first requests had their turn.
  if (lazy) setTimeout(() => void lazySlugs.reduce((previous, slug) => previous.then(() => load(slug)), Promise.resolve()).then(allLoaded), 250).unref();
  else allLoaded();
  const settle = () => Promise.allSettled([...slots.values()].flatMap((slot) => ('loading' in slot ? [slot.loading] : [])));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    services,
    broken,
    clock,
    instances,
    stateDir: keeper.folder,
    replace: async (service) => {
      const previous = instances.find((i) => i.slug === service.slug)?.instance;
      await start(service);
      if (previous && instances.find((i) => i.slug === service.slug)?.instance !== previous) await previous.close?.();
    },
    markBroken: async (b) => {
      const previous = instances.findIndex((i) => i.slug === b.slug);
      const [removed] = previous >= 0 ? instances.splice(previous, 1) : [];
      if (removed) {
        keeper.retire(b.slug, removed.instance);
        services.splice(services.findIndex((s) => s.slug === b.slug), 1);
        await removed.instance.close?.();
      }
      setBroken(b);
    },
    ready,
    close: async () => {
      await settle();
      for (const { instance } of instances) await instance.close?.();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await keeper.close();
    },
  };
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
