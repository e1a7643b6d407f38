/**
 * `npm start`: every service's stub on one port (PORT, default 4000) at its base path, the
 * development controls at /_stub, and the docs at /docs. Services are found as
 * server-stubs/<slug>/app.ts, so a new one slots in by adding its folder; one that fails to load is
 * reported and answers 503, and the others are served.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { credentialHeaders } from './lib/auth.js';
import { corsOriginsFromEnv } from './lib/browser.js';
import { stubClockFromEnv, type StubClock } from './lib/clock.js';
import { loadContract } from './lib/contract.js';
import { createStubControls } from './lib/controls.js';
import type { StubInstance, StubService } from './lib/service.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

/** A service folder that could not be loaded or started, and why. */
export interface BrokenService {
  slug: string;
  basePath: string;
  error: string;
}

export async function discoverServices(): Promise<{ services: StubService[]; broken: BrokenService[] }> {
  const slugs = readdirSync(here, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'lib' && existsSync(path.join(here, d.name, 'app.ts')))
    .map((d) => d.name)
    .sort();
  const services: StubService[] = [];
  const broken: BrokenService[] = [];
  for (const slug of slugs) {
    try {
      const module = (await import(pathToFileURL(path.join(here, slug, 'app.ts')).href)) as { default?: StubService };
      if (!module.default?.create) throw new Error(`server-stubs/${slug}/app.ts has no default StubService export`);
      services.push(module.default);
    } catch (error) {
      broken.push({ slug, basePath: `/${slug}`, error: (error as Error).message });
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
  close(): Promise<void>;
}

export interface PlatformOptions {
  clock?: StubClock;
  /** the services to serve instead of those found in server-stubs/ (tests) */
  services?: StubService[];
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

export async function startPlatformServer(port = 4000, host = '0.0.0.0', options: PlatformOptions = {}): Promise<PlatformServer> {
  const discovered = options.services ? { services: options.services, broken: [] } : await discoverServices();
  const broken = [...discovered.broken];
  const clock = options.clock ?? stubClockFromEnv();
  const corsOrigins = corsOriginsFromEnv();
  const app = express();
  app.disable('x-powered-by');
  const services: StubService[] = [];
  const instances: Array<{ slug: string; instance: StubInstance }> = [];
  app.use(wellKnownUnderIssuer(discovered.services.map((s) => s.basePath)));
  for (const service of discovered.services) {
    try {
      const instance = await service.create({ clock, corsOrigins });
      instances.push({ slug: service.slug, instance });
      services.push(service);
      app.use(service.basePath, instance.router);
    } catch (error) {
      broken.push({ slug: service.slug, basePath: service.basePath, error: (error as Error).message });
    }
  }
  for (const b of broken) {
    app.use(b.basePath, (_req, res) => {
      res.status(503).json({ error: `The ${b.slug} stub failed to start: ${b.error}` });
    });
  }
  app.use('/_stub', createStubControls(clock, () => instances).router);

  // The docs portal, rendered from the bundles with these stubs' seeded credentials in its console.
  const { createDocsRouter } = await import('../scripts/steps/docs/serve.js');
  app.use('/docs', createDocsRouter({ generatedDir: path.join(root, 'generated'), services }));
  app.get('/', (_req, res) => {
    res.json({
      docs: '/docs/',
      controls: '/_stub',
      services: services.map((s) => ({ slug: s.slug, title: s.title, baseUrl: s.basePath })),
      broken,
    });
  });
  // Outside every service: still JSON, never Express's HTML page.
  app.use((req, res) => {
    res.status(404).json({ error: `No route ${req.method} ${req.path}`, services: services.map((s) => s.basePath) });
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    console.error(`${req.method} ${req.originalUrl}:`, error);
    if (res.headersSent) return void res.end();
    const status = (error as { status?: number }).status;
    res.status(status && status >= 400 && status < 500 ? status : 500).json({ error: status && status < 500 ? 'Bad request' : 'Internal error' });
  });

  const server = http.createServer(app);
  // Requests Node refuses before Express sees them (headers or URL over 16 KB, broken HTTP) still get JSON.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return void socket.destroy();
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = JSON.stringify({ error: status === 431 ? 'Request headers or URL too large (16 KB at most)' : 'Malformed HTTP request' });
    socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
  server.on('upgrade', (req, socket, head) => {
    const match = instances.find(({ slug }) => {
      const basePath = services.find((s) => s.slug === slug)!.basePath;
      return (req.url ?? '').startsWith(`${basePath}/`) || req.url === basePath;
    });
    if (!match?.instance.upgrade?.(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    services,
    broken,
    clock,
    instances,
    close: async () => {
      for (const { instance } of instances) await instance.close?.();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function banner(running: PlatformServer): string {
  const origin = `http://localhost:${running.port}`;
  const lines = [
    `Stubs of ${running.services.length} services on ${origin}`,
    `  docs        ${origin}/docs/`,
    `  controls    ${origin}/_stub   clock ${running.clock.manual ? 'manual (STUB_CLOCK=manual)' : 'system'}: GET/POST /_stub/clock, POST /_stub/reset`,
  ];
  for (const s of running.services) {
    const unimplemented = running.instances.find((i) => i.slug === s.slug)?.instance.unimplemented ?? [];
    lines.push(`  ${s.slug.padEnd(11)} ${origin}${s.basePath}   ${s.title}${unimplemented.length ? ` (${unimplemented.length} operations answer 501)` : ''}`);
    const document = s.credentials.length > 0 ? loadContract(s.slug).document : undefined;
    for (const c of s.credentials) {
      const headers = Object.entries(credentialHeaders(document!, c)).map(([name, value]) => `${name}: ${value}`);
      lines.push(`  ${''.padEnd(11)}   ${c.label}: ${headers.join('; ')}`);
    }
  }
  for (const b of running.broken) lines.push(`  ${b.slug.padEnd(11)} FAILED TO START (answers 503): ${b.error}`);
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const running = await startPlatformServer(Number(process.env.PORT ?? 4000));
  console.log(banner(running));
  const stop = () => void running.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
