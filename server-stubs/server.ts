/**
 * `npm start`: every service's stub on one port (PORT, default 4000) at its base path, and the
 * docs at /docs. Services are found as server-stubs/<slug>/app.ts, so a new one slots in by adding
 * its folder.
 */
import express from 'express';
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { StubInstance, StubService } from './lib/service.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

export async function discoverServices(): Promise<StubService[]> {
  const slugs = readdirSync(here, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'lib' && existsSync(path.join(here, d.name, 'app.ts')))
    .map((d) => d.name)
    .sort();
  const services: StubService[] = [];
  for (const slug of slugs) {
    const module = (await import(pathToFileURL(path.join(here, slug, 'app.ts')).href)) as { default?: StubService };
    if (!module.default?.create) throw new Error(`server-stubs/${slug}/app.ts has no default StubService export`);
    services.push(module.default);
  }
  return services;
}

export interface PlatformServer {
  server: http.Server;
  port: number;
  services: StubService[];
  close(): Promise<void>;
}

export async function startPlatformServer(port = 4000, host = '0.0.0.0'): Promise<PlatformServer> {
  const services = await discoverServices();
  const app = express();
  const instances: Array<{ service: StubService; instance: StubInstance }> = [];
  for (const service of services) {
    const instance = await service.create();
    instances.push({ service, instance });
    app.use(service.basePath, instance.router);
  }
  const docsDir = path.join(root, 'generated', 'docs');
  const redoc = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  app.get('/docs/redoc.standalone.js', (_req, res) => res.sendFile(redoc));
  app.use('/docs', express.static(docsDir, { extensions: ['html'] }));
  app.get('/', (_req, res) => {
    res.json({
      docs: '/docs/',
      services: services.map((s) => ({ slug: s.slug, title: s.title, baseUrl: s.basePath })),
    });
  });

  const server = http.createServer(app);
  server.on('upgrade', (req, socket, head) => {
    const match = instances.find(({ service }) => (req.url ?? '').startsWith(`${service.basePath}/`) || req.url === service.basePath);
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
    close: async () => {
      for (const { instance } of instances) await instance.close?.();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function banner(running: PlatformServer): string {
  const origin = `http://localhost:${running.port}`;
  const lines = [`Stubs of ${running.services.length} services on ${origin}`, `  docs        ${origin}/docs/`];
  for (const s of running.services) {
    lines.push(`  ${s.slug.padEnd(11)} ${origin}${s.basePath}   ${s.title}`);
    for (const c of s.credentials) lines.push(`  ${''.padEnd(11)}   ${c.label}: ${c.value}`);
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const running = await startPlatformServer(Number(process.env.PORT ?? 4000));
  console.log(banner(running));
  const stop = () => void running.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
