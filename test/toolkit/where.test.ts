/**
 * `npm run where` answers for every operation of every service, and every answer points at a file
 * and line that exist and hold what it names: the `get:`/`post:` of the operation in the contract's
 * source, the handler map's key, `operations['<id>']` in the generated types, each schema, each test.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { where } from '../../scripts/where.js';
import { Where, type SourceLocation, type WhereAnswer } from '../../scripts/lib/where/index.js';

const run = promisify(execFile);
const finder = new Where(defaultRoot);
const answers: WhereAnswer[] = finder.catalogue.map((entry) => finder.answer(entry));

const lineAt = (location: SourceLocation): string | undefined => {
  const file = path.join(defaultRoot, location.file);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n')[location.line - 1] : undefined;
};

/** The operation whose source and handler an alias shares: its `x-alias-of` twin, or itself. */
const writtenAs = (answer: WhereAnswer): string => {
  const entry = finder.catalogue.find((e) => e.service.slug === answer.service && e.operation.id === answer.operationId)!;
  const twin: unknown = entry.operation.op['x-alias-of'];
  return typeof twin === 'string' && answer.spec?.note ? twin : answer.operationId;
};

describe('npm run where: every operation of every service', () => {
  test('walks the services the repository holds', () => {
    expect(new Set(answers.map((a) => a.service))).toEqual(new Set(['blog', 'coder', 'dev', 'mail', 'reach', 'seo', 'social', 'stub-controls']));
    expect(answers.length).toBeGreaterThan(200);
  });

  test.each(answers.map((a) => [`${a.service} ${a.operationId}`, a] as const))('%s', (_name, answer) => {
    const [method] = answer.route.split(' ');
    const twin = writtenAs(answer);
    const twinEntry = finder.catalogue.find((e) => e.service.slug === answer.service && e.operation.id === twin)!;

    expect(answer.spec, 'spec').toBeDefined();
    expect(answer.spec!.file).toMatch(new RegExp(`^openapi/${answer.service}/`));
    expect(lineAt(answer.spec!)?.trim()).toBe(`${twinEntry.operation.method}:`);
    const operationText = readFileSync(path.join(defaultRoot, answer.spec!.file), 'utf8').split('\n').slice(answer.spec!.line).join('\n');
    expect(operationText).toMatch(new RegExp(`operationId: ['"]?${twin}['"]?\\n`));
    expect(method!.toLowerCase()).toBe(finder.catalogue.find((e) => e.service.slug === answer.service && e.operation.id === answer.operationId)!.operation.method);

    for (const schema of answer.schemas) {
      const line = lineAt(schema);
      expect(line, `${schema.name} at ${schema.file}:${schema.line}`).toBeDefined();
      if (schema.line > 1) expect(line).toMatch(new RegExp(`^\\s*['"]?${schema.name}['"]?:`));
      else expect(path.basename(schema.file).replace(/\.(ya?ml|json)$/, '')).toBe(schema.name);
    }

    const handler = answer.handler;
    expect('file' in handler, `handler of ${answer.operationId}: ${handler.note}`).toBe(true);
    // An alias with a handler of its own (mail's revokeApiKeyFromDashboard) is keyed by its own name.
    if ('file' in handler) expect(lineAt(handler)).toMatch(new RegExp(`\\b(${answer.operationId}|${twin})\\b`));

    expect(answer.types, 'types').toBeDefined();
    expect(answer.types!.file).toBe(`generated/${answer.service}/types.gen.ts`);
    expect(lineAt(answer.types!)).toMatch(new RegExp(`^ {4}["']?${answer.operationId}["']?: \\{`));

    for (const file of answer.tests) expect(existsSync(path.join(defaultRoot, file)), file).toBe(true);
  });
});

describe('npm run where: queries', () => {
  test('a route as a client calls it, a concrete path, and the contract-relative path name the same operation', () => {
    const byId = where(defaultRoot, ['sendEmail']);
    expect(byId.code).toBe(0);
    expect(byId.out).toContain('POST /mail/v1/send  sendEmail  (mail)');
    expect(byId.out).toMatch(/handler {2}server-stubs\/mail\/sending\/handlers\/send\.ts:\d+/);
    expect(where(defaultRoot, ['POST /mail/v1/send']).out).toBe(byId.out);
    expect(where(defaultRoot, ['post', '/v1/send']).out).toBe(byId.out);
    expect(where(defaultRoot, ['POST /blog/v1/drafts/d_123/publish']).out).toContain('publishDraft');
  });

  test('an alias says it is written from its twin and served by the twin\'s handler', () => {
    const { out } = where(defaultRoot, ['POST /mail/api/v1/send']);
    expect(out).toContain('sendEmailViaApiAlias');
    expect(out).toContain('an alias of sendEmail');
    expect(out).toContain("served by its twin sendEmail's handler");
  });

  test('an unknown operation exits 2 with close matches, from the command line', async () => {
    const script = path.join(defaultRoot, 'scripts', 'where.ts');
    const failure = await run(process.execPath, ['--import', 'tsx', script, 'sendEmal'], { cwd: defaultRoot }).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stdout).toBe('');
    expect(failure?.stderr).toContain('No operation of any service is "sendEmal". Close matches: sendEmail');
  });

  test('no query is a usage error', () => {
    const { code, err } = where(defaultRoot, []);
    expect(code).toBe(2);
    expect(err).toMatch(/^Usage: npm run where/);
  });
});

describe('npm run where: a document with no stub of its own', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'where-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const contract = {
    openapi: '3.1.0',
    info: { title: 'Pets', version: '1' },
    paths: { '/pets': { get: { operationId: 'listPets', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } } } } },
    components: { schemas: { Pet: { type: 'object' } } },
  };
  mkdirSync(path.join(root, 'openapi', 'pets'), { recursive: true });
  mkdirSync(path.join(root, 'generated', 'pets'), { recursive: true });
  writeFileSync(path.join(root, 'openapi', 'pets', 'openapi.yaml'), JSON.stringify(contract, null, 2));
  writeFileSync(path.join(root, 'generated', 'pets', 'openapi.json'), JSON.stringify(contract));

  test('says it is served from its contract alone, and finds the inline path item and schema', () => {
    const { code, out } = where(root, ['GET /pets/pets']);
    expect(code).toBe(0);
    expect(out).toContain('listPets  (pets)');
    expect(out).toContain('spec     openapi/pets/openapi.yaml:9');
    expect(out).toContain('Pet  openapi/pets/openapi.yaml:');
    expect(out).toContain('(served from its contract alone (no server-stubs/pets/app.ts))');
  });
});
