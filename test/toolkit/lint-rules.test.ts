/**
 * The house rules of CONVENTIONS §3 as Redocly lint rules: `npm run build` reports each at the file
 * and line to fix. The fixture service (lint-rules/fixture.ts) follows every rule and lints clean
 * with redocly.yaml's real rules; each platform rule's own tests break it in one place
 * (lint-rules/<rule>.test.ts, beside scripts/redocly/rules/<rule>.cjs); the built-in rules the house
 * relies on are checked here.
 */
import { describe, expect, test } from 'vitest';
import { brief, edit, files, lintFixture } from './lint-rules/fixture.js';

const { lint } = lintFixture();

test('the service that follows every rule lints clean', async () => {
  const { problems } = await lint(files);
  expect(problems).toEqual([]);
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

