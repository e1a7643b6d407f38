/**
 * The `platform/path-aliases` bundle decorator (scripts/redocly/platform.cjs): a root
 * `x-path-aliases` declares once that a prefix's paths are served again under another (mail's
 * `/v1/` as `/api/v1/`, DECISIONS P-2); the bundle has the aliases, written from the one path file,
 * and the lint reads the source as written. Fixtures live in a temporary folder, linted and bundled
 * with redocly.yaml's real configuration.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { parse, stringify } from 'yaml';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { valueAt } from '../../server-stubs/lib/openapi/document.js';
import { bundleService } from '../../scripts/steps/bundle.js';
import { lintService } from '../../scripts/steps/lint.js';

type Files = Record<string, string>;

const files: Files = {
  'openapi.yaml': `openapi: 3.1.0
info:
  title: Path aliases fixture
  version: 1.0.0
  description: Items under /v1/, served also under /api/v1/.
servers:
  - url: http://localhost:4000/items
tags:
  - name: Items
    description: Items.
security:
  - bearerAuth: []
x-path-aliases:
  - of: /v1/
    as: /api/v1/
    operationIdSuffix: ViaApiAlias
    operationIds:
      deleteItem: deleteItemFromDashboard
components:
  securitySchemes:
    bearerAuth:
      type: http
      scheme: bearer
paths:
  /v1/items/{id}:
    $ref: paths/v1_items_{id}.yaml
  /health:
    $ref: paths/health.yaml
`,
  'paths/v1_items_{id}.yaml': `parameters:
  - $ref: '#/x-parts/Id'
get:
  operationId: getItem
  summary: Get an item
  description: Reads one item.
  tags: [Items]
  x-rate-limit:
    requests: 10
    windowSeconds: 60
  responses:
    '200':
      description: The item.
      content:
        application/json:
          schema:
            $ref: ../components/schemas/Item.yaml
          examples:
            one:
              value: {id: i1}
    '400':
      $ref: ../components/responses/Error.yaml
    '401':
      $ref: ../components/responses/Error.yaml
    '429':
      $ref: ../components/responses/RateLimited.yaml
delete:
  operationId: deleteItem
  summary: Delete an item
  description: Deletes one item.
  tags: [Items]
  responses:
    '204':
      description: Deleted.
    '400':
      $ref: ../components/responses/Error.yaml
    '401':
      $ref: ../components/responses/Error.yaml
x-parts:
  Id:
    name: id
    in: path
    required: true
    schema:
      type: string
`,
  'paths/health.yaml': `get:
  operationId: getHealth
  summary: Health
  description: Open to everyone.
  tags: [Items]
  security: []
  responses:
    '200':
      description: Healthy.
      content:
        application/json:
          schema:
            type: object
          example: {}
    '400':
      $ref: ../components/responses/Error.yaml
`,
  'components/schemas/Item.yaml': `type: object
required: [id]
properties:
  id:
    type: string
`,
  'components/responses/Error.yaml': `description: The request failed.
content:
  application/json:
    schema:
      type: object
      required: [error]
      properties:
        error:
          type: string
    examples:
      failed:
        value:
          error: failed
`,
  'components/responses/RateLimited.yaml': `description: Too many requests.
headers:
  Retry-After:
    description: Seconds to wait.
    schema:
      type: integer
content:
  application/json:
    schema:
      type: object
    examples:
      rateLimited:
        value: {}
`,
};

let root: string;
let cases = 0;

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'contracts-path-aliases-'));
  const config = parse(readFileSync(path.join(defaultRoot, 'redocly.yaml'), 'utf8'));
  config.plugins = [path.join(defaultRoot, 'scripts/redocly/platform.cjs')];
  delete config.apis;
  writeFileSync(path.join(root, 'redocly.yaml'), stringify(config));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(service: Files) {
  const slug = `case-${++cases}`;
  const dir = path.join(root, 'openapi', slug);
  for (const [file, text] of Object.entries(service)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return { slug, root: path.join(dir, 'openapi.yaml') };
}

test('the bundle has each alias, written from the one path file, right after its twin; the source lints clean', async () => {
  const service = write(files);
  expect(await lintService(root, service)).toEqual([]);
  const { document } = await bundleService(root, service);
  expect(Object.keys(document.paths ?? {})).toEqual(['/v1/items/{id}', '/api/v1/items/{id}', '/health']);
  const twin = (...at: string[]) => valueAt(document, ['paths', '/v1/items/{id}', ...at]);
  const alias = (...at: string[]) => valueAt(document, ['paths', '/api/v1/items/{id}', ...at]);
  expect(alias('get', 'operationId')).toBe('getItemViaApiAlias');
  expect(alias('delete', 'operationId')).toBe('deleteItemFromDashboard');
  expect([alias('get', 'x-alias-of'), alias('delete', 'x-alias-of')]).toEqual(['getItem', 'deleteItem']);
  // The twin is untouched; the alias shares every component (the path file's own `#/...` ones too) and its rate window.
  expect(twin('get', 'operationId')).toBe('getItem');
  expect(twin('get', 'x-alias-of')).toBeUndefined();
  expect(alias('parameters')).toEqual(twin('parameters'));
  expect(alias('get', 'responses')).toEqual(twin('get', 'responses'));
  expect(alias('get', 'x-rate-limit')).toEqual({ requests: 10, windowSeconds: 60, bucket: 'getItem' });
  expect(alias('get', 'summary')).toBe('Get an item (/api/v1/ alias)');
  expect(alias('get', 'description')).toMatch(/^`GET \/api\/v1\/items\/\{id\}` is the same operation as `GET \/v1\/items\/\{id\}` \(`getItem`\)/);
  expect(document.paths?.['/api/health']).toBeUndefined();
});

test('an alias path also written by hand fails the bundle: the alias is declared once', async () => {
  const service = write({
    ...files,
    'openapi.yaml': files['openapi.yaml']!.replace('  /health:\n', '  /api/v1/items/{id}:\n    $ref: paths/v1_items_{id}.yaml\n  /health:\n'),
  });
  await expect(bundleService(root, service)).rejects.toThrow('/api/v1/items/{id} is written by hand');
});

test('an alias operationId that is taken fails the bundle', async () => {
  const service = write({ ...files, 'paths/health.yaml': files['paths/health.yaml']!.replace('operationId: getHealth', 'operationId: getItemViaApiAlias') });
  await expect(bundleService(root, service)).rejects.toThrow('operationId getItemViaApiAlias is taken');
});
