/** `platform/error-named-examples` (scripts/redocly/rules/error-named-examples.cjs): reported where it should be, and only there. */
import { describe, expect, test } from 'vitest';
import { brief, edit, files, lintFixture } from './fixture.js';

const { lint } = lintFixture();

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
