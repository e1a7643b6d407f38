/**
 * The fixture of the house rules' tests (one test file per rule of scripts/redocly/rules/): a small
 * service that follows every rule, edited to break one, linted by the build's own lintService with
 * redocly.yaml's real rules, so switching a rule off in redocly.yaml fails its tests.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { parse, stringify } from 'yaml';
import { defaultRoot } from '../../../server-stubs/lib/root.js';
import { lintService, type LintProblem } from '../../../scripts/steps/lint.js';

export type Files = Record<string, string>;

/** A small service that follows every house rule: each rule's test breaks it in one place. */
export const files: Files = {
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

/**
 * A project folder of its own for the calling test file, with redocly.yaml's real rules (only the
 * plugin path made absolute), made before its tests and removed after.
 */
export function lintFixture(): { lint: (service: Files) => Promise<Linted> } {
  let root: string;
  let cases = 0;
  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'contracts-lint-rules-'));
    const config = parse(readFileSync(path.join(defaultRoot, 'redocly.yaml'), 'utf8'));
    config.plugins = [path.join(defaultRoot, 'scripts/redocly/platform.cjs')];
    delete config.apis;
    writeFileSync(path.join(root, 'redocly.yaml'), stringify(config));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** Each service gets its own folder, so no document is read from a cache of an earlier case. */
  async function lint(service: Files): Promise<Linted> {
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
  return { lint };
}

export interface Linted {
  problems: LintProblem[];
  at: (file: string, key: string, occurrence?: number) => string;
}

/** `file` with one exact piece of text replaced; a replacement that finds nothing is a broken test. */
export function edit(base: Files, file: string, from: string, to: string): Files {
  const text = base[file]!;
  if (!text.includes(from)) throw new Error(`${file} has no ${JSON.stringify(from)}`);
  return { ...base, [file]: text.replace(from, to) };
}

export const brief = (problems: LintProblem[]) => problems.map(({ rule, where }) => ({ rule, where }));
