/**
 * `npm run mock`: a Prism mock of every service behind one port (PORT, default 4010), at the same
 * base paths as the stubs, so a client switches between mock and stubs by the port alone.
 *
 * The parts: prism.ts (one Prism process per service), gateway.ts (Prism's request violations into
 * the service's error body), front.ts (what a client of the stubs meets before any handler: CORS,
 * 404/405, the seeded credentials, `Prefer`, contract validation), credentials.ts, prefer.ts, errors.ts,
 * streams.ts and headers.ts (the stubs' streams and header values where Prism answers otherwise),
 * prism-overrides.ts (Prism's `?__code=`/`?__example=` read as `Prefer`), prism-problems.ts (Prism's own
 * refusals in the service's error body).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Router } from 'express';
import { corsOriginsFromEnv, type CorsOrigins } from '../server-stubs/lib/browser.js';
import { contractOf } from '../server-stubs/lib/contract.js';
import { createExpressServer } from '../server-stubs/lib/http-server.js';
import { answerClientErrors, errorFamilies } from '../server-stubs/lib/transport-errors.js';
import { loadStubService } from './credentials.js';
import { documentErrors, foldedErrors } from './errors.js';
import { createFront, serviceRouter, unavailableRouter } from './front.js';
import { startPrismGateway, type GatewayTarget } from './gateway.js';
import { bundledServices, defaultBundlesDir, freePort, prepareBundle, startPrism, stopPrism } from './prism.js';
import { schemaView } from '../server-stubs/lib/compilable-document.js';
import { stopOnSignals } from '../scripts/lib/shutdown.js';

export { bundledServices, prismDocument } from './prism.js';

export interface MockedService {
  slug: string;
  basePath: string;
  /** the service's Prism, on 127.0.0.1 (0 for a document without operations: nothing to mock) */
  port: number;
  process?: ChildProcess;
}

/** A service whose mock could not start: its base path answers 503 naming `problem`. */
export interface FailedService {
  slug: string;
  basePath: string;
  problem: string;
}

export interface MockServer {
  port: number;
  services: MockedService[];
  failed: FailedService[];
  /** Serves the service's current bundle: a new Prism, then the old one stopped (`npm run dev`). */
  restart(slug: string): Promise<void>;
  close(): Promise<void>;
}

export interface MockOptions {
  /** request violations and Prism's remarks on its own answers; silent unless given */
  log?: (line: string) => void;
  /** origins browsers may call from (default: `STUB_CORS_ORIGINS`, else any), as for the stubs */
  corsOrigins?: CorsOrigins;
  /** the folder of `<slug>/openapi.json` bundles (default: the repository's generated/) */
  bundlesDir?: string;
}

/** How often a service's Prism is started again after dying while serving. */
const MAX_REVIVALS = 5;

/** How often a Prism start is tried when its port was taken between the probe and the bind. */
const PORT_ATTEMPTS = 3;

/**
 * Prisms started at once. Each start is a second or two of CPU; dozens at once on a small machine
 * starve each other past their start timeout, and then every service fails instead of none.
 */
const STARTING_AT_ONCE = Math.max(2, os.availableParallelism());

/** Runs `jobs` with at most `limit` running at a time. */
async function limited(jobs: Array<() => Promise<void>>, limit: number): Promise<void> {
  const queue = [...jobs];
  await Promise.all(Array.from({ length: Math.min(limit, queue.length) }, async () => {
    for (let job = queue.shift(); job; job = queue.shift()) await job();
  }));
}

export async function startMockServer(port = 4010, host = '0.0.0.0', options: MockOptions = {}): Promise<MockServer> {
  const log = options.log ?? (() => {});
  const corsOrigins = options.corsOrigins ?? corsOriginsFromEnv();
  const bundlesDir = options.bundlesDir ?? defaultBundlesDir;
  const prepared = mkdtempSync(path.join(os.tmpdir(), 'contracts-mock-'));
  const targets = new Map<string, GatewayTarget>();
  const routers = new Map<string, { basePath: string; router: Router }>();
  const services: MockedService[] = [];
  const failed: FailedService[] = [];
  const gateway = await startPrismGateway(targets, log);

  /** Starts the service's Prism on its current bundle and routes the front and the gateway to it. */
  const serve = async (slug: string, bundle: string): Promise<MockedService> => {
    const { document, served, file } = prepareBundle(slug, bundle, prepared);
    const view = schemaView(document);
    for (const note of view.notes) log(`[mock ${slug}] ${note}`);
    const contract = contractOf(slug, view.document);
    const stub = await loadStubService(slug);
    const errors = foldedErrors(contract, stub?.errors ?? documentErrors(contract));
    const router = serviceRouter(
      { slug, basePath: contract.basePath, contract, served, credentials: stub?.credentials, errors, upstream: `${gateway.url}/${slug}` },
      { corsOrigins, log },
    );
    const entry: MockedService = { slug, basePath: contract.basePath, port: 0 };
    // A document without operations (3.1 webhooks only) has nothing to answer; Prism refuses it.
    if (contract.operations.size > 0) {
      let revivals = 0;
      /** A Prism that died serving (a request it trips on) is started again, a few times at most. */
      const revive = (error: Error) => {
        log(`[mock ${slug}] ${error.message.slice(-1500)}`);
        if (closing || targets.get(slug)?.port !== entry.port) return;
        if (++revivals > MAX_REVIVALS) return log(`[mock ${slug}] Prism died ${revivals} times: not started again`);
        startPrismOnFreePort(file, slug, revive).then(
          (next) => {
            if (closing) return void stopPrism(next.process);
            Object.assign(entry, next);
            targets.set(slug, { port: next.port, contract, errors });
          },
          (failure: unknown) => closing || log(`[mock ${slug}] Prism could not be started again: ${(failure as Error).message.slice(-1500)}`),
        );
      };
      Object.assign(entry, await startPrismOnFreePort(file, slug, revive));
      targets.set(slug, { port: entry.port, contract, errors });
    }
    routers.set(slug, { basePath: contract.basePath, router });
    return entry;
  };

  /** One service's mock fails alone: its base path answers 503, the others serve (CONVENTIONS §4). */
  const serveOrReport = async (service: { slug: string; bundle: string; basePath: string; problem?: string }) => {
    try {
      if (service.problem) throw new Error(service.problem);
      services.push(await serve(service.slug, service.bundle));
    } catch (error) {
      const problem = (error as Error).message.split('\n')[0]!.slice(0, 500);
      log(`[mock ${service.slug}] not started: ${(error as Error).message}`);
      failed.push({ slug: service.slug, basePath: service.basePath, problem });
      routers.set(service.slug, { basePath: service.basePath, router: unavailableRouter(service.slug, problem) });
    }
  };

  let closing = false;
  const closeAll = async () => {
    closing = true;
    await Promise.all(services.flatMap((s) => (s.process ? [stopPrism(s.process)] : [])));
    await gateway.close();
    rmSync(prepared, { recursive: true, force: true });
  };

  try {
    await limited(bundledServices(bundlesDir).map((service) => () => serveOrReport(service)), STARTING_AT_ONCE);
  } catch (error) {
    await closeAll();
    throw error;
  }
  services.sort((a, b) => a.slug.localeCompare(b.slug));

  // What Node refuses itself is answered in the body of the service the request was meant for, as on the stubs.
  const families = errorFamilies(() => [...targets.values()].map((t) => ({ basePath: t.contract.basePath, errors: t.errors })));
  const front = answerClientErrors(createExpressServer(createFront(routers)), families);
  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(port, host, resolve);
  }).catch(async (error: unknown) => {
    await closeAll();
    throw error;
  });

  return {
    port: (front.address() as AddressInfo).port,
    services,
    failed,
    restart: async (slug) => {
      const bundle = bundledServices(bundlesDir).find((s) => s.slug === slug);
      if (!bundle) throw new Error(`no mocked service ${slug}`);
      if (bundle.problem) throw new Error(bundle.problem);
      // Should the new one fail, the old one (or the 503) goes on serving: the last good build.
      const next = await serve(slug, bundle.bundle);
      const at = services.findIndex((s) => s.slug === slug);
      const old = at === -1 ? undefined : services[at];
      if (at === -1) services.push(next);
      else services[at] = next;
      const wasFailed = failed.findIndex((f) => f.slug === slug);
      if (wasFailed !== -1) failed.splice(wasFailed, 1);
      if (old?.process) await stopPrism(old.process);
    },
    close: async () => {
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await closeAll();
    },
  };
}

/**
 * Prism needs a port number, so one is probed free and then handed over; another process may take
 * it in between, and then Prism exits with EADDRINUSE: that start is tried again on a new port.
 */
async function startPrismOnFreePort(file: string, slug: string, onExit: (error: Error) => void): Promise<{ port: number; process: ChildProcess }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return { port, process: await startPrism(file, port, slug, onExit) };
    } catch (error) {
      if (attempt >= PORT_ATTEMPTS || !/EADDRINUSE/.test((error as Error).message)) throw error;
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // Handlers first: a signal during start-up still stops the Prism processes already started.
  const starting = startMockServer(Number(process.env.PORT ?? 4010), undefined, { log: (line) => console.warn(line) });
  stopOnSignals(async () => (await starting).close());
  const mock = await starting;
  console.log(`Prism mocks of ${mock.services.length} services on http://localhost:${mock.port}`);
  for (const s of mock.services) console.log(`  ${s.slug.padEnd(13)} http://localhost:${mock.port}${s.basePath}`);
  for (const f of mock.failed) console.warn(`  ${f.slug.padEnd(13)} http://localhost:${mock.port}${f.basePath} answers 503: ${f.problem}`);
}
