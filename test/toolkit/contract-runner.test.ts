/**
 * `npm run contract` (scripts/contract.ts, scripts/lib/contract-runner.ts) run in-process against
 * the stubs, the Prism mock (stateless), and a seo server broken on purpose: it passes the first
 * two, and names each break of the third. All traffic stays on loopback.
 */
import express from 'express';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startMockServer, type MockServer } from '../../mock/server.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import seoService from '../../server-stubs/seo/app.js';
import { startPlatformServer, type PlatformServer } from '../../server-stubs/server.js';
import { runContract } from '../../scripts/contract.js';
import { junitXml } from '../../scripts/lib/contract-junit.js';
import { seoScenario } from '../../scripts/lib/scenarios/seo.js';

/** what the seo scenario checks: each call, and each refusal */
const seoChecks = Object.keys(seoScenario.calls).length + (seoScenario.refusals?.length ?? 0);

/**
 * A strict little XML reader, enough for JUnit: well-formed nesting, quoted attributes, only the
 * five named entities, character references and CDATA sections. Returns the elements as [name, attributes, depth].
 */
function parseXml(xml: string): Array<{ name: string; attrs: Record<string, string>; depth: number }> {
  // A CDATA section (failure details, system-out) is text: only where it stands is checked.
  const body = xml.replace(/^<\?xml [^?]*\?>\s*/, '').replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, '');
  const token = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.:-]*="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  const stack: string[] = [];
  const elements: Array<{ name: string; attrs: Record<string, string>; depth: number }> = [];
  const entities = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < body.length && (m = token.exec(body))) {
    at = token.lastIndex;
    if (m[5] !== undefined) {
      if (entities.test(m[5])) throw new Error(`bad entity in text: ${m[5].slice(0, 40)}`);
      if (stack.length === 0 && m[5].trim()) throw new Error('text outside the root');
      continue;
    }
    const [, close, name, rawAttrs, selfClosing] = m;
    if (close) {
      if (stack.pop() !== name) throw new Error(`</${name}> closes nothing open`);
      continue;
    }
    if (stack.length === 0 && elements.length > 0) throw new Error('a second root element');
    const attrs: Record<string, string> = {};
    for (const [, k, v] of rawAttrs!.matchAll(/([A-Za-z_][\w.:-]*)="([^"]*)"/g)) {
      if (entities.test(v!)) throw new Error(`bad entity in attribute ${k}`);
      attrs[k!] = v!;
    }
    elements.push({ name: name!, attrs, depth: stack.length });
    if (!selfClosing) stack.push(name!);
  }
  if (at !== body.length) throw new Error(`not XML at offset ${at}: ${body.slice(at, at + 40)}`);
  if (stack.length) throw new Error(`unclosed: ${stack.join(' > ')}`);
  return elements;
}

let stubs: PlatformServer;
let mock: MockServer;
let broken: http.Server;
let brokenPort: number;
let forgetful: http.Server;
let forgetfulPort: number;

/** The stubs behind a server that answers some routes itself (`breaks`) and forwards the rest. */
async function brokenSeo(breaks: (app: express.Express) => void): Promise<{ server: http.Server; port: number }> {
  const app = express();
  breaks(app);
  app.use((req, res) => {
    const upstream = http.request({ host: '127.0.0.1', port: stubs.port, method: req.method, path: req.originalUrl, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}
const tmp = mkdtempSync(path.join(os.tmpdir(), 'contract-runner-'));

beforeAll(async () => {
  // Only seo is run: the stubs serve it alone, and the mock mocks its bundle alone.
  const bundles = path.join(tmp, 'bundles');
  mkdirSync(path.join(bundles, 'seo'), { recursive: true });
  copyFileSync(path.join(defaultRoot, 'generated', 'seo', 'openapi.json'), path.join(bundles, 'seo', 'openapi.json'));
  [stubs, mock] = await Promise.all([startPlatformServer(0, '127.0.0.1', { services: [seoService] }), startMockServer(0, '127.0.0.1', { bundlesDir: bundles })]);

  // The seo stub, broken on three routes; everything else is forwarded to the real stub.
  ({ server: broken, port: brokenPort } = await brokenSeo((app) => {
    app.get('/seo/projects', (_req, res) => void res.status(418).json({ projects: [] }));
    app.get('/seo/projects/:projectId', (req, res, next) => {
      if (!req.headers.authorization) return next();
      res.status(200).json({ project: { id: req.params.projectId, name: 'Example storefront' } }); // `domain` is required
    });
    app.post('/seo/projects', (_req, res) => void res.status(500).json({ error: 'boom', code: 'INTERNAL' }));
  }));
  // Broken in a way no schema sees: the list of configurations forgets what was created.
  ({ server: forgetful, port: forgetfulPort } = await brokenSeo((app) => {
    app.get('/seo/rank-tracking/configs', (req, res, next) => (req.headers.authorization ? void res.status(200).json({ configs: [] }) : next()));
  }));
}, 120_000);

afterAll(async () => {
  const closed = (server: http.Server | undefined) => server && (server.closeAllConnections(), new Promise<void>((resolve) => server.close(() => resolve())));
  await Promise.all([stubs?.close(), mock?.close(), closed(broken), closed(forgetful)]);
  rmSync(tmp, { recursive: true, force: true });
});

/** The stubs log every internal error they answer; the fuzzer provokes many on purpose. */
async function quietly<T>(run: () => Promise<T>): Promise<T> {
  const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    return await run();
  } finally {
    logged.mockRestore();
  }
}

describe('npm run contract', () => {
  test('the stubs keep the seo contract, with a JUnit report of the four check kinds', async () => {
    const names = async () => {
      const list = await fetch(`http://127.0.0.1:${stubs.port}/seo/projects`, { headers: { authorization: 'Bearer seo_test_key' } });
      return ((await list.json()) as { projects: Array<{ id: string; name: string }> }).projects.map((p) => `${p.id} ${p.name.slice(0, 30)}`);
    };
    const before = await names();
    const run = await quietly(() => runContract({ baseUrl: `http://127.0.0.1:${stubs.port}/seo` }));
    expect(run.exitCode, run.report).toBe(0);
    // What the run created on a stub others may share (the scenario's, the examples', the fuzzer's)
    // is removed with the credential that created it: seo has DELETE /projects/{projectId}.
    const cleanup = /^cleanup: removed (\d+) resources the run created$/m.exec(run.report);
    expect(cleanup, run.report).not.toBeNull();
    expect(Number(cleanup![1])).toBeGreaterThan(0);
    expect(run.report).not.toMatch(/^ {2}left \d+ created by POST \/projects/m);
    expect(await names(), 'the projects listed before the run, and no other').toEqual(before);
    expect(run.service).toBe('seo');
    expect(run.report).toMatch(/^examples: \d+ passed, 0 failed/m);
    expect(run.report).toMatch(/^negative: \d+ passed, 0 failed/m);
    expect(run.report).toMatch(new RegExp(`^scenario: ${seoChecks} passed, 0 failed`, 'm'));
    expect(run.report).toMatch(/fuzz: 300 requests/);
    const file = path.join(tmp, 'junit.xml');
    writeFileSync(file, run.junit);
    const elements = parseXml(readFileSync(file, 'utf8'));
    expect(elements[0]?.name).toBe('testsuites');
    const suites = elements.filter((e) => e.name === 'testsuite');
    expect(suites.map((s) => s.attrs.name)).toEqual(['examples', 'negative', 'scenario', 'fuzz']);
    for (const suite of suites) expect(Number(suite.attrs.tests)).toBeGreaterThan(0);
    expect(suites.every((s) => s.attrs.failures === '0')).toBe(true);
    expect(elements.filter((e) => e.name === 'testcase').map((e) => e.attrs.name)).toContain('GET /projects');
  }, 120_000);

  test('the Prism mock keeps the seo contract as far as a stateless mock can', async () => {
    const run = await runContract({ baseUrl: `http://127.0.0.1:${mock.port}/seo`, stateless: true });
    expect(run.exitCode, run.report).toBe(0);
    expect(run.report).toContain('stateless checks only');
  }, 30_000);

  test('a broken seo server fails, and each break is named in the report', async () => {
    const file = path.join(tmp, 'broken.xml');
    const run = await quietly(() => runContract({ baseUrl: `http://127.0.0.1:${brokenPort}/seo`, runs: 100, shrinkMs: 2_000 }));
    writeFileSync(file, run.junit);
    expect(run.exitCode).toBe(1);
    expect(run.report).toMatch(/✗ GET \/projects: status 418 is not declared/);
    expect(run.report).toMatch(/✗ GET \/projects\/\{projectId\}: body \/project must have required property 'domain'/);
    expect(run.report).toMatch(/✗ POST \/projects: server error 500/);
    expect(run.report).toMatch(/✗ setup: create a project: expected 201, got 500/);
    expect(run.report).toContain(`curl -i -X POST 'http://127.0.0.1:${brokenPort}/seo/projects'`);
    expect(run.report).toMatch(/^FAILED: /m);
    const failed = parseXml(readFileSync(file, 'utf8')).filter((e, i, all) => e.name === 'failure' && all[i - 1]?.name === 'testcase');
    expect(failed.length).toBeGreaterThanOrEqual(3);
  }, 45_000);

  test('a server whose answers keep the schema but not the behaviour fails the scenario', async () => {
    const run = await quietly(() => runContract({ baseUrl: `http://127.0.0.1:${forgetfulPort}/seo`, runs: 0 }));
    expect(run.exitCode, run.report).toBe(1);
    expect(run.report).toMatch(/^examples: \d+ passed, 0 failed/m);
    expect(run.report).toMatch(/✗ GET \/rank-tracking\/configs: listRankTrackingConfigs: the list holds the configuration created/);
    expect(run.report).toMatch(new RegExp(`^scenario: ${seoChecks - 1} passed, 1 failed`, 'm'));
  }, 30_000);

  test('bad usage exits 2', async () => {
    expect((await runContract({ baseUrl: 'http://127.0.0.1:1/no-such-service' })).exitCode).toBe(2);
    expect((await runContract({ baseUrl: 'not a url' })).exitCode).toBe(2);
    expect((await runContract({ baseUrl: 'http://127.0.0.1:1/seo', headers: ['no colon'] })).exitCode).toBe(2);
    expect((await runContract({ baseUrl: 'http://127.0.0.1:1/seo', service: 'nope' })).exitCode).toBe(2);
  });

  test('the JUnit report keeps any text a server sent well-formed', () => {
    const nasty = `<a href="x">&amp; 'q' \u0000\u0007 \uD800 ok]]></a>`;
    const xml = junitXml('seo', [
      { kind: 'negative', name: nasty, outcome: 'failed', message: nasty, details: nasty, ms: 12 },
      { kind: 'fuzz', name: 'skipped one', outcome: 'skipped', message: nasty, ms: 0 },
      { kind: 'examples', name: 'GET /projects', outcome: 'passed', ms: 3 },
    ]);
    const elements = parseXml(xml);
    expect(elements.filter((e) => e.name === 'testsuite').map((e) => [e.attrs.name, e.attrs.tests, e.attrs.failures, e.attrs.skipped])).toEqual([
      ['examples', '1', '0', '0'],
      ['negative', '1', '1', '0'],
      ['scenario', '0', '0', '0'],
      ['fuzz', '1', '0', '1'],
    ]);
    expect(elements.find((e) => e.name === 'testcase' && e.attrs.classname === 'seo.negative')?.attrs.name).toContain('&lt;a href=&quot;x&quot;>&amp;amp;');
    expect(xml).not.toMatch(/[\u0000\u0007\uD800]/);
  });
});
