/**
 * `npm run mock`: a Prism mock of every service behind one port (PORT, default 4010), at the same
 * base paths as the stubs, so a client switches between mock and stubs by the port alone.
 *
 * The parts: prism.ts (one Prism process per service), gateway.ts (Prism's request violations into
 * the service's error body), front.ts (what a client of the stubs meets before any handler: CORS,
 * 404/405, the seeded credentials, `Prefer`, contract validation), credentials.ts, prefer.ts, errors.ts.
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
import { loadStubService } from './credentials.js';
import { foldedErrors, plainErrors } from './errors.js';
import { createFront, serviceRouter } from './front.js';
import { startPrismGateway, type GatewayTarget } from './gateway.js';
import { bundledServices, freePort, prepareBundle, startPrism, stopPrism } from './prism.js';
import { stopOnSignals } from '../scripts/lib/shutdown.js';

export { bundledServices, prismDocument } from './prism.js';

export interface MockedService {
  slug: string;
  basePath: string;
  /** the service's Prism, on 127.0.0.1 */
  port: number;
  process: ChildProcess;
}

export interface MockServer {
  port: number;
  services: MockedService[];
  /** Serves the service's current bundle: a new Prism, then the old one stopped (`npm run dev`). */
  restart(slug: string): Promise<void>;
  close(): Promise<void>;
}

export interface MockOptions {
  /** request violations and Prism's remarks on its own answers; silent unless given */
  log?: (line: string) => void;
  /** origins browsers may call from (default: `STUB_CORS_ORIGINS`, else any), as for the stubs */
  corsOrigins?: CorsOrigins;
}

export async function startMockServer(port = 4010, host = '0.0.0.0', options: MockOptions = {}): Promise<MockServer> {
  const log = options.log ?? (() => {});
  const corsOrigins = options.corsOrigins ?? corsOriginsFromEnv();
  const prepared = mkdtempSync(path.join(os.tmpdir(), 'contracts-mock-'));
  const targets = new Map<string, GatewayTarget>();
  const routers = new Map<string, { basePath: string; router: Router }>();
  const services: MockedService[] = [];
  const gateway = await startPrismGateway(targets, log);

  /** Starts the service's Prism on its current bundle and routes the front and the gateway to it. */
  const serve = async (slug: string, bundle: string) => {
    const { document, served, file } = prepareBundle(slug, bundle, prepared);
    const contract = contractOf(slug, document);
    const stub = await loadStubService(slug);
    const errors = foldedErrors(contract, stub?.errors ?? plainErrors);
    const internal = await freePort();
    const child = await startPrism(file, internal, slug);
    targets.set(slug, { port: internal, contract, errors });
    const router = serviceRouter(
      { slug, basePath: contract.basePath, contract, served, credentials: stub?.credentials, errors, upstream: `${gateway.url}/${slug}` },
      { corsOrigins, log },
    );
    routers.set(slug, { basePath: contract.basePath, router });
    return { slug, basePath: contract.basePath, port: internal, process: child };
  };

  const closeAll = async () => {
    await Promise.all(services.map((s) => stopPrism(s.process)));
    await gateway.close();
    rmSync(prepared, { recursive: true, force: true });
  };

  const started = await Promise.allSettled(bundledServices().map((s) => serve(s.slug, s.bundle)));
  for (const result of started) if (result.status === 'fulfilled') services.push(result.value);
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await closeAll();
    throw failed.reason;
  }

  const front = createExpressServer(createFront(routers));
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
    restart: async (slug) => {
      const at = services.findIndex((s) => s.slug === slug);
      const bundle = bundledServices().find((s) => s.slug === slug);
      if (at === -1 || !bundle) throw new Error(`no mocked service ${slug}`);
      const old = services[at]!;
      services[at] = await serve(slug, bundle.bundle);
      await stopPrism(old.process);
    },
    close: async () => {
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await closeAll();
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // Handlers first: a signal during start-up still stops the Prism processes already started.
  const starting = startMockServer(Number(process.env.PORT ?? 4010), undefined, { log: (line) => console.warn(line) });
  stopOnSignals(async () => (await starting).close());
  const mock = await starting;
  console.log(`Prism mocks of ${mock.services.length} services on http://localhost:${mock.port}`);
  for (const s of mock.services) console.log(`  ${s.slug.padEnd(13)} http://localhost:${mock.port}${s.basePath}`);
}
