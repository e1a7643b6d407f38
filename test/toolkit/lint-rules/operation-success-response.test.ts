/** `platform/operation-success-response` (scripts/redocly/rules/operation-success-response.cjs): reported where it should be, and only there. */
import { describe, expect, test } from 'vitest';
import { brief, edit, files, lintFixture } from './fixture.js';

const { lint } = lintFixture();

const healthy = "    '200':\n      description: Healthy.\n      content:\n        application/json:\n          schema:\n            type: object\n            properties:\n              ok:\n                type: boolean\n          example:\n            ok: true\n";

describe('platform/operation-success-response', () => {
  test('an operation without a 2xx or 3xx is reported at its responses', async () => {
    const { problems, at } = await lint(edit(files, 'paths/health.yaml', healthy, ''));
    expect(brief(problems)).toEqual([{ rule: 'platform/operation-success-response', where: at('paths/health.yaml', 'responses:') }]);
  });

  test('a redirect is a success (the built-in operation-2xx-response would refuse it)', async () => {
    const redirect = "    '302':\n      description: Healthy, elsewhere.\n      headers:\n        Location:\n          schema:\n            type: string\n";
    expect((await lint(edit(files, 'paths/health.yaml', healthy, redirect))).problems).toEqual([]);
  });
});
