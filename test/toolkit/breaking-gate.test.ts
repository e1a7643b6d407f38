/**
 * The breaking-change gate of `npm run check` on a temporary git repository: a small service and a
 * schema set committed on `main`, then a branch that makes an optional request field required,
 * removes a response field and removes an SSE frame field. The check fails on each (oasdiff for
 * the request and response, ours for the stream frame) until breaking-allowlist.yaml lists it with a
 * reason; an entry without a reason is refused, one that matches nothing is a warning.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { check, parseCheckArgs } from '../../scripts/check.js';
import { loadAllowlist, oasdiffBreaking, resolveBase } from '../../scripts/lib/breaking-gate.js';
import { build } from '../../scripts/lib/pipeline.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { asDocument } from '../helpers/fixture-document.js';

const CONTRACT = `openapi: 3.1.0
info:
  title: Gadgets (breaking-gate fixture)
  version: 1.0.0
  description: A small service for the breaking-change gate test.
servers:
  - url: http://localhost:4000/gadgets
tags:
  - name: Gadgets
    description: Gadgets.
security:
  - bearerAuth: []
paths:
  /gadgets:
    post:
      operationId: createGadget
      summary: Create a gadget
      description: Creates a gadget.
      tags: [Gadgets]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name]
              properties:
                name:
                  type: string
                color:
                  type: string
      responses:
        '201':
          description: The gadget.
          content:
            application/json:
              schema:
                type: object
                required: [id, name, color]
                properties:
                  id:
                    type: string
                  name:
                    type: string
                  color:
                    type: string
        '400':
          description: Invalid body.
  /gadgets/{id}/events:
    get:
      operationId: gadgetEvents
      summary: Stream gadget events
      description: The gadget's events as server-sent events.
      tags: [Gadgets]
      parameters:
        - name: id
          in: path
          required: true
          schema:
            type: string
      responses:
        '200':
          description: The event stream.
          content:
            text/event-stream:
              schema:
                oneOf:
                  - $ref: '#/components/schemas/MovedFrame'
                  - $ref: '#/components/schemas/StoppedFrame'
        '404':
          description: No such gadget.
components:
  securitySchemes:
    bearerAuth:
      type: http
      scheme: bearer
  schemas:
    MovedFrame:
      type: object
      required: [event, data]
      properties:
        event:
          type: string
          const: moved
        data:
          type: object
          required: [x, y]
          properties:
            x:
              type: number
            y:
              type: number
    StoppedFrame:
      type: object
      required: [event]
      properties:
        event:
          type: string
          const: stopped
`;

const SCHEMA = { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'https://contracts.platform.example/schemas/gadgets/Gadget.json', title: 'Gadget', type: 'object', required: ['id'], properties: { id: { type: 'string' }, size: { type: 'integer' } } };

let root: string;
const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
const edit = (rel: string, from: string, to: string) => {
  const file = path.join(root, rel);
  const text = readFileSync(file, 'utf8');
  expect(text, `${rel} holds ${from}`).toContain(from);
  writeFileSync(file, text.replace(from, to));
};
const allow = (entries: string) => writeFileSync(path.join(root, 'breaking-allowlist.yaml'), `allow:\n${entries}`);

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'contracts-breaking-'));
  cpSync(path.join(defaultRoot, 'scripts'), path.join(root, 'scripts'), { recursive: true });
  // The lint rules without the real services. The fixture is kept to what the gate compares, so
  // the house rules about error bodies and examples are off for it.
  const houseRules = ['operation-error-statuses', 'operation-examples', 'error-named-examples'].map((rule) => `      platform/${rule}: off`).join('\n');
  const config = `${readFileSync(path.join(defaultRoot, 'redocly.yaml'), 'utf8').replace(/\napis:[\s\S]*$/, '\n')}apis:\n  gadgets:\n    root: openapi/gadgets/openapi.yaml\n    rules:\n${houseRules}\n`;
  writeFileSync(path.join(root, 'redocly.yaml'), config);
  cpSync(path.join(defaultRoot, '.spectral.yaml'), path.join(root, '.spectral.yaml'));
  symlinkSync(path.join(defaultRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  mkdirSync(path.join(root, 'openapi/gadgets'), { recursive: true });
  writeFileSync(path.join(root, 'openapi/gadgets/openapi.yaml'), CONTRACT);
  mkdirSync(path.join(root, 'schemas/gadgets'), { recursive: true });
  writeFileSync(path.join(root, 'schemas/gadgets/Gadget.json'), `${JSON.stringify(SCHEMA, null, 2)}\n`);
  writeFileSync(path.join(root, '.gitignore'), 'node_modules\n.cache\ngenerated/docs\n');
  const result = await build({ root, docs: false });
  expect(result.failures).toEqual([]);
  git('init', '-q', '-b', 'main');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'base');
  git('checkout', '-q', '-b', 'feature');
}, 60_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the breaking-change gate', () => {
  test('passes on an unchanged branch, against the merge base with main, without running oasdiff on bundles equal to the base', async () => {
    // No oasdiff to run: a service whose bundle is the base's is not compared at all.
    vi.stubEnv('OASDIFF_BIN', path.join(root, 'no-such-oasdiff'));
    try {
      const result = await check(root);
      expect(result.messages).toEqual([]);
      expect(result.notes[0]).toMatch(/^breaking changes against the merge base with main \([0-9a-f]{7}\): 0/);
    } finally {
      vi.unstubAllEnvs();
    }
  }, 30_000);

  test('fails on committed breaks until each is allowlisted with a reason', async () => {
    const lines: string[] = [];
    edit('openapi/gadgets/openapi.yaml', '              required: [name]\n', '              required: [name, color]\n');
    edit('openapi/gadgets/openapi.yaml', '                required: [id, name, color]\n', '                required: [id, name]\n');
    edit('openapi/gadgets/openapi.yaml', '                  color:\n                    type: string\n        \'400\'', "        '400'");
    edit('openapi/gadgets/openapi.yaml', '          required: [x, y]\n', '          required: [x]\n');
    edit('openapi/gadgets/openapi.yaml', '            y:\n              type: number\n', '');
    expect((await build({ root, docs: false, log: (l) => lines.push(l) })).failures).toEqual([]);
    // The build prints the same list, against the same base.
    expect(lines.find((l) => l.startsWith('breaking gadgets '))).toMatch(/3 breaking changes against the merge base with main .*3 not allowlisted/);
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-am', 'breaks');

    const failing = await check(root);
    expect(failing.ok).toBe(false);
    const breaking = failing.messages.filter((m) => m.startsWith('breaking: gadgets '));
    expect(breaking).toEqual([
      'breaking: gadgets POST /gadgets: the request property `color` became required [request-property-became-required]',
      'breaking: gadgets POST /gadgets: removed the required property `color` from the response with the `201` status [response-required-property-removed]',
      'breaking: gadgets GET /gadgets/{id}/events: response 200 stream (gadgetEvents): frame moved.data.y was removed (it was required)',
    ]);
    expect(failing.advice.join('\n')).toContain('reason: "<why this break is acceptable>"');

    allow(`  - service: gadgets
    where: POST /gadgets
    id: request-property-became-required
    change: the request property \`color\` became required
    reason: Every client already sends a color (fixture).
  - service: gadgets
    where: POST /gadgets
    change: removed the required property \`color\` from the response with the \`201\` status
    reason: Nobody reads the color back (fixture).
  - service: gadgets
    where: GET /gadgets/{id}/events
    change: 'response 200 stream (gadgetEvents): frame moved.data.y was removed (it was required)'
    reason: ''
`);
    const noReason = await check(root);
    expect(noReason.messages).toContain('breaking: breaking-allowlist.yaml: entry 3 needs a non-empty reason');
    expect(noReason.messages).toContain('breaking: gadgets GET /gadgets/{id}/events: response 200 stream (gadgetEvents): frame moved.data.y was removed (it was required)');
    expect(noReason.messages.filter((m) => m.includes('POST /gadgets'))).toEqual([]);

    const text = readFileSync(path.join(root, 'breaking-allowlist.yaml'), 'utf8');
    writeFileSync(
      path.join(root, 'breaking-allowlist.yaml'),
      `${text.replace("reason: ''", 'reason: The stream is one-dimensional now (fixture).')}  - service: gadgets
    where: POST /gadgets
    change: something that no longer happens
    reason: left over
`,
    );
    const passing = await check(root);
    expect(passing.messages).toEqual([]);
    expect(passing.ok).toBe(true);
    expect(passing.notes[0]).toMatch(/: 3 \(3 allowlisted\)/);
    expect(passing.warnings).toEqual([expect.stringMatching(/entry no longer needed .*gadgets POST \/gadgets: something that no longer happens$/)]);

    // Merged, on main itself: nothing is compared, and no entry is called unneeded for that.
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'allowlisted');
    git('checkout', '-q', 'main');
    git('merge', '-q', '--ff-only', 'feature');
    try {
      const onMain = await check(root);
      expect(onMain.ok).toBe(true);
      expect(onMain.warnings).toEqual([]);
      expect(onMain.notes[0]).toMatch(/: 0 \(0 allowlisted\); the 4 allowlist entries are judged on branches, not on the base itself$/);
    } finally {
      git('checkout', '-q', '-b', 'feature-2');
    }
  }, 60_000);

  test('compares the standalone schemas from git, and --base picks another base', async () => {
    const file = path.join(root, 'schemas/gadgets/Gadget.json');
    writeFileSync(file, `${JSON.stringify({ ...SCHEMA, required: ['id', 'size'], properties: { id: { type: 'integer' }, size: { type: 'integer' } } }, null, 2)}\n`);
    await build({ root, docs: false });
    const result = await check(root);
    expect(result.messages.filter((m) => m.startsWith('breaking: gadgets schema'))).toEqual([
      'breaking: gadgets schema Gadget.json: size is now required',
      'breaking: gadgets schema Gadget.json: id type string became integer',
    ]);
    // Against the branch's own HEAD, the committed breaks are gone and only the schema edit is left.
    const againstHead = await check(root, { base: 'HEAD' });
    expect(againstHead.messages.filter((m) => /^breaking: gadgets (POST|GET)/.test(m))).toEqual([]);
    expect(againstHead.warnings).toHaveLength(4);
    expect((await check(root, { base: 'no-such-ref' })).messages).toContain('breaking: --base no-such-ref: no such commit');
  }, 60_000);
});

describe('oasdiff on JSON Schema 2020-12', () => {
  test('boolean schemas are read as the object schemas they equal, so a change beside them is still found', async () => {
    const doc = (required: string[]) => asDocument({
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {
        '/score': {
          post: {
            operationId: 'score',
            requestBody: {
              content: {
                'application/json': {
                  schema: { type: 'object', required, not: { required: ['a', 'b'], properties: { a: true, b: true } }, properties: { a: { type: 'string' }, b: true } },
                  example: { items: true },
                },
              },
            },
            responses: { 200: { description: 'ok' } },
          },
        },
      },
    });
    expect(await oasdiffBreaking('t', doc([]), doc([]))).toEqual([]);
    const findings = await oasdiffBreaking('t', doc([]), doc(['a']));
    expect(findings.map((f) => f.id)).toContain('request-property-became-required');
  });
});

describe('base resolution and arguments', () => {
  test('outside a git work tree the gate is skipped with a note', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'contracts-nogit-'));
    try {
      expect(resolveBase(dir)).toEqual({ kind: 'skip', note: expect.stringContaining('breaking-change gate skipped') });
      expect(resolveBase(dir, 'main')).toMatchObject({ kind: 'error' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('--base REF and --base=REF; anything else is refused', () => {
    expect(parseCheckArgs([])).toEqual({});
    expect(parseCheckArgs(['--base', 'origin/main'])).toEqual({ base: 'origin/main' });
    expect(parseCheckArgs(['--base=abc123'])).toEqual({ base: 'abc123' });
    expect(() => parseCheckArgs(['--bsae', 'x'])).toThrow(/unknown argument/);
  });

  test("the repository's allowlist is well-formed", () => {
    expect(loadAllowlist(defaultRoot).problems).toEqual([]);
  });
});
