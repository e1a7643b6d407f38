/** `platform/operation-one-tag` (scripts/redocly/rules/operation-one-tag.cjs): reported where it should be, and only there. */
import { describe, expect, test } from 'vitest';
import { brief, edit, files, lintFixture } from './fixture.js';

const { lint } = lintFixture();

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
