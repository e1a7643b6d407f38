/**
 * `npm run coverage`: reads a server's `GET /_stub/coverage` and writes what a CI job shows: a
 * summary, JUnit XML (a never-exercised operation's statuses are failures) and Markdown; exit 2 with
 * one line when the URL cannot be reached or answers something else, usage on bad arguments.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { format } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { main } from '../../scripts/coverage.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import seoService from '../../server-stubs/seo/app.js';
import { startPlatformServer, type PlatformServer } from '../../server-stubs/server.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI as `npm run coverage` runs it, in its own process (this one serves the stubs it reads). */
function coverageCli(...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/coverage.ts', ...args], { cwd: defaultRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * The CLI's `main` in this process, its console lines collected as its stdout and stderr: the
 * command line's answers (exit codes, one-line errors, usage), without a process and a TypeScript
 * load each. Two cases run as `npm run coverage` does (above): that its code is the process's exit
 * code and its lines go to stdout and stderr.
 */
async function coverageMain(...args: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const line = (into: string[]) => (...parts: unknown[]) => void into.push(`${format(...parts)}\n`);
  const spies = [
    vi.spyOn(console, 'log').mockImplementation(line(out)),
    vi.spyOn(console, 'info').mockImplementation(line(out)),
    vi.spyOn(console, 'warn').mockImplementation(line(err)),
    vi.spyOn(console, 'error').mockImplementation(line(err)),
  ];
  try {
    const code = await main(args);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** A port nothing listens on: one the system gave and took back. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** How many operations the seo contract has, read from its bundle. */
const seoOperations = Object.values(JSON.parse(readFileSync(path.join(defaultRoot, 'generated/seo/openapi.json'), 'utf8')).paths as Record<string, object>).reduce<number>(
  (sum, item) => sum + Object.keys(item).filter((key) => ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(key)).length,
  0,
);

interface JunitCase {
  '@_name': string;
  '@_classname': string;
  failure?: unknown;
}

describe('npm run coverage', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'coverage-cli-'));
  let platform: PlatformServer;
  let origin = '';

  beforeAll(async () => {
    platform = await startPlatformServer(0, '127.0.0.1', { services: [seoService], switches: { rateLimits: false } });
    origin = `http://127.0.0.1:${platform.port}`;
    const listed = await fetch(`${origin}/seo/projects`, { headers: { authorization: 'Bearer seo_test_key' } });
    expect(listed.status).toBe(200);
    await listed.arrayBuffer();
  });
  afterAll(async () => {
    await platform.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('prints the summary and writes JUnit XML and Markdown; a never-exercised operation is a failure', async () => {
    const junitFile = path.join(dir, 'reports', 'coverage.xml');
    const markdownFile = path.join(dir, 'coverage.md');
    const run = await coverageCli('--base-url', origin, '--junit', junitFile, '--markdown', markdownFile);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^seo \\(since [^)]+\\): 1/${seoOperations} operations exercised \\([\\d.]+%\\), 1/\\d+ declared statuses answered`, 'm'));
    expect(run.stdout).toMatch(new RegExp(`never exercised \\(${seoOperations - 1}\\):\n\\s+createProject {2}POST /projects`));

    const xml = new XMLParser({ ignoreAttributes: false, isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(readFileSync(junitFile, 'utf8')) as {
      testsuites: { testsuite: Array<{ '@_name': string; '@_tests': string; '@_failures': string; testcase: JunitCase[] }> };
    };
    const [suite] = xml.testsuites.testsuite;
    expect(xml.testsuites.testsuite).toHaveLength(1);
    expect(suite!['@_name']).toBe('coverage seo');
    const byName = new Map(suite!.testcase.map((c) => [c['@_name'], c]));
    expect(byName.get('listProjects 200 (GET /projects)')?.failure, 'an answered status passes').toBeUndefined();
    expect(byName.get('listProjects 401 (GET /projects)')?.failure, 'a declared status never answered fails').toBeDefined();
    const create = byName.get('createProject 201 (POST /projects)');
    expect(create?.['@_classname']).toBe('seo.createProject');
    expect(JSON.stringify(create?.failure)).toMatch(/never exercised/);
    expect(Number(suite!['@_tests'])).toBe(suite!.testcase.length);
    expect(Number(suite!['@_failures'])).toBe(suite!.testcase.length - 1);

    const markdown = readFileSync(markdownFile, 'utf8');
    expect(markdown).toMatch(/^# Contract coverage/);
    expect(markdown).toMatch(new RegExp(`\\| seo +\\| +1/${seoOperations} \\([\\d.]+%\\) \\|`));
    expect(markdown).toMatch(/\| listProjects +\| `GET \/projects` +\| +1 \| 200 ×1 +\| 401, 500 +\|/);
  });

  test('--service reads one service; --fail-under not met exits 1', async () => {
    const one = await coverageMain('--base-url', `${origin}/`, '--service', 'seo');
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^seo \(since/m);
    const under = await coverageMain('--base-url', origin, '--fail-under', '50');
    expect(under.code).toBe(1);
    expect(under.stderr).toMatch(/declared statuses were answered, under --fail-under 50%/);
  });

  test('an unreachable URL, or one that answers something else, is exit 2 and one line', async () => {
    const port = await closedPort();
    const unreachable = await coverageCli('--base-url', `http://127.0.0.1:${port}`);
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr.trim().split('\n')).toEqual([`npm run coverage: cannot reach http://127.0.0.1:${port}: ECONNREFUSED`]);
    expect(unreachable.stdout).toBe('');

    const unknown = await coverageMain('--base-url', origin, '--service', 'nope');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toEqual([`npm run coverage: ${origin}/_stub/coverage?service=nope answered 404: No service "nope" is counted here`]);

    const notJson = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'));
    await new Promise<void>((resolve) => notJson.listen(0, '127.0.0.1', resolve));
    try {
      const html = await coverageMain('--base-url', `http://127.0.0.1:${(notJson.address() as AddressInfo).port}`);
      expect(html.code).toBe(2);
      expect(html.stderr.trim().split('\n')).toHaveLength(1);
      expect(html.stderr).toMatch(/answered 200 text\/html, not a coverage report/);
    } finally {
      await new Promise<void>((resolve) => notJson.close(() => resolve()));
    }
  });

  test('bad arguments print the usage, exit 2', async () => {
    for (const args of [[], ['--base-url', origin, '--nope'], ['--base-url', origin, '--fail-under', '101']]) {
      const run = await coverageMain(...args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(/usage: npm run coverage/);
      expect(run.stdout).toBe('');
    }
  });
});
