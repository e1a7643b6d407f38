/**
 * The packaged clients as a frontend team gets them: `npm pack`ed, installed from the tarball into
 * an empty project, type-checked by tsc against the package's declarations, and run against the
 * seo stub over HTTP. One npm install for the whole file: it is the slow part.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { measureClientSizes } from '../../scripts/lib/client-size.js';
import { packClients, type PackedClients } from '../../scripts/lib/pack/index.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { createSeoApp } from '../../server-stubs/seo/app.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';

const run = promisify(execFile);
const tsc = path.join(defaultRoot, 'node_modules', 'typescript', 'bin', 'tsc');

let tmp: string;
let app: string;
let packed: PackedClients;
let stub: RunningStub;

/** Uses every kind of export a frontend needs; must type-check under --strict. */
const goodSource = `import { createSeoClient, streamCrawl, type Project } from '@platform/contracts/seo';
import { signWebhookPayload, verifyWebhookSignature, type WebhookPayload } from '@platform/contracts/mail';
import { validate, type Project as ProjectSchema } from '@platform/contracts/seo/schemas';
import type { createChainRpcClient } from '@platform/contracts/chain-rpc';

const seo = createSeoClient({ baseUrl: 'http://127.0.0.1:1/seo', headers: { Authorization: 'Bearer seo_test_key' } });

export async function firstProject(): Promise<Project | undefined> {
  const { data } = await seo.GET('/projects');
  return data?.projects[0];
}

export async function project(projectId: string): Promise<string | undefined> {
  const { data, error } = await seo.GET('/projects/{projectId}', { params: { path: { projectId } } });
  return data?.project.name ?? error?.code;
}

export async function verified(raw: string, secret: string): Promise<boolean> {
  return verifyWebhookSignature(raw, await signWebhookPayload(raw, secret), secret);
}

export type Delivered = WebhookPayload<'formB:email.delivered'>;
export const crawl: typeof streamCrawl = streamCrawl;
export type Chain = ReturnType<typeof createChainRpcClient>;

export function checked(value: unknown): ProjectSchema | undefined {
  const result = validate.Project(value);
  return result.ok ? result.value : undefined;
}
`;

/** A wrong path parameter type: tsc must reject it, or the declarations type nothing. */
const badSource = `import { createSeoClient } from '@platform/contracts/seo';

const seo = createSeoClient();
await seo.GET('/projects/{projectId}', { params: { path: { projectId: 42 } } }); // deliberate
`;

/** Calls the stub through the installed package and prints what came back. */
const runtimeSource = `import { createSeoClient } from '@platform/contracts/seo';
import { signWebhookPayload, verifyWebhookSignature } from '@platform/contracts/mail';
import { validate } from '@platform/contracts/seo/schemas';

const baseUrl = process.argv[2];
const seo = createSeoClient({ baseUrl, headers: { Authorization: 'Bearer seo_test_key' } });
const list = await seo.GET('/projects');
const first = list.data?.projects[0];
const one = first && (await seo.GET('/projects/{projectId}', { params: { path: { projectId: first.id } } }));
const anonymous = await createSeoClient({ baseUrl }).GET('/projects');
const signature = await signWebhookPayload('{"a":1}', 'whsec');
console.log(JSON.stringify({
  listStatus: list.response.status,
  projectValid: validate.Project(first).ok,
  oneStatus: one?.response.status,
  oneName: one?.data?.project.name,
  firstName: first?.name,
  anonymousStatus: anonymous.response.status,
  anonymousError: anonymous.error,
  verified: await verifyWebhookSignature('{"a":1}', signature, 'whsec'),
  tamperedVerified: await verifyWebhookSignature('{"a":2}', signature, 'whsec'),
}));
`;

/** The chain-rpc subpath in Node without \`ws\` (an optional peer the consumer did not install). */
const chainSource = `import { createChainRpcClient, validate } from '@platform/contracts/chain-rpc';

const chain = createChainRpcClient({ endpoint: 'http://127.0.0.1:9/chain-rpc', wsEndpoint: 'ws://127.0.0.1:9/chain-rpc/ws', reconnect: false });
let subscribed;
try {
  await chain.subscribe({ type: 'address', address: 'carol' }, () => {});
  subscribed = 'opened';
} catch (error) {
  subscribed = { kind: error.kind, message: error.message };
}
await chain.close();
console.log(JSON.stringify({ validated: validate.Block({}).ok, subscribed }));
`;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'pack-clients-'));
  packed = packClients({ outDir: path.join(tmp, 'out'), stagingDir: path.join(tmp, 'staging') });
  app = path.join(tmp, 'app');
  mkdirSync(app);
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', packed.tarball], { cwd: app, timeout: 180_000 });
  const seoApp = createSeoApp();
  stub = await serveStub(seoApp, seoApp.basePath);
}, 240_000);

afterAll(async () => {
  await stub?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('npm run pack:clients', () => {
  test('installs with exactly the runtime dependencies, at the repo pins, and a typed subpath per service', () => {
    const installed = JSON.parse(readFileSync(path.join(app, 'node_modules', '@platform', 'contracts', 'package.json'), 'utf8'));
    const root = JSON.parse(readFileSync(path.join(defaultRoot, 'package.json'), 'utf8'));
    expect(installed.version).toBe(root.version);
    expect(installed.dependencies).toEqual({ 'openapi-fetch': '0.17.0', 'ajv-formats': root.devDependencies['ajv-formats'], 'eventsource-parser': root.dependencies['eventsource-parser'] });
    for (const subpath of ['./seo', './seo/schemas', './mail', './coder', './chain-rpc']) {
      expect(installed.exports[subpath]).toMatchObject({ types: expect.stringMatching(/\.d\.ts$/), default: expect.stringMatching(/\.js$/) });
    }
    expect(readFileSync(path.join(app, 'node_modules', '@platform', 'contracts', 'README.md'), 'utf8')).toContain('createSeoClient');
  });

  test('type-checks a strict consumer, and rejects a wrong path parameter type', async () => {
    writeFileSync(path.join(app, 'good.ts'), goodSource);
    writeFileSync(path.join(app, 'bad.ts'), badSource);
    // The package's declarations are checked like the consumer's files; TypeScript's own lib files are not what is under test.
    const args = ['--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--strict', '--skipDefaultLibCheck', 'good.ts', 'bad.ts'];
    const result = await run(process.execPath, [tsc, ...args], { cwd: app, timeout: 120_000 }).then(
      () => ({ failed: false, output: '' }),
      (err: { stdout?: string }) => ({ failed: true, output: err.stdout ?? '' }),
    );
    expect(result.failed).toBe(true);
    const errors = result.output.split('\n').filter((line) => /error TS\d+/.test(line));
    // Every error is the deliberate one: the good file and the package's declarations are clean.
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.filter((line) => !line.startsWith('bad.ts(4,'))).toEqual([]);
  }, 120_000);

  test('runs in Node against the seo stub: 200 with the key, 401 without, webhook signatures verify', async () => {
    writeFileSync(path.join(app, 'run.mjs'), runtimeSource);
    const { stdout } = await run(process.execPath, ['run.mjs', stub.baseUrl], { cwd: app, timeout: 60_000 });
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ listStatus: 200, projectValid: true, oneStatus: 200, anonymousStatus: 401, verified: true, tamperedVerified: false });
    expect(out.oneName).toBe(out.firstName);
    expect(out.anonymousError).toMatchObject({ code: expect.any(String), error: expect.any(String) });
  }, 60_000);

  test('the chain-rpc subpath loads in Node without ws; only a subscription asks for it, by name', async () => {
    expect(existsSync(path.join(app, 'node_modules', 'ws')), 'ws is an optional peer: not installed').toBe(false);
    writeFileSync(path.join(app, 'chain.mjs'), chainSource);
    const { stdout } = await run(process.execPath, ['chain.mjs'], { cwd: app, timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({ validated: false, subscribed: { kind: 'transport', message: expect.stringMatching(/npm install ws/) } });
  }, 60_000);

  test('each service client bundles, openapi-fetch included, under 7 kB gzipped', async () => {
    const sizes = await measureClientSizes({ packageDir: packed.packageDir });
    expect(sizes.map((s) => s.service)).toEqual(expect.arrayContaining(['seo', 'mail', 'coder']));
    for (const size of sizes) expect(size.gzipped, size.specifier).toBeLessThan(7 * 1024);
  });
});
