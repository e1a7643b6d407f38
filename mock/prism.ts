/**
 * One Prism process per service, serving a copy of the service's bundle at its root.
 *
 * Prism serves an example as the body, and cannot write an object as `text/*`: an event stream's
 * examples are frames (objects, like its schema), so Prism gets a copy of the bundle whose stream
 * examples are the raw wire text (the media type's `x-wire-example`, else its frames formatted), and
 * whose stream schemas say so (Prism would otherwise flag its own answer in `sl-violations`).
 * Prism answers that text as one body; the gateway writes it on frame by frame (mock/streams.ts).
 * (One more difference, for a Prism bug: see the end of `prismDocument`.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mountPathOf, deref, HTTP_METHODS, type JsonNode } from '../scripts/lib/operations.js';
import { eventStreamText } from '../server-stubs/lib/contract-answers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const prismCli = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');

/** Where the bundles are unless told: the repository's generated/. */
export const defaultBundlesDir = path.join(root, 'generated');

/**
 * Services with a bundle: `<dir>/<slug>/openapi.json`. A bundle that cannot be read or parsed is
 * still listed (at `/<slug>`), with the problem, so it is reported rather than stopping the rest.
 */
export function bundledServices(dir = defaultBundlesDir): Array<{ slug: string; bundle: string; basePath: string; problem?: string }> {
  return readdirSync(dir)
    .filter((slug) => existsSync(path.join(dir, slug, 'openapi.json')))
    .sort()
    .map((slug) => {
      const bundle = path.join(dir, slug, 'openapi.json');
      try {
        return { slug, bundle, basePath: mountPathOf(slug, JSON.parse(readFileSync(bundle, 'utf8'))) };
      } catch (error) {
        return { slug, bundle, basePath: `/${slug}`, problem: `${bundle} is not a JSON document: ${(error as Error).message}` };
      }
    });
}

/**
 * The bundle as Prism should serve it: every `text/event-stream` media type's examples replaced by
 * one example, the wire text (Prism would answer 500 for a stream it has no text for). `undefined` when the bundle has no stream to rewrite.
 */
export function prismDocument(document: JsonNode): JsonNode | undefined {
  const copy = structuredClone(document);
  let changed = false;
  const walk = (value: unknown) => {
    if (!value || typeof value !== 'object') return;
    const node = value as JsonNode;
    const stream = !Array.isArray(node) ? node.content?.['text/event-stream'] : undefined;
    if (stream) {
      // Its frames as the stubs write them; without examples, one frame sampled from the schema.
      const wire = eventStreamText(copy, stream, deref(copy, stream.schema));
      delete stream.example;
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
  // Prism (5.14) dies on some requests its parameter readers trip on, taking the whole service down:
  // one without an optional header whose schema is an array or an object (its simple-style reader
  // splits the missing value), one with an object in a path segment, any to an operation with a
  // space- or pipe-delimited parameter that is no array. Its copy reads such parameters as text (and Prism is started again should another
  // kill it, mock/server.ts); the front still checks that a required one is sent.
  const parameters = [...Object.values<JsonNode>(copy.paths ?? {}), ...Object.values<JsonNode>(copy.webhooks ?? {})].flatMap((item) => [
    ...(item?.parameters ?? []),
    ...HTTP_METHODS.flatMap((method) => item?.[method]?.parameters ?? []),
  ]);
  for (const parameter of [...parameters, ...Object.values<JsonNode>(copy.components?.parameters ?? {})]) {
    const p = deref(copy, parameter);
    const type = deref(copy, p?.schema)?.type;
    const structured = type === 'array' || type === 'object';
    if (p?.in === 'path' && (structured || (p.style !== undefined && p.style !== 'simple'))) {
      // Its path readers fail on these even when present (an object, a label or matrix segment):
      // a simple-style value of any type to Prism (which reads `a,b` as a list even for a string).
      p.schema = {};
      delete p.style;
      delete p.explode;
      changed = true;
    } else if (structured && p?.in === 'header' && !p.required) {
      p.schema = { type: 'string' };
      changed = true;
    }
    if ((p?.style === 'spaceDelimited' || p?.style === 'pipeDelimited') && type !== 'array') {
      p.style = 'form';
      p.schema = { type: 'string' };
      changed = true;
    }
  }
  // The same reader serves form and multipart bodies whose `encoding` gives a property such a style.
  for (const item of [...Object.values<JsonNode>(copy.paths ?? {}), ...Object.values<JsonNode>(copy.webhooks ?? {})]) {
    for (const method of HTTP_METHODS) {
      const body = deref(copy, item?.[method]?.requestBody);
      for (const media of Object.values<JsonNode>(body?.content ?? {})) {
        const properties: JsonNode = deref(copy, media?.schema)?.properties ?? {};
        for (const [name, encoding] of Object.entries<JsonNode>(media?.encoding ?? {})) {
          const delimited = encoding?.style === 'spaceDelimited' || encoding?.style === 'pipeDelimited';
          if (delimited && deref(copy, properties[name])?.type !== 'array') {
            delete media.encoding[name];
            changed = true;
          }
        }
      }
    }
  }
  return changed ? copy : undefined;
}

export interface PreparedBundle {
  /** the bundle as published: what the front checks requests and answers against */
  document: JsonNode;
  /** what Prism serves (stream examples as wire text) */
  served: JsonNode;
  /** the file Prism reads */
  file: string;
}

/** Reads a service's bundle and writes Prism's copy into `dir` where it differs. */
export function prepareBundle(slug: string, bundle: string, dir: string): PreparedBundle {
  const document = JSON.parse(readFileSync(bundle, 'utf8'));
  const rewritten = prismDocument(document);
  if (!rewritten) return { document, served: document, file: bundle };
  const file = path.join(dir, `${slug}.openapi.json`);
  writeFileSync(file, JSON.stringify(rewritten, null, 2));
  return { document, served: rewritten, file };
}

export async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Every Prism this process started and that still runs. */
const running = new Set<ChildProcess>();
// However this process ends (an uncaught error included), its Prisms go with it rather than keep
// their ports; one listener for all of them, however many services a mock serves.
process.once('exit', () => {
  for (const child of running) child.kill();
});

/**
 * Prism on 127.0.0.1:port, resolved once it answers. Its CORS headers are off: the front answers
 * browsers as the stubs do, and Prism's `*` would overwrite the origin the front lets in.
 */
export function startPrism(file: string, port: number, slug: string, onExit?: (error: Error) => void): Promise<ChildProcess> {
  let started = false;
  const child = spawn(process.execPath, [prismCli, 'mock', file, '-p', String(port), '-h', '127.0.0.1', '-v', 'warn', '--cors', 'false'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`prism (${slug}) did not start in 60 s:\n${output}`));
    }, 60_000);
    const ready = async () => {
      // Prism logs at `warn` say nothing when ready: poll its port instead.
      for (;;) {
        if (child.exitCode !== null) return;
        try {
          await fetch(`http://127.0.0.1:${port}/__ready`);
          clearTimeout(timer);
          started = true;
          resolve(child);
          return;
        } catch {
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    // Kept for the error of a failed start; a long-running Prism's log must not grow without end.
    const keep = (d: Buffer) => (output = (output + d).slice(-20_000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const error = new Error(`prism (${slug}) exited with ${code ?? signal}:\n${output}`);
      // After a good start, an exit is news for the log (a stop asked for ends with a signal).
      if (started && signal === null) onExit?.(error);
      reject(error);
    });
    ready().catch(reject);
  });
}

/** Stops a Prism process and waits for it to be gone, so a closed mock leaves no process behind. */
export async function stopPrism(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill();
  await gone;
}
