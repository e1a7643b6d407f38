/**
 * The house rules of CONVENTIONS §3 as Redocly lint rules: `npm run build` reports each at the file
 * and line to fix. One small service follows every rule; each test breaks one rule in one place and
 * expects exactly that problem, where the designer has to make the fix (a shared response is blamed
 * in its own file, once). The service is linted by the build's own lintService, with redocly.yaml's
 * real rules, so switching a rule off in redocly.yaml fails these tests.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse, stringify } from 'yaml';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { lintService, type LintProblem } from '../../scripts/steps/lint.js';

type Files = Record<string, string>;

const files: Files = {
  'openapi.yaml': `openapi: 3.1.0
info:
  title: Lint rules fixture
  version: 1.0.0
  description: A service that follows every house rule.
servers:
  - url: http://localhost:4000/items
tags:
  - name: Items
    description: Items.
security:
  - bearerAuth: []
components:
  securitySchemes:
    bearerAuth:
      type: http
      scheme: bearer
paths:
  /items:
    $ref: paths/items.yaml
  /health:
    $ref: paths/health.yaml
webhooks:
  itemCreated:
    post:
      operationId: itemCreated
      summary: Item created
      description: Posted to subscribers when an item is created.
      tags: [Items]
      security: []
      requestBody:
        required: true
        content:
          application/json:
            schema:
              $ref: components/schemas/Item.yaml
            examples:
              created:
                value: {id: i3}
      responses:
        '200':
          description: The subscriber accepted the event.
`,
  'paths/items.yaml': `get:
  operationId: listItems
  summary: List items
  description: Lists the items.
  tags: [Items]
  parameters:
    - name: limit
      in: query
      schema:
        type: integer
        minimum: 1
  responses:
    '200':
      description: The items.
      content:
        application/json:
          schema:
            $ref: ../components/schemas/Items.yaml
          examples:
            two:
              summary: Two items
              value:
                items: [{id: i1}, {id: i2}]
    '400':
      $ref: ../components/responses/BadRequest.yaml
    '401':
      $ref: ../components/responses/Unauthenticated.yaml
post:
  operationId: createItem
  summary: Create an item
  description: Creates an item. Rate limited.
  tags: [Items]
  x-rate-limit:
    requests: 10
    windowSeconds: 60
  requestBody:
    required: true
    content:
      application/json:
        schema:
          $ref: ../components/schemas/Item.yaml
        examples:
          one:
            value: {id: i3}
  responses:
    '201':
      description: The created item.
      content:
        application/json:
          schema:
            $ref: ../components/schemas/Item.yaml
          examples:
            created:
              value: {id: i3}
    '400':
      $ref: ../components/responses/BadRequest.yaml
    '401':
      $ref: ../components/responses/Unauthenticated.yaml
    '429':
      $ref: ../components/responses/RateLimited.yaml
`,
  // Open, with its input declared on the path: it needs a 400 but no 401, and its success may keep a bare example.
  'paths/health.yaml': `parameters:
  - name: verbose
    in: query
    schema:
      type: boolean
get:
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
            properties:
              ok:
                type: boolean
          example:
            ok: true
    '400':
      $ref: ../components/responses/BadRequest.yaml
`,
  'components/schemas/Item.yaml': `type: object
required: [id]
properties:
  id:
    type: string
`,
  'components/schemas/Items.yaml': `type: object
required: [items]
properties:
  items:
    type: array
    items:
      $ref: Item.yaml
`,
  'components/schemas/Error.yaml': `type: object
required: [error]
properties:
  error:
    type: string
`,
  'components/responses/BadRequest.yaml': `description: The request is invalid.
content:
  application/json:
    schema:
      $ref: ../schemas/Error.yaml
    examples:
      invalid:
        value:
          error: limit must be at least 1
`,
  'components/responses/Unauthenticated.yaml': `description: Missing or invalid key.
content:
  application/json:
    schema:
      $ref: ../schemas/Error.yaml
    examples:
      missingKey:
        value:
          error: Missing API key
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
      $ref: ../schemas/Error.yaml
    examples:
      rateLimited:
        value:
          error: Rate limit exceeded
`,
};

let root: string;
let cases = 0;

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'contracts-lint-rules-'));
  // The real rules; only the plugin path is made absolute, and the services are the fixtures below.
  const config = parse(readFileSync(path.join(defaultRoot, 'redocly.yaml'), 'utf8'));
  config.plugins = [path.join(defaultRoot, 'scripts/redocly/platform.cjs')];
  delete config.apis;
  writeFileSync(path.join(root, 'redocly.yaml'), stringify(config));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** `file` with one exact piece of text replaced; a replacement that finds nothing is a broken test. */
function edit(base: Files, file: string, from: string, to: string): Files {
  const text = base[file]!;
  if (!text.includes(from)) throw new Error(`${file} has no ${JSON.stringify(from)}`);
  return { ...base, [file]: text.replace(from, to) };
}

/** Each service gets its own folder, so no document is read from a cache of an earlier case. */
async function lint(service: Files): Promise<{ problems: LintProblem[]; at: (file: string, key: string, occurrence?: number) => string }> {
  const slug = `case-${++cases}`;
  const dir = path.join(root, 'openapi', slug);
  for (const [file, text] of Object.entries(service)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  const problems = await lintService(root, { slug, root: path.join(dir, 'openapi.yaml') });
  /** `openapi/case-N/<file>:line:col` of the `occurrence`-th line that starts with `key` (after indentation). */
  const at = (file: string, key: string, occurrence = 1) => {
    const lines = service[file]!.split('\n');
    let seen = 0;
    const index = lines.findIndex((line) => line.trimStart().startsWith(key) && ++seen === occurrence);
    if (index < 0) throw new Error(`${file} has no line starting with ${key}`);
    return `openapi/${slug}/${file}:${index + 1}:${lines[index]!.indexOf(key) + 1}`;
  };
  return { problems, at };
}

const brief = (problems: LintProblem[]) => problems.map(({ rule, where }) => ({ rule, where }));

test('the service that follows every rule lints clean', async () => {
  const { problems } = await lint(files);
  expect(problems).toEqual([]);
});

describe('platform/operation-one-tag', () => {
  test('an operation without tags is reported at the operation (the built-in rule let it pass)', async () => {
    const { problems, at } = await lint(edit(files, 'paths/health.yaml', '  tags: [Items]\n', ''));
    expect(brief(problems)).toEqual([{ rule: 'platform/operation-one-tag', where: at('paths/health.yaml', 'get:') }]);
  });

  test('an operation with two tags is reported at its tags', async () => {
    const { problems, at } = await lint(edit(files, 'paths/health.yaml', 'tags: [Items]', 'tags: [Items, Health]'));
    expect(brief(problems)).toEqual([{ rule: 'platform/operation-one-tag', where: at('paths/health.yaml', 'tags:') }]);
  });

  test('a webhook without its one tag is reported like any operation', async () => {
    const { problems, at } = await lint(edit(files, 'openapi.yaml', '      tags: [Items]\n', ''));
    expect(brief(problems)).toEqual([{ rule: 'platform/operation-one-tag', where: at('openapi.yaml', 'post:') }]);
  });
});

describe('security-defined', () => {
  test('without document-level security, an operation that declares none is reported; its own or `security: []` declares it', async () => {
    const service = edit(
      edit(files, 'openapi.yaml', 'security:\n  - bearerAuth: []\n', ''),
      'paths/items.yaml',
      '  tags: [Items]\n  parameters:',
      '  tags: [Items]\n  security:\n    - bearerAuth: []\n  parameters:',
    );
    const { problems, at } = await lint(service);
    expect(brief(problems)).toEqual([{ rule: 'security-defined', where: at('paths/items.yaml', 'post:') }]);
  });
});

describe('platform/operation-error-statuses', () => {
  test('a secured operation without 401 is reported at its responses', async () => {
    const service = edit(files, 'paths/items.yaml', "    '401':\n      $ref: ../components/responses/Unauthenticated.yaml\npost:", 'post:');
    const { problems, at } = await lint(service);
    expect(brief(problems)).toEqual([{ rule: 'platform/operation-error-statuses', where: at('paths/items.yaml', 'responses:') }]);
    expect(problems[0]!.message).toContain('401');
  });

  test('an operation whose only input is a path-level parameter must still declare 400 or 422', async () => {
    // A 409 keeps the built-in operation-4xx-response satisfied, so only the house rule speaks.
    const service = edit(files, 'paths/health.yaml', "    '400':", "    '409':");
    const { problems, at } = await lint(service);
    expect(brief(problems)).toEqual([{ rule: 'platform/operation-error-statuses', where: at('paths/health.yaml', 'responses:') }]);
    expect(problems[0]!.message).toContain('400 or 422');
  });

  test('a 422 answers for the input as well as a 400', async () => {
    const service = edit(files, 'paths/health.yaml', "    '400':", "    '422':");
    expect((await lint(service)).problems).toEqual([]);
  });

  test('a rate-limited operation without 429 is reported at its responses', async () => {
    const service = edit(files, 'paths/items.yaml', "    '429':\n      $ref: ../components/responses/RateLimited.yaml\n", '');
    const { problems, at } = await lint(service);
    expect(brief(problems)).toEqual([{ rule: 'platform/operation-error-statuses', where: at('paths/items.yaml', 'responses:', 2) }]);
    expect(problems[0]!.message).toContain('429');
  });

  test('a shared 429 without Retry-After is reported in the shared file', async () => {
    const { problems, at } = await lint(edit(files, 'components/responses/RateLimited.yaml', 'Retry-After:', 'X-Wait:'));
    expect(brief(problems)).toEqual([{ rule: 'platform/operation-error-statuses', where: at('components/responses/RateLimited.yaml', 'headers:') }]);
  });

  test('an error status without a body is reported at the status', async () => {
    const service = edit(files, 'paths/items.yaml', "    '401':\n      $ref: ../components/responses/Unauthenticated.yaml\npost:", "    '401':\n      description: Missing key.\npost:");
    const { problems, at } = await lint(service);
    expect(brief(problems)).toEqual([{ rule: 'platform/operation-error-statuses', where: at('paths/items.yaml', "'401':") }]);
  });
});

describe('platform/operation-examples', () => {
  test('a request body without an example is reported at its media type', async () => {
    const service = edit(files, 'paths/items.yaml', '        examples:\n          one:\n            value: {id: i3}\n', '');
    const { problems, at } = await lint(service);
    expect(brief(problems)).toEqual([{ rule: 'platform/operation-examples', where: at('paths/items.yaml', 'application/json:', 2) }]);
  });

  test('a main success without an example is reported at its media type', async () => {
    const service = edit(files, 'paths/health.yaml', '          example:\n            ok: true\n', '');
    const { problems, at } = await lint(service);
    expect(brief(problems)).toEqual([{ rule: 'platform/operation-examples', where: at('paths/health.yaml', 'application/json:') }]);
  });

  test('a webhook payload without an example is reported at its media type', async () => {
    const service = edit(files, 'openapi.yaml', '            examples:\n              created:\n                value: {id: i3}\n', '');
    const { problems, at } = await lint(service);
    expect(brief(problems)).toEqual([{ rule: 'platform/operation-examples', where: at('openapi.yaml', 'application/json:') }]);
  });
});

describe('platform/error-named-examples', () => {
  test('a shared error with only a bare example is reported once, at the example, for all three operations using it', async () => {
    const service = edit(files, 'components/responses/BadRequest.yaml', '    examples:\n      invalid:\n        value:\n', '    example:\n');
    const { problems, at } = await lint(service);
    expect(brief(problems)).toEqual([{ rule: 'platform/error-named-examples', where: at('components/responses/BadRequest.yaml', 'example:') }]);
  });

  test('an error without any example is reported at its media type', async () => {
    const service = edit(files, 'components/responses/Unauthenticated.yaml', '    examples:\n      missingKey:\n        value:\n          error: Missing API key\n', '');
    const { problems, at } = await lint(service);
    expect(brief(problems)).toEqual([{ rule: 'platform/error-named-examples', where: at('components/responses/Unauthenticated.yaml', 'application/json:') }]);
  });

  test('a named example the mock cannot serve (only an externalValue) does not count', async () => {
    const service = edit(files, 'components/responses/Unauthenticated.yaml', '        value:\n          error: Missing API key\n', '        externalValue: https://example.com/401.json\n');
    const { problems, at } = await lint(service);
    expect(brief(problems)).toEqual([{ rule: 'platform/error-named-examples', where: at('components/responses/Unauthenticated.yaml', 'application/json:') }]);
  });

  test('an inline error status gets the same rule', async () => {
    const inline = "    '401':\n      description: Missing key.\n      content:\n        application/json:\n          schema:\n            $ref: ../components/schemas/Error.yaml\npost:";
    const service = edit(files, 'paths/items.yaml', "    '401':\n      $ref: ../components/responses/Unauthenticated.yaml\npost:", inline);
    const { problems, at } = await lint(service);
    expect(brief(problems)).toEqual([{ rule: 'platform/error-named-examples', where: at('paths/items.yaml', 'application/json:', 2) }]);
  });
});
