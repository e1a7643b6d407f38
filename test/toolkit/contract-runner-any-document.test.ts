/**
 * `npm run contract -- --stateless` against the mock of documents the platform did not write
 * (issue 25): it passes a document the mock keeps, names what JavaScript cannot check, and names the
 * break of a document whose own example contradicts its schema, never crashing or printing a stack
 * trace. Documents are bundled into a temporary generated/ folder (test/helpers/imported-documents.ts).
 * The published documents brought in by add-service are run against their mocks, 100 requests each,
 * in any-document.test.ts, whose copy serves them already.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startMockServer, type MockServer } from '../../mock/server.js';
import { runContract } from '../../scripts/contract.js';
import { bundleExample, liar, quirks, STACK_FRAME, writeBundle } from '../helpers/imported-documents.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'contract-any-document-'));
let mock: MockServer;

beforeAll(async () => {
  // The CLI's document; any-document.test.ts holds the mocks of the published documents it brings
  // in (this one among them) to the runner at the depth the cases below use.
  writeBundle(dir, 'petstore', await bundleExample('3.0/petstore'));
  writeBundle(dir, 'quirks', quirks);
  writeBundle(dir, 'liar', liar);
  writeBundle(dir, 'rebuilt', rebuilt('string'));
  mock = await startMockServer(0, '127.0.0.1', { bundlesDir: dir });
}, 240_000);

afterAll(async () => {
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A one-operation document whose answer's `name` is of the given type (rebuilt below while the mock serves the first). */
const rebuilt = (type: 'string' | 'integer') => ({
  openapi: '3.1.0',
  info: { title: 'Rebuilt', version: '1.0.0' },
  paths: {
    '/names': {
      get: {
        operationId: 'getName',
        responses: { '200': { description: 'A name', content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type } } }, example: { name: 'ada' } } } } },
      },
    },
  },
});

const check = (slug: string, runs = 100) => runContract({ baseUrl: `http://127.0.0.1:${mock.port}/${slug}`, stateless: true, bundlesDir: dir, runs, shrinkMs: 500 });

describe('npm run contract against the mock of any document', () => {
  test('a document of what trips validators and generators: the mock keeps the contract', async () => {
    const run = await check('quirks');
    expect(run.report).not.toMatch(STACK_FRAME);
    expect(run.exitCode, run.report).toBe(0);
    expect(run.service).toBe('quirks');
    expect(run.report).toMatch(/^examples: [1-9]\d* passed, 0 failed/m);
    expect(run.report).toMatch(/^PASSED: quirks at /m);
  }, 60_000);

  test('what the document says that JavaScript cannot check is named, not thrown; credentials go as declared', async () => {
    const run = await check('quirks', 30);
    expect(run.exitCode, run.report).toBe(0);
    expect(run.report).toMatch(/Credentials: placeholders in each declared scheme \(key\)/);
    expect(run.report).toMatch(/Not checked: #\/components\/schemas\/Thing\/properties\/name: pattern "\^\[a-z\]\+\\\\Z"/);
    // The apiKey travels in the query, where the document puts it.
    expect(run.results.find((r) => r.name === 'GET /things')?.outcome).toBe('passed');
    expect(run.results.find((r) => r.name === 'GET /things without credentials')?.outcome).toBe('passed');
  }, 30_000);

  test('a document whose example breaks its own schema fails, and the break is named', async () => {
    const run = await check('liar', 30);
    expect(run.report).not.toMatch(STACK_FRAME);
    expect(run.exitCode).toBe(1);
    // The mock does not pass on an answer off the contract (its example): it answers 502 naming it.
    expect(run.report).toMatch(/✗ GET \/widgets\/\{id\}: status 502 is not declared/);
    expect(run.report).toContain('body/id must be integer');
    expect(run.report).toContain(`curl -i -X GET 'http://127.0.0.1:${mock.port}/liar/widgets/7'`);
    expect(run.report).toMatch(/^FAILED: \d+ check\(s\) broke the contract of liar\./m);
  }, 30_000);

  test('a bundle rebuilt while the mock serves the old one is checked as it is now, not as the mock read it', async () => {
    expect((await check('rebuilt', 10)).exitCode).toBe(0);
    writeBundle(dir, 'rebuilt', rebuilt('integer'));
    const run = await check('rebuilt', 10);
    expect(run.exitCode, run.report).toBe(1);
    expect(run.report).toMatch(/✗ GET \/names: body \/name must be integer/);
    writeBundle(dir, 'rebuilt', rebuilt('string'));
  }, 30_000);

  test('the CLI reads the given bundles folder and exits 0 with a report, no stack trace', async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/contract.ts', '--base-url', `http://127.0.0.1:${mock.port}/petstore`, '--stateless', '--bundles', dir, '--runs', '20'],
      { cwd: root, env: { ...process.env, NO_COLOR: '1' } },
    );
    expect(stdout).toMatch(/^PASSED: petstore at /m);
    expect(`${stdout}${stderr}`).not.toMatch(STACK_FRAME);
  }, 60_000);
});
