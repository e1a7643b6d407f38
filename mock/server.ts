/**
 * `npm run mock`: a Prism mock of every service behind one port (PORT, default 4010), at the same
 * base paths as the stubs, so a client switches between mock and stubs by the port alone.
 * Prism serves a document at its root and ignores the `servers` path, so this front strips the base
 * path and forwards to one Prism process per service.
 *
 * Prism serves an example as the body, and cannot write an object as `text/*`: an event stream's
 * examples are frames (objects, like its schema), so Prism gets a copy of the bundle whose stream
 * examples are the raw wire text (the media type's `x-wire-example`, else its frames formatted), and
 * whose stream schemas say so (Prism would otherwise flag its own answer in `sl-violations`).
 * The mock does not stream: it answers that text as one body.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { basePathOf, deref } from '../scripts/lib/operations.js';
import { formatFrame, type SseFrame } from '../server-stubs/lib/sse.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const prismCli = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');

export interface MockedService {
  slug: string;
  basePath: string;
  port: number;
  process: ChildProcess;
}

/** Services with a bundle: generated/<slug>/openapi.json. */
export function bundledServices(): Array<{ slug: string; bundle: string; basePath: string }> {
  const dir = path.join(root, 'generated');
  return readdirSync(dir)
    .filter((slug) => existsSync(path.join(dir, slug, 'openapi.json')))
    .sort()
    .map((slug) => {
      const bundle = path.join(dir, slug, 'openapi.json');
      return { slug, bundle, basePath: basePathOf(JSON.parse(readFileSync(bundle, 'utf8'))) };
    });
}

/**
 * The bundle as Prism should serve it: every `text/event-stream` media type's examples replaced by
 * one example, the wire text. `undefined` when the bundle has no stream to rewrite.
 */
export function prismDocument(document: Record<string, any>): Record<string, any> | undefined {
  const copy = structuredClone(document);
  let changed = false;
  const walk = (node: any) => {
    if (!node || typeof node !== 'object') return;
    const stream = !Array.isArray(node) ? node.content?.['text/event-stream'] : undefined;
    if (stream && (stream['x-wire-example'] !== undefined || stream.examples)) {
      const frames = Object.values<any>(stream.examples ?? {}).map((e) => deref(copy, e)?.value as SseFrame);
      const wire = typeof stream['x-wire-example'] === 'string' ? stream['x-wire-example'] : frames.map(formatFrame).join('');
      stream.examples = { wire: { summary: 'The raw wire text', value: wire } };
      // Prism checks what it answers against the schema: here a text, not one frame.
      stream.schema = { type: 'string' };
      changed = true;
    }
    for (const value of Object.values(node)) walk(value);
  };
  walk(copy.paths);
  walk(copy.webhooks);
  walk(copy.components?.responses);
  return changed ? copy : undefined;
}

async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function startPrism(bundle: string, port: number, slug: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [prismCli, 'mock', bundle, '-p', String(port), '-h', '127.0.0.1', '-v', 'warn'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`prism (${slug}) did not start in 60 s:\n${output}`)), 60_000);
    const ready = async () => {
      // Prism logs at `warn` say nothing when ready: poll its port instead.
      for (;;) {
        if (child.exitCode !== null) return;
        try {
          await fetch(`http://127.0.0.1:${port}/__ready`);
          clearTimeout(timer);
          resolve(child);
          return;
        } catch {
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`prism (${slug}) exited with ${code}:\n${output}`));
    });
    void ready();
  });
}

export interface MockServer {
  port: number;
  services: MockedService[];
  close(): Promise<void>;
}

export async function startMockServer(port = 4010, host = '0.0.0.0'): Promise<MockServer> {
  const prepared = mkdtempSync(path.join(os.tmpdir(), 'contracts-mock-'));
  const services: MockedService[] = await Promise.all(
    bundledServices().map(async (s) => {
      const internal = await freePort();
      const rewritten = prismDocument(JSON.parse(readFileSync(s.bundle, 'utf8')));
      let bundle = s.bundle;
      if (rewritten) {
        bundle = path.join(prepared, `${s.slug}.openapi.json`);
        writeFileSync(bundle, JSON.stringify(rewritten, null, 2));
      }
      return { slug: s.slug, basePath: s.basePath, port: internal, process: await startPrism(bundle, internal, s.slug) };
    }),
  ).catch((error: unknown) => {
    rmSync(prepared, { recursive: true, force: true });
    throw error;
  });
  const front = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const target = services.find((s) => url === s.basePath || url.startsWith(`${s.basePath}/`) || url.startsWith(`${s.basePath}?`));
    if (!target) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `No mocked service at ${url}`, services: services.map((s) => s.basePath) }));
      return;
    }
    const forwarded = url.slice(target.basePath.length) || '/';
    // Prism dies on a path that is not valid percent-encoding (`/projects/%E0%A4%A`, found by
    // `npm run contract -- --stateless`): no template matches such a path, so it is a 404 here.
    try {
      decodeURIComponent(forwarded.split('?')[0]!);
    } catch {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `No operation at ${url}: the path is not valid percent-encoding` }));
      return;
    }
    const upstream = http.request(
      { host: '127.0.0.1', port: target.port, method: req.method, path: forwarded.startsWith('/') ? forwarded : `/${forwarded}`, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `Prism for ${target.slug} is not answering: ${error.message}` }));
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(port, host, resolve);
  });
  return {
    port: (front.address() as AddressInfo).port,
    services,
    close: async () => {
      for (const s of services) s.process.kill();
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      rmSync(prepared, { recursive: true, force: true });
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const mock = await startMockServer(Number(process.env.PORT ?? 4010));
  console.log(`Prism mocks of ${mock.services.length} services on http://localhost:${mock.port}`);
  for (const s of mock.services) console.log(`  ${s.slug.padEnd(11)} http://localhost:${mock.port}${s.basePath}`);
  const stop = () => void mock.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
