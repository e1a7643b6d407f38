/** `platform/operation-examples` (scripts/redocly/rules/operation-examples.cjs): reported where it should be, and only there. */
import { describe, expect, test } from 'vitest';
import { brief, edit, files, lintFixture } from './fixture.js';

const { lint } = lintFixture();

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
