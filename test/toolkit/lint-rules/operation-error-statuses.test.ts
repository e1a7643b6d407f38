/** `platform/operation-error-statuses` (scripts/redocly/rules/operation-error-statuses.cjs): reported where it should be, and only there. */
import { describe, expect, test } from 'vitest';
import { brief, edit, files, lintFixture } from './fixture.js';

const { lint } = lintFixture();

describe('platform/operation-error-statuses', () => {
  test('a secured operation without 401 is reported at its responses', async () => {
    const service = edit(files, 'paths/items.yaml', "    '401':\n      $ref: ../components/responses/Unauthenticated.yaml\npost:", 'post:');
    const { problems, at } = await lint(service);
    expect(brief(problems)).toEqual([{ rule: 'platform/operation-error-statuses', where: at('paths/items.yaml', 'responses:') }]);
    expect(problems[0]!.message).toContain('401');
  });

  test('an operation whose only input is a path-level parameter must still declare 400 or 422', async () => {
    // A 409 keeps the built-in operation-4xx-response satisfied, so only the house rule speaks.
    const service = edit(files, 'paths/health.yaml', "    '400':", "    '409':");
    const { problems, at } = await lint(service);
    expect(brief(problems)).toEqual([{ rule: 'platform/operation-error-statuses', where: at('paths/health.yaml', 'responses:') }]);
    expect(problems[0]!.message).toContain('400 or 422');
  });

  test('a 422 answers for the input as well as a 400', async () => {
    const service = edit(files, 'paths/health.yaml', "    '400':", "    '422':");
    expect((await lint(service)).problems).toEqual([]);
  });

  test('a rate-limited operation without 429 is reported at its responses', async () => {
    const service = edit(files, 'paths/items.yaml', "    '429':\n      $ref: ../components/responses/RateLimited.yaml\n", '');
    const { problems, at } = await lint(service);
    expect(brief(problems)).toEqual([{ rule: 'platform/operation-error-statuses', where: at('paths/items.yaml', 'responses:', 2) }]);
    expect(problems[0]!.message).toContain('429');
  });

  test('a shared 429 without Retry-After is reported in the shared file', async () => {
    const { problems, at } = await lint(edit(files, 'components/responses/RateLimited.yaml', 'Retry-After:', 'X-Wait:'));
    expect(brief(problems)).toEqual([{ rule: 'platform/operation-error-statuses', where: at('components/responses/RateLimited.yaml', 'headers:') }]);
  });

  test('an error status without a body is reported at the status', async () => {
    const service = edit(files, 'paths/items.yaml', "    '401':\n      $ref: ../components/responses/Unauthenticated.yaml\npost:", "    '401':\n      description: Missing key.\npost:");
    const { problems, at } = await lint(service);
    expect(brief(problems)).toEqual([{ rule: 'platform/operation-error-statuses', where: at('paths/items.yaml', "'401':") }]);
  });
});
