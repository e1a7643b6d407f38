import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { build, type BuildResult } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { generateSchemaSet } from '../../scripts/steps/schema-types.js';
import { valueAt } from '../../server-stubs/lib/openapi/document.js';
import type { JsonObject } from '../../server-stubs/lib/openapi/json-schema.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Bundles `contents` as a browser would get it: no Node built-ins, no `require`. */
async function bundleForBrowser(contents: string): Promise<BuildResult & { text: string; inputs: string[] }> {
  const result = await build({
    stdin: { contents, resolveDir: root, sourcefile: 'entry.ts', loader: 'ts' },
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    logLevel: 'silent',
    metafile: true,
  });
  return { ...result, text: result.outputFiles![0]!.text, inputs: Object.keys(result.metafile!.inputs) };
}

/** Runs a bundle in a context with only the JS built-ins plus `globals`: no process, require or Buffer. */
function runBare(code: string, globals: Record<string, unknown> = {}): JsonObject {
  const context: JsonObject = { ...globals };
  vm.runInNewContext(code, context);
  return context;
}

describe('browser bundles', () => {
  it('generated/schemas/chain-rpc validators bundle for the browser and run without Node', async () => {
    const example = JSON.parse(readFileSync(path.join(root, 'schemas/chain-rpc/Block.json'), 'utf8')).examples[0];
    const result = await bundleForBrowser(`
      import { validate } from './generated/schemas/chain-rpc/index.gen.js';
      globalThis.results = [
        validate.Block(${JSON.stringify(example)}).ok,
        validate.Block({ height: -1 }).ok,
        validate.Timestamp('2026-01-01T00:00:00Z').ok, // ajv-formats date-time
        validate.Timestamp('2026-13-01T00:00:00Z').ok,
        validate.RpcConfig({ endpoint: 'http://127.0.0.1:4000/chain-rpc' }).ok, // ajv-formats uri
        validate.RpcConfig({ endpoint: 'not a uri' }).ok,
      ];
    `);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.inputs.filter((i) => i.startsWith('node:') || i.includes('server-stubs/'))).toEqual([]);
    expect(result.text).not.toContain('Dynamic require'); // esbuild's shim for a require it could not bundle
    expect(runBare(result.text).results).toEqual([true, false, true, false, true, false]);
  });

  it.each(readdirSync(path.join(root, 'generated/schemas'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name))(
    'generated/schemas/%s has no Node imports and bundles for the browser',
    async (slug) => {
      const source = readFileSync(path.join(root, 'generated/schemas', slug, 'validators.gen.js'), 'utf8');
      expect(source).not.toMatch(/\brequire\(|['"]node:/);
      const result = await bundleForBrowser(`import { validate } from './generated/schemas/${slug}/index.gen.js'; globalThis.names = Object.keys(validate);`);
      expect(result.errors).toEqual([]);
      expect(valueAt(runBare(result.text), ['names', 'length'])).toBeGreaterThan(0);
    },
  );

  it('the chain RPC client bundles for the browser and queries with fetch', async () => {
    const result = await bundleForBrowser(`
      import { createChainRpcClient, RpcErrorCode } from './clients/chain-rpc/index.js';
      const client = createChainRpcClient({ endpoint: 'http://node.test/chain-rpc', wsEndpoint: 'ws://node.test/chain-rpc/ws' });
      globalThis.codes = RpcErrorCode;
      globalThis.info = client.getChainInfo();
      globalThis.subscribed = client.subscribe({ type: 'blocks' }, () => {}).then(() => 'subscribed', (e) => e.name + ' ' + e.kind);
    `);
    expect(result.errors).toEqual([]);
    expect(result.inputs.filter((i) => i.startsWith('node:') || i.includes('server-stubs/'))).toEqual([]);
    const requests: string[] = [];
    const info = { chain: 'stubchain', network: 'mainnet', height: 2, bestBlockHash: 'ab'.repeat(32) };
    const context = runBare(result.text, {
      AbortController,
      setTimeout,
      clearTimeout,
      fetch: async (url: string, init: { body: string }) => {
        requests.push(url);
        const id = JSON.parse(init.body).id;
        return { ok: true, status: 200, text: async () => JSON.stringify({ jsonrpc: '2.0', id, result: info }) };
      },
    });
    expect(await context.info).toEqual(info);
    expect(requests).toEqual(['http://node.test/chain-rpc']);
    expect(valueAt(context, ['codes', 'INSUFFICIENT_FUNDS'])).toBe(-32005);
    // `ws` has no browser build: subscriptions fail as the client's own error, not a raw throw.
    expect(await context.subscribed).toBe('ChainRpcError transport');
  });
});

describe('the validator generator (scripts/steps/schema-types.ts)', () => {
  it('inlines browser-safe helpers: equality that data keys like valueOf cannot break, length in code points', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'schema-types-'));
    try {
      const file = path.join(dir, 'Tags.json');
      writeFileSync(
        file,
        JSON.stringify({
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          $id: 'https://contracts.platform.example/schemas/test/Tags.json',
          title: 'Tags',
          type: 'array',
          uniqueItems: true,
          items: { type: 'object', properties: { name: { type: 'string', maxLength: 2 } } },
          examples: [[{ name: 'a' }]],
        }),
      );
      const { files } = await generateSchemaSet({ slug: 'test', dir, files: [file] });
      const code = files['validators.gen.js']!;
      expect(code).not.toMatch(/\brequire\(|['"]node:/);
      writeFileSync(path.join(dir, 'validators.gen.mjs'), code);
      const { Tags } = (await import(pathToFileURL(path.join(dir, 'validators.gen.mjs')).href)) as { Tags: (x: unknown) => boolean };
      const parse = (json: string) => JSON.parse(json) as unknown;
      expect(Tags(parse('[{"valueOf":1},{"valueOf":1}]'))).toBe(false); // fast-deep-equal threw "a.valueOf is not a function"
      expect(Tags(parse('[{"valueOf":1},{"valueOf":2}]'))).toBe(true);
      expect(Tags(parse('[{"toString":{"a":[1]},"constructor":1},{"constructor":1,"toString":{"a":[1]}}]'))).toBe(false);
      expect(Tags(parse('[{"__proto__":{"a":1}},{"__proto__":{"a":2}}]'))).toBe(true);
      expect(Tags([{ name: '\u{1F600}\u{1F600}' }])).toBe(true); // two code points, four UTF-16 units
      expect(Tags([{ name: '\u{1F600}\u{1F600}\u{1F600}' }])).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
