/**
 * A Prism mock of every service behind one port (`npm run mock`, scripts/mock.ts), at the same base
 * paths as the stubs, so a client switches between mock and stubs by the port alone.
 *
 * The parts: prism.ts (Prism's libraries in this process, one instance per service), gateway.ts (Prism's request violations into
 * the service's error body), front.ts (what a client of the stubs meets before any handler: CORS,
 * 404/405, the seeded credentials, `Prefer`, contract validation), credentials.ts, prefer.ts, errors.ts,
 * streams.ts and headers.ts (the stubs' streams and header values where Prism answers otherwise),
 * prism-overrides.ts (Prism's `?__code=`/`?__example=` read as `Prefer`), prism-problems.ts (Prism's own
 * refusals in the service's error body).
 */
import type { AddressInfo } from 'node:net';
import type { Router } from 'express';
import { corsOriginsFromEnv, type CorsOrigins } from '../server-stubs/lib/browser.js';
import { CoverageBook } from '../server-stubs/lib/coverage.js';
import { createExpressServer } from '../server-stubs/lib/http-server.js';
import { answerClientErrors, errorFamilies } from '../server-stubs/lib/transport-errors.js';
import { loadStubService } from './credentials.js';
import { documentErrors, foldedErrors } from './errors.js';
import { createFront, serviceRouter, unavailableRouter } from './front.js';
import { startPrismGateway, type GatewayTarget } from './gateway.js';
import { bundledServices, createPrismService, defaultBundlesDir, prismDocument } from './prism.js';
import { bundleContract, type BundleContract } from '../server-stubs/lib/bundle-contract.js';

export { bundledServices, prismDocument } from './prism.js';

export interface MockedService {
  slug: string;
  basePath: string;
  /** when the service's current document began to be served (a reload serves a new one) */
  servedSince: Date;
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
  /** Serves the service's current bundle (`npm run dev`); should it fail, the last good one goes on serving. */
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

export async function startMockServer(port = 4010, host = '0.0.0.0', options: MockOptions = {}): Promise<MockServer> {
  const log = options.log ?? (() => {});
  // Prism's remarks on its own answers are for the log alone.
  const checkAnswers = options.log !== undefined;
  const corsOrigins = options.corsOrigins ?? corsOriginsFromEnv();
  const bundlesDir = options.bundlesDir ?? defaultBundlesDir;
  const targets = new Map<string, GatewayTarget>();
  const routers = new Map<string, { basePath: string; router: Router }>();
  const services: MockedService[] = [];
  const failed: FailedService[] = [];
  // Each service's bundle as last served, held here while the mock serves it (bundle-contract.ts).
  const bundles = new Map<string, BundleContract>();
  const gateway = await startPrismGateway(targets, log);
  // What the mock served, for `GET /_stub/coverage`; a restarted service keeps its count.
  const coverage = new CoverageBook();

  /** Makes the service's Prism from its current bundle and routes the front and the gateway to it. */
  const serve = async (slug: string, bundle: string): Promise<MockedService> => {
    // The contract `npm run contract` in this process takes for the same text: their schemas compile once.
    const read = bundleContract(bundle, slug);
    bundles.set(slug, read);
    const { view, contract } = read;
    for (const note of view.notes) log(`[mock ${slug}] ${note}`);
    const served = prismDocument(read.parsed) ?? read.parsed;
    const stub = await loadStubService(slug);
    const errors = foldedErrors(contract, stub?.errors ?? documentErrors(contract));
    // A document without operations (3.1 webhooks only) has nothing to answer; Prism refuses it.
    const prism = contract.operations.size > 0 ? await createPrismService(served, { checkAnswers }) : undefined;
    const router = serviceRouter(
      { slug, basePath: contract.basePath, contract, served, credentials: stub?.credentials, errors, upstream: `${gateway.url}/${slug}`, coverage: coverage.service(contract) },
      { corsOrigins, log },
    );
    if (prism) targets.set(slug, { prism, contract, errors });
    else targets.delete(slug);
    routers.set(slug, { basePath: contract.basePath, router });
    return { slug, basePath: contract.basePath, servedSince: new Date() };
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

  // One at a time: each is CPU alone (reading and dereferencing a document), so nothing is gained
  // by interleaving them, and a start's log reads in order.
  for (const service of bundledServices(bundlesDir)) await serveOrReport(service);
  services.sort((a, b) => a.slug.localeCompare(b.slug));

  // What Node refuses itself is answered in the body of the service the request was meant for, as on the stubs.
  const families = errorFamilies(() => [...targets.values()].map((t) => ({ basePath: t.contract.basePath, errors: t.errors, contract: t.contract })));
  const front = answerClientErrors(createExpressServer(createFront(routers, coverage)), families);
  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(port, host, resolve);
  }).catch(async (error: unknown) => {
    await gateway.close();
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
      if (at === -1) services.push(next);
      else services[at] = next;
      const wasFailed = failed.findIndex((f) => f.slug === slug);
      if (wasFailed !== -1) failed.splice(wasFailed, 1);
    },
    close: async () => {
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await gateway.close();
    },
  };
}
