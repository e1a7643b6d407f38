/**
 * The code lint of `npm run check` (`--only lint`, npm test's `check: lint` step): oxlint with the
 * project's .oxlintrc.json over a temporary project holding the problems it must find, one of each
 * kind: in TypeScript a floating promise, a misused one, `await` on a non-promise, an explicit
 * `any` and a disable comment that suppresses nothing, while an `eslint-disable` comment that does
 * suppress one (as the tree's do) is honoured; in the plain JavaScript ESLint's recommended
 * correctness rules, Node's globals refused in the docs page's browser script and the browser's in
 * Node's, CommonJS's own allowed in a .cjs file. Generated code and fixtures are not linted. Each
 * finding is an error line `file:line:col  rule  message`.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { lintCode, type CodeLintResult } from '../../scripts/check.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';

const FILES: Record<string, string> = {
  'scripts/later.ts': `export async function later(): Promise<number> {
  return 1;
}
`,
  'scripts/planted.ts': `import { later } from './later.js';

export async function planted(n: number, x: unknown) {
  later();
  setTimeout(async () => {
    await later();
  }, 1);
  await n;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- honoured: the next line is not reported
  const kept: any = x;
  // eslint-disable-next-line @typescript-eslint/no-floating-promises -- suppresses nothing
  return [kept, x as any];
}
`,
  'scripts/clean.ts': `import { later } from './later.js';

export async function clean() {
  void later().catch(() => undefined);
  return await later();
}
`,
  'scripts/plugin.cjs': `const unused = 1;
exports.rule = { a: 1, a: 2 };
module.exports.where = window.location;
`,
  'scripts/steps/docs/assets/page.js': `document.title = process.env.TITLE;
export function shown() {
  return 1;
  document.title = 'never';
}
`,
  'generated/built.ts': 'export const loose: any = 1;\n',
  'test/fixtures/data.js': 'undefinedEverywhere();\n',
};

let root: string;
let result: CodeLintResult;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'contracts-code-lint-'));
  for (const file of ['.oxlintrc.json', 'tsconfig.json', 'package.json']) copyFileSync(path.join(defaultRoot, file), path.join(root, file));
  symlinkSync(path.join(defaultRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  result = await lintCode(root);
}, 120_000); // oxlint and tsgolint on a busy machine

afterAll(() => rmSync(root, { recursive: true, force: true }));

test('each planted problem is an error at its line and column under its rule; nothing else is reported', () => {
  for (const line of result.errors) expect(line).toMatch(/^\S+:\d+:\d+ {2}\S+ {2}\S/);
  const found = result.errors.map((line) => line.split(/ {2}/).slice(0, 2).join('  ')).sort();
  expect(found).toEqual(
    [
      'scripts/planted.ts:4:3  typescript/no-floating-promises',
      'scripts/planted.ts:5:23  typescript/no-misused-promises',
      'scripts/planted.ts:8:9  typescript/await-thenable',
      'scripts/planted.ts:11:3  unused-disable-directive',
      'scripts/planted.ts:12:22  typescript/no-explicit-any',
      'scripts/plugin.cjs:1:7  no-unused-vars',
      'scripts/plugin.cjs:2:18  no-dupe-keys',
      'scripts/plugin.cjs:3:24  no-undef',
      'scripts/steps/docs/assets/page.js:1:18  no-undef',
      'scripts/steps/docs/assets/page.js:4:3  no-unreachable',
    ].sort(),
  );
  expect(result.warnings).toEqual([]);
  // Every file but generated code and fixtures.
  expect(result.files).toBe(5);
});

test('a configuration oxlint cannot read fails the lint with what oxlint said, never an empty pass', async () => {
  const broken = mkdtempSync(path.join(os.tmpdir(), 'contracts-code-lint-'));
  try {
    writeFileSync(path.join(broken, '.oxlintrc.json'), '{ "rules": { "no-such-rule": "error" } }\n');
    writeFileSync(path.join(broken, 'a.js'), 'export const a = 1;\n');
    symlinkSync(path.join(defaultRoot, 'node_modules'), path.join(broken, 'node_modules'), 'dir');
    const { errors, files } = await lintCode(broken);
    expect(errors).toEqual([expect.stringMatching(/^\.oxlintrc\.json:0:0 {2}oxlint {2}oxlint did not report \(exit 1\): .*Rule 'no-such-rule' not found/)]);
    expect(files).toBe(0);
  } finally {
    rmSync(broken, { recursive: true, force: true });
  }
}, 60_000);
