/**
 * Documents the platform did not write, through the toolkit as a new user would bring them: real
 * public OpenAPI 3.0 and 3.1 documents from an installed package (`@readme/oas-examples`; never
 * copied into this repository), one of them split into a folder of files as multi-file contracts are. Each
 * goes through `npm run add-service` into a copy of the toolkit, one build, and the type check of
 * everything generated; bad requests to add-service are refused with nothing written.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import type { OpenAPI3 } from 'openapi-typescript';
import { check } from '../../scripts/check.js';
import { addService } from '../../scripts/lib/add-service.js';
import { build, type BuildResult } from '../../scripts/lib/pipeline.js';
import { startMockServer, type MockServer } from '../../mock/server.js';
import { runContract } from '../../scripts/contract.js';
import { STACK_FRAME } from '../helpers/imported-documents.js';
import type { ContractRun } from '../../scripts/lib/contract-runner.js';
import { exampleRequest } from '../../scripts/lib/example-request.js';
import { placeholderFor } from '../../scripts/lib/credentials.js';
import { listOperations, mountPathOf } from '../../server-stubs/lib/openapi/document.js';
import type { JsonObject } from '../../server-stubs/lib/openapi/json-schema.js';
import { declares, documentsOnlyFailures } from '../../server-stubs/lib/contract.js';
import { startPlatformServer, type PlatformServer } from '../../server-stubs/server.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { findApiServices } from '../../scripts/lib/project.js';
import type { LintProblem } from '../../scripts/steps/lint.js';
import { copyToolkit, type ProjectCopy } from '../helpers/project-copy.js';

const run = promisify(execFile);
const examples = path.join(defaultRoot, 'node_modules/@readme/oas-examples');

/** slug -> the document, by what it brings that the platform's own contracts do not. */
const corpus: Record<string, string> = {
  petstore: '3.0/json/petstore.json', // XML beside JSON, form-urlencoded, octet-stream upload, apiKey + oauth2
  uspto: '3.0/json/uspto.json', // kebab-case operationIds, form posts, server variables
  'star-trek': '3.0/json/star-trek.json', // 500 KB, many operations and schemas
  callbacks: '3.0/json/callbacks.json',
  'file-uploads': '3.0/json/file-uploads.json', // multipart with binary parts
  'form-data': '3.0/json/form-data.json',
  cookies: '3.0/json/parameters-cookies.json',
  'param-styles': '3.0/json/parameters-style.json', // every style and explode, arrays and objects
  security: '3.0/json/security.json', // Basic, bearer, apiKey in header/query/cookie, oauth2, openIdConnect
  'server-vars': '3.0/json/server-variables.json',
  'media-types': '3.0/json/response-multiple-mediatypes.json',
  'status-codes': '3.0/json/http-status-codes.json', // every status, `default`
  links: '3.0/json/link-example.json', // no servers, links
  circular: '3.0/json/circular.json', // recursive schemas
  'circular-paths': '3.0/json/circular-paths.json', // a recursive $ref into paths, not components
  discriminators: '3.0/json/discriminators.json', // mappings by schema name as well as by reference
  extensions: '3.0/json/readme-extensions.json', // another tool's x-code-samples, not Redocly's shape
  polymorphism: '3.0/json/polymorphism.json',
  'schema-types-30': '3.0/json/schema-types.json', // `nullable` with and without `type`
  'schema-types-31': '3.1/json/schema-types.json', // 3.0's `nullable` left in a 3.1 document (an annotation there)
  webhooks: '3.1/json/webhooks.json', // 3.1, webhooks only
  'security-31': '3.1/json/security.json',
  'petstore-31': '3.1/json/petstore.json',
};
/** Split into a folder of files (below) whose root is named `main.yaml`, found as the one no other file references. */
const folderSlug = 'train-travel';

/**
 * The layout of a multi-file contract: each component schema and each path item in a file of its
 * own, relative `$ref`s between them, and a root named `main.yaml`.
 */
function splitIntoFolder(document: OpenAPI3, dir: string): void {
  const schemaFile = (name: string) => `components/schemas/${name}.yaml`;
  const rewrite = (node: unknown, fromDir: string): unknown => {
    if (Array.isArray(node)) return node.map((item) => rewrite(item, fromDir));
    if (!node || typeof node !== 'object') return node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      const schema = key === '$ref' && typeof value === 'string' ? /^#\/components\/schemas\/([^/]+)$/.exec(value)?.[1] : undefined;
      if (schema !== undefined) out[key] = path.relative(fromDir, schemaFile(schema));
      else if (key === '$ref' && typeof value === 'string' && value.startsWith('#/') && fromDir !== '.') out[key] = `${path.relative(fromDir, 'main.yaml')}${value}`;
      else out[key] = rewrite(value, fromDir);
    }
    return out;
  };
  const write = (file: string, value: unknown) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), stringifyYaml(value));
  };
  const schemas = document.components?.schemas ?? {};
  for (const [name, schema] of Object.entries(schemas)) write(schemaFile(name), rewrite(schema, 'components/schemas'));
  const paths: JsonObject = {};
  for (const [template, item] of Object.entries(document.paths ?? {})) {
    const file = `paths/${template.replace(/^\//, '').replaceAll('/', '_').replace(/[{}]/g, '') || 'root'}.yaml`;
    write(file, rewrite(item, 'paths'));
    paths[template] = { $ref: `./${file}` };
  }
  const components = { ...document.components, schemas: Object.fromEntries(Object.keys(schemas).map((name) => [name, { $ref: `./${schemaFile(name)}` }])) };
  write('main.yaml', rewrite({ ...document, paths, components }, '.'));
}

const streamSlug = 'event-streams';
const frame = { type: 'object', required: ['data'], properties: { event: { type: 'string' }, data: { type: 'object', properties: { n: { type: 'integer' } } } } };
const eventStreamDocument = {
  openapi: '3.0.3',
  info: { title: 'Event streams', version: '1.0.0' },
  paths: {
    '/ticks': { get: { operationId: 'watch-ticks', responses: { 200: { description: 'ticks', content: { 'text/event-stream': { schema: frame } } } } } },
    '/tocks': { get: { responses: { 200: { description: 'tocks', content: { 'text/event-stream': { schema: frame } } } } } },
  },
};

let project: ProjectCopy;
let copy = '';
let built: BuildResult;

beforeAll(async () => {
  // One platform service beside the documents brought in (npm run check builds and checks them all);
  // the copy holds what the build, the compile and the type check of generated code read.
  project = copyToolkit({ services: ['seo'], parts: ['clients', 'package.json', 'tsconfig.json'] });
  copy = project.root;
  // add-service's lint is the build's, as `npm run add-service` hands it on: each document is linted once here, and again by the check below.
  const linted: Record<string, LintProblem[]> = {};
  const add = async (slug: string, from: string) => (linted[slug] = (await addService(copy, slug, { from })).problems);
  for (const [slug, file] of Object.entries(corpus)) await add(slug, path.join(examples, file));
  const split = mkdtempSync(path.join(os.tmpdir(), 'contracts-split-'));
  splitIntoFolder(JSON.parse(readFileSync(path.join(examples, '3.1/json/train-travel.json'), 'utf8')), split);
  await add(folderSlug, split);
  rmSync(split, { recursive: true, force: true });
  // Event streams under operationIds that are not identifiers, and under none.
  const streams = mkdtempSync(path.join(os.tmpdir(), 'contracts-streams-'));
  writeFileSync(path.join(streams, 'events.yaml'), stringifyYaml(eventStreamDocument));
  await add(streamSlug, path.join(streams, 'events.yaml'));
  rmSync(streams, { recursive: true, force: true });
  built = await build({ root: copy, compile: true, compare: false, register: false, linted });
}, 300_000);

afterAll(() => project?.remove());

const slugs = [...Object.keys(corpus), folderSlug, streamSlug];

/**
 * Documents whose mock npm run contract checks at its fuller depth here, 100 fuzz requests rather
 * than 30, its report read line by line: the mock of any document keeps the contract
 * (contract-runner-any-document.test.ts holds the runner's own cases on documents of its own).
 */
const fullerOnMock = new Set(['petstore', 'train-travel', 'security', 'cookies', 'param-styles', 'form-data', 'circular', 'schema-types-30', 'media-types', 'webhooks']);

describe('real documents brought in by add-service', () => {
  test('are copied unchanged and registered with the imported profile', () => {
    for (const [slug, file] of Object.entries(corpus)) {
      const copied = path.join(copy, 'openapi', slug, path.basename(file));
      expect(readFileSync(copied, 'utf8'), slug).toBe(readFileSync(path.join(examples, file), 'utf8'));
    }
    const redocly = readFileSync(path.join(copy, 'redocly.yaml'), 'utf8');
    expect(redocly).toContain('  petstore:\n    root: openapi/petstore/petstore.json\n    extends:\n      - platform/imported\n');
    // The folder keeps its layout: its root, and the files its root references.
    expect(readFileSync(path.join(copy, 'redocly.yaml'), 'utf8')).toContain(`root: openapi/${folderSlug}/main.yaml`);
    expect(readdirSync(path.join(copy, 'openapi', folderSlug, 'components/schemas')).length).toBeGreaterThan(3);
    expect(findApiServices(copy).map((s) => s.slug)).toEqual(expect.arrayContaining(slugs));
  });

  test('build beside a platform service (seo), the imported ones held to validity only', () => {
    expect(built.failures).toEqual([]);
    for (const slug of slugs) {
      for (const file of ['openapi.json', 'types.gen.ts', 'client.gen.ts']) expect(existsSync(path.join(copy, 'generated', slug, file)), `${slug}/${file}`).toBe(true);
    }
    // Style findings are warnings for an imported document; the platform's own still lint clean.
    expect(built.lint.filter((p) => p.slug === 'petstore' && p.rule === 'operation-description').length).toBeGreaterThan(0);
    expect(built.lint.filter((p) => p.severity === 'error')).toEqual([]);
    expect(built.lint.filter((p) => !slugs.includes(p.slug))).toEqual([]);
    expect(built.lint.some((p) => p.rule.startsWith('platform/'))).toBe(false);
    // In 3.1 a schema keyword no vocabulary defines is an annotation: a warning, not a refusal.
    expect(built.lint.find((p) => p.slug === 'schema-types-31' && p.rule === 'struct')).toMatchObject({ severity: 'warn', message: 'Property `nullable` is not expected here.' });
  });

  test('every generated file type-checks, names that are not identifiers mapped or quoted', async () => {
    writeFileSync(path.join(copy, 'tsconfig.corpus.json'), JSON.stringify({ extends: './tsconfig.json', include: slugs.map((slug) => `generated/${slug}`) }));
    const checked = await run(process.execPath, [path.join(copy, 'node_modules/typescript-7/bin/tsc'), '--noEmit', '-p', 'tsconfig.corpus.json'], { cwd: copy }).then(
      () => ({ code: 0, output: '' }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code ?? 1, output: error.stdout ?? '' }),
    );
    expect(checked.output).toBe('');
    expect(checked.code).toBe(0);
    const travel = readFileSync(path.join(copy, 'generated', folderSlug, 'types.gen.ts'), 'utf8');
    expect(travel).toContain("export type LinksSelf = components['schemas']['Links-Self'];");
    expect(readFileSync(path.join(copy, 'generated/uspto/types.gen.ts'), 'utf8')).toMatch(/"perform-search": \{/);
    const streams = readFileSync(path.join(copy, 'generated', streamSlug, 'streams.gen.ts'), 'utf8');
    expect(streams).toContain('export function watchTicksStream(');
    expect(streams).toContain('export function getTocksStream(');
  });
});

describe('served by npm start and npm run mock, checked by npm run contract', () => {
  let stubs: PlatformServer;
  let mock: MockServer;
  const generated = () => path.join(copy, 'generated');

  beforeAll(async () => {
    [stubs, mock] = await Promise.all([startPlatformServer(0, '127.0.0.1', { generatedDir: generated() }), startMockServer(0, '127.0.0.1', { bundlesDir: generated() })]);
  }, 300_000);
  afterAll(async () => {
    await Promise.all([stubs?.close(), mock?.close()]);
  });

  test('the stubs serve every document beside the platform services, from its contract alone', async () => {
    expect(stubs.broken).toEqual([]);
    for (const slug of slugs) expect(stubs.services.map((s) => s.slug), slug).toContain(slug);
    const seo = await fetch(`http://127.0.0.1:${stubs.port}/seo/projects`, { headers: { authorization: 'Bearer seo_test_key' } });
    expect(seo.status).toBe(200);
    expect(mock.failed).toEqual([]);
  });

  /** The report of a run on a mock: its examples checked and passed, or, with no operations, what could be checked. */
  function expectFullReport(slug: string, run: ContractRun, operations: number) {
    expect(run.service).toBe(slug);
    if (operations > 0) {
      expect(run.report).toMatch(/^examples: [1-9]\d* passed, 0 failed/m);
      expect(run.report).toMatch(new RegExp(`^PASSED: ${slug} at `, 'm'));
      return;
    }
    // A document that declares no operations (3.1 webhooks only) is checked for what it can be.
    expect(run.report).toContain('declares no operations');
    expect(run.report).toMatch(/^examples: 0 passed, 0 failed/m);
    expect(run.report).toContain('skipped: no operations to send requests to');
  }

  test.each(slugs)('%s: npm run contract --stateless passes against the stub and the mock; each operation as a client calls it: never a 5xx or HTML', async (slug) => {
    const document = JSON.parse(readFileSync(path.join(generated(), slug, 'openapi.json'), 'utf8')) as OpenAPI3;
    const mount = mountPathOf(slug, document);
    const answered: number[] = [];
    for (const [where, port] of [['stub', stubs.port], ['mock', mock.port]] as const) {
      const fuller = where === 'mock' && fullerOnMock.has(slug);
      const run = await runContract({ baseUrl: `http://127.0.0.1:${port}/${slug}`, service: slug, stateless: true, bundlesDir: generated(), runs: fuller ? 100 : 30, shrinkMs: 500 });
      expect(run.report).not.toMatch(STACK_FRAME);
      expect(run.exitCode, `${where}:\n${run.report}`).toBe(0);
      if (fuller) expectFullReport(slug, run, listOperations(document).length);
      // The run's examples check sent each operation the request exampleRequest builds, with a
      // placeholder in each declared scheme, and kept the answer's status and media type.
      const called = new Map(run.results.flatMap((r) => (r.kind === 'examples' && r.call ? [[r.name, r.call] as const] : [])));
      for (const operation of listOperations(document)) {
        let answer = called.get(operation.label);
        if (!answer) {
          // No example sent by the run (no answer it could hold, a body it could not build): sent here.
          // WHATWG fetch turns any 407 into a network error outside a browser window.
          if (Object.keys(operation.op.responses ?? {}).join() === '407') continue;
          const request = exampleRequest(document, operation, placeholderFor);
          const response = await fetch(`http://127.0.0.1:${port}${mount}${request.url}`, { ...request.init, redirect: 'manual' });
          await response.text();
          answer = { operationId: operation.id, status: response.status, contentType: response.headers.get('content-type') ?? '' };
        }
        // A 5xx only where it is all the operation documents (`GET /status/503`).
        const documented = documentsOnlyFailures(operation) && declares(operation, answer.status);
        if (!documented) expect(answer.status, `${where} ${operation.label}:\n${run.report}`).toBeLessThan(500);
        expect(answer.contentType, `${where} ${operation.label}`).not.toMatch(/html/);
        if (where === 'stub') answered.push(answer.status);
      }
    }
    // Most operations of a document succeed on its example request; a few need what no example gives.
    if (answered.length > 0) expect(answered.filter((s) => s < 400).length, `statuses ${answered.join(' ')}`).toBeGreaterThan(0);
  }, 180_000);
});

describe('npm run check with documents brought in', () => {
  test('passes: their style findings are counted, not failed, and their generated code is not stale', async () => {
    const result = await check(copy);
    expect(result.messages).toEqual([]);
    expect(result.ok).toBe(true);
  }, 300_000);
});

describe('add-service refuses, writing nothing', () => {
  const refusals: Array<[string, string, () => { from: string; rootFile?: string }, RegExp]> = [
    ['a bad slug', 'Bad_Slug', () => ({ from: path.join(examples, corpus.petstore!) }), /not a slug/],
    ['an existing service', 'petstore', () => ({ from: path.join(examples, corpus.petstore!) }), /petstore exists already/],
    ['a platform service', 'seo', () => ({ from: path.join(examples, corpus.petstore!) }), /seo exists already/],
    ['a missing file', 'missing', () => ({ from: path.join(copy, 'nope.yaml') }), /no such file or folder/],
    ['Swagger 2.0', 'swagger', () => ({ from: path.join(examples, '2.0/json/petstore.json') }), /Swagger 2\.0; convert it to OpenAPI 3/],
    ['a file that is not OpenAPI', 'notopenapi', () => ({ from: path.join(copy, 'package.json') }), /not an OpenAPI document/],
    ['a folder with two roots', 'two-roots', () => ({ from: path.join(examples, '3.1/json') }), /name the root with --root/],
  ];
  test.each(refusals)('%s', async (_what, slug, options, message) => {
    const before = readFileSync(path.join(copy, 'redocly.yaml'), 'utf8');
    const listed = readdirSync(path.join(copy, 'openapi')).sort();
    await expect(addService(copy, slug, options())).rejects.toThrow(message);
    expect(readFileSync(path.join(copy, 'redocly.yaml'), 'utf8')).toBe(before);
    expect(readdirSync(path.join(copy, 'openapi')).sort()).toEqual(listed);
    expect(readdirSync(path.join(copy, '.cache')).filter((name) => name.startsWith('add-service-'))).toEqual([]);
  });

  test('a document that is neither JSON nor YAML is refused with the parser\'s words', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'contracts-unparsed-'));
    try {
      const file = path.join(dir, 'cut.json');
      writeFileSync(file, '{"openapi": "3.0.3", "info": {"title": "Cut", "version": "1"}, "paths": {');
      await expect(addService(copy, 'cut', { from: file })).rejects.toThrow(/cut\.json is not valid YAML or JSON: .+/);
      expect(existsSync(path.join(copy, 'openapi/cut'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an invalid document is refused with each error at its file and line', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'contracts-invalid-'));
    try {
      const file = path.join(dir, 'broken.yaml');
      writeFileSync(file, 'openapi: 3.0.3\ninfo: {title: Broken, version: "1"}\npaths:\n  /items/{id}:\n    get:\n      responses:\n        "200":\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: "#/components/schemas/Missing"}\n');
      const error = await addService(copy, 'broken', { from: file }).then(() => undefined, (e: Error) => e);
      expect(error?.message).toMatch(/not valid OpenAPI \(2 errors\); nothing was written/);
      expect(error?.message).toMatch(/broken\.yaml:11:\d+  error  no-unresolved-refs/);
      expect(error?.message).toMatch(/broken\.yaml:5:\d+  error  path-parameters-defined/);
      expect(existsSync(path.join(copy, 'openapi/broken'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
