/**
 * `npm run new-service -- <slug>` gives a service that passes at once: its contract lints clean and
 * builds, its stub and scenario type-check, its test passes and so does the conformance test, whose
 * strict regime its scenario satisfies, in a copy of the toolkit (so this repository's service list
 * is untouched); a scaffolded service without its scenario is held to its contract's examples. The
 * compiler then names an operation whose handler is missing, and the scaffold refuses a bad slug or
 * an existing service without writing anything.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { scaffoldService, ScaffoldRefused } from '../../scripts/lib/scaffold.js';

const run = promisify(execFile);
const slug = 'inventory-hub';
/**
 * A second scaffolded service, whose scenario is taken away: the one conformance run holds it to its
 * contract's examples beside the first on its scenario (a vitest run in the copy costs more than a
 * service's tests). Its name is no prefix of the first's, so `test/${slug}` selects only that one's test.
 */
const bare = 'bare-inventory';
let copy = '';

/** Runs a command in the copy; resolves with its exit code and output whatever the code. */
async function inCopy(command: string, args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: copy, env: { ...process.env, CI: '' }, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

const node = (script: string, ...args: string[]) => inCopy(process.execPath, ['--import', 'tsx', script, ...args]);
/** The compiler of `npm run typecheck`, which the scaffold tells its user to run (TypeScript 7's; 5.9 reports the same, slower), with one checker: the suite's workers already fill the cores. */
const tsc = () => inCopy(process.execPath, [path.join(copy, 'node_modules/typescript-7/bin/tsc'), '--noEmit', '-p', 'tsconfig.scaffold.json', '--checkers', '1']);

beforeAll(async () => {
  // The toolkit without its services: the pipeline, the stub framework (with the event-stream line
  // ends it shares with the clients, and the types of its own controls contract, which its coverage
  // report answers in), the test helpers.
  copy = mkdtempSync(path.join(os.tmpdir(), 'new-service-'));
  // Then what the conformance test needs beyond the toolkit: the servers and the test itself.
  for (const part of ['scripts', 'server-stubs/lib', 'clients/event-stream', 'openapi/stub-controls', 'generated/stub-controls', 'test/helpers', 'test/reporters', 'package.json', 'tsconfig.json', 'vitest.config.ts', 'server-stubs/server.ts', 'mock', 'test/toolkit/conformance.test.ts']) {
    cpSync(path.join(defaultRoot, part), path.join(copy, part), { recursive: true });
  }
  symlinkSync(path.join(defaultRoot, 'node_modules'), path.join(copy, 'node_modules'));
  const redocly = readFileSync(path.join(defaultRoot, 'redocly.yaml'), 'utf8');
  // The services' entries go; the controls' stays, with its own rule settings.
  const controls = /\n {2}stub-controls:\n(?: {4}.*\n)+/.exec(redocly.slice(redocly.indexOf('\napis:')))?.[0];
  if (!controls) throw new Error('redocly.yaml no longer lists stub-controls under apis');
  writeFileSync(path.join(copy, 'redocly.yaml'), `${redocly.slice(0, redocly.indexOf('\napis:'))}\napis:${controls}`);
  writeFileSync(
    path.join(copy, 'tsconfig.scaffold.json'),
    JSON.stringify({ extends: './tsconfig.json', include: [`server-stubs/${slug}`, `test/${slug}`, `generated/${slug}`, `scripts/lib/scenarios/${slug}.ts`, `server-stubs/${bare}`, `generated/${bare}`] }),
  );
  // Written before the command below runs, whose build then builds and registers it too.
  await scaffoldService(copy, bare);
  rmSync(path.join(copy, 'scripts', 'lib', 'scenarios', `${bare}.ts`));
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

interface VitestTest {
  /** the test's describe titles and its own, joined by spaces */
  name: string;
  status: string;
  failureMessages: string[];
}

interface VitestRun {
  code: number;
  output: string;
  /** each test file's tests, by its path in the copy */
  files: Map<string, VitestTest[]>;
}

/** vitest in the copy, with its JSON report beside the usual output for each file's results. */
async function vitest(args: string[]): Promise<VitestRun> {
  const report = path.join(copy, '.vitest-report.json');
  rmSync(report, { force: true });
  const reporters = ['--reporter=default', '--reporter=./test/reporters/summary-line.ts', '--reporter=json', `--outputFile.json=${report}`];
  const { code, output } = await inCopy(process.execPath, [path.join(copy, 'node_modules/vitest/vitest.mjs'), 'run', ...args, ...reporters]);
  const files = new Map<string, VitestTest[]>();
  if (existsSync(report)) {
    const results = JSON.parse(readFileSync(report, 'utf8')) as { testResults: Array<{ name: string; assertionResults: Array<{ fullName: string; status: string; failureMessages?: string[] }> }> };
    for (const file of results.testResults) {
      files.set(
        path.relative(copy, file.name),
        file.assertionResults.map((test) => ({ name: test.fullName, status: test.status, failureMessages: test.failureMessages ?? [] })),
      );
    }
    rmSync(report);
  }
  return { code, output, files };
}

/**
 * The service's own test and the conformance test of both scaffolded services, in one vitest run and
 * one worker (starting a run or a worker costs more than the services' tests): the development
 * controls' conformance is not what this file is about, nor is the mock of the service without a
 * scenario (its stub is).
 */
let ownAndConformance: Promise<VitestRun> | undefined;
const runOwnAndConformance = () => (ownAndConformance ??= vitest([`test/${slug}`, 'test/toolkit/conformance.test.ts', '-t', `^(?!stub-controls |${bare} mock: )`, '--maxWorkers=1']));
/**
 * One compile of both scaffolds, once the conformance run has served the second whole: its handler
 * of deleteItem taken out, the compiler must name that operation there and find nothing in the first
 * (a compile costs about as much as either check).
 */
let compiled: Promise<{ code: number; output: string; errors: string[] }> | undefined;
const compileBoth = () =>
  (compiled ??= runOwnAndConformance().then(async () => {
    const file = path.join(copy, 'server-stubs', bare, 'handlers', 'items.ts');
    const original = readFileSync(file, 'utf8');
    const broken = original.replace(/ {4}deleteItem: [\s\S]*?\n {4}\},\n/, '');
    if (broken === original) throw new Error(`${file} no longer has the deleteItem handler this test takes out`);
    writeFileSync(file, broken);
    const checked = await tsc();
    return { ...checked, errors: checked.output.split('\n').filter((line) => /error TS\d+/.test(line)) };
  }));
const conformanceTests = (run: VitestRun, service: string) => (run.files.get('test/toolkit/conformance.test.ts') ?? []).filter((test) => test.name.startsWith(`${service} `));

/** Every file of the copy but its dependencies, with when it last changed: what a refusal must leave as it was. */
function snapshot(dir = copy): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.name === 'node_modules') return [];
    return entry.isDirectory() ? snapshot(full) : [`${path.relative(copy, full)} ${statSync(full).mtimeMs}`];
  });
}

describe('npm run new-service', () => {
  test('writes a contract that lints clean and builds, and registers it', async () => {
    const { code, output } = await node('scripts/new-service.ts', slug, '--title', 'Inventory hub');
    expect(code, output).toBe(0);
    expect(output).toMatch(new RegExp(`lint +${slug} +\\d+ ms +clean`));
    for (const file of ['openapi.json', 'types.gen.ts', 'client.gen.ts']) expect(existsSync(path.join(copy, 'generated', slug, file)), file).toBe(true);
    expect(readFileSync(path.join(copy, 'redocly.yaml'), 'utf8')).toContain(`root: openapi/${slug}/openapi.yaml`);
    expect(JSON.parse(readFileSync(path.join(copy, 'generated', slug, 'openapi.json'), 'utf8')).info.title).toBe('Inventory hub API');
  }, 120_000);

  test('its stub type-checks and its own test passes', async () => {
    const tested = await runOwnAndConformance();
    const own = [...tested.files].filter(([file]) => file.startsWith(`test/${slug}/`));
    expect(own.length, tested.output).toBeGreaterThan(0);
    for (const [file, tests] of own) {
      expect(tests.filter((test) => test.status !== 'passed'), `${file}\n${tested.output}`).toEqual([]);
      expect(tests.length, `${file}\n${tested.output}`).toBeGreaterThan(0);
    }
    // The compiler ran over the program (it reports the error put into the second scaffold, below), and that is all it reports.
    const checked = await compileBoth();
    expect(checked.errors.length, checked.output).toBeGreaterThan(0);
    expect(checked.errors.filter((line) => !line.startsWith(`server-stubs/${bare}/`)), checked.output).toEqual([]);
  }, 180_000);

  test('writes its scenario where it is found, and the conformance test passes on the strict regime', async () => {
    expect(existsSync(path.join(copy, 'scripts', 'lib', 'scenarios', `${slug}.ts`))).toBe(true);
    const checked = await runOwnAndConformance();
    expect(checked.output).toMatch(new RegExp(`${slug} \\(scenario: every declared status\\): 4/4 implemented operations with a verified success`));
    // Its stub and its mock, both passed.
    expect(conformanceTests(checked, slug).map((test) => test.status), checked.output).toEqual(['passed', 'passed']);
    // The run's one failure is the service without a scenario (below), and the closing line counts it.
    const failed = [...checked.files.values()].flat().filter((test) => test.status === 'failed').map((test) => test.name);
    expect(failed, checked.output).toEqual([expect.stringMatching(new RegExp(`^${bare} stub: `))]);
    expect(checked.output).toMatch(/Tests: [1-9]\d* passed, 1 failed\b/);
  }, 180_000);

  test('without its scenario, the service is held to the example scenario of its contract', async () => {
    expect(existsSync(path.join(copy, 'scripts', 'lib', 'scenarios', `${bare}.ts`))).toBe(false);
    const checked = await runOwnAndConformance();
    // The stateful stub never made the items the examples name: no success to verify there, so it fails, and so does the run.
    expect(checked.code, checked.output).not.toBe(0);
    const stub = conformanceTests(checked, bare).filter((test) => test.name.startsWith(`${bare} stub: `));
    expect(stub.map((test) => test.status), checked.output).toEqual(['failed']);
    expect(checked.output).toMatch(new RegExp(`${bare} \\(no scenario: each example request answers a success\\): 2/4 implemented operations with a verified success`));
    expect(stub[0]!.failureMessages.join('\n')).toMatch(new RegExp(`without a verified success: their example requests got no success: give the service a scenario \\(scripts/lib/scenarios/${bare}\\.ts\\)[^]*getItem[^]*deleteItem`));
  }, 180_000);

  test('a missing handler is a compile error naming the operation', async () => {
    const checked = await compileBoth();
    expect(checked.code, checked.output).not.toBe(0);
    expect(checked.errors.length, checked.output).toBeGreaterThan(0);
    for (const error of checked.errors) expect(error, checked.output).toMatch(new RegExp(`^server-stubs/${bare}/.*deleteItem`));
  }, 180_000);

  // The command line's answer to a refusal (exit 2, the reason and the usage), once; each refusal's
  // reason and that it writes nothing, from the scaffold the command runs, without a process each.
  test('refuses an existing service, writing nothing, and exits 2', async () => {
    const before = snapshot();
    const { code, output } = await node('scripts/new-service.ts', slug);
    expect(code).toBe(2);
    expect(output).toMatch(/exists already/);
    expect(output).toMatch(/usage: npm run new-service -- <slug>/);
    expect(snapshot()).toEqual(before);
  }, 60_000);

  test.each([
    ['a slug whose scenario module exists', 'mail-fixture', /mail-fixture exists already \(scripts\/lib\/scenarios\/mail-fixture\.ts\)/],
    ['a slug with capitals', 'Inventory', /not a slug/],
    ['a path in the slug', '../escape', /not a slug/],
    ['a reserved name', 'lib', /reserved/],
  ])('refuses %s, writing nothing', async (_case, name, message) => {
    const before = snapshot();
    // A ScaffoldRefused is what the command answers with exit 2 and the usage (above).
    const refusal = await scaffoldService(copy, name).then(() => undefined, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(ScaffoldRefused);
    expect((refusal as Error).message).toMatch(message);
    expect(snapshot()).toEqual(before);
  });
});
