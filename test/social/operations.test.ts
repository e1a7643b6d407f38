/**
 * Every operation of the social bundle, called through the scenario (scripts/lib/scenarios/
 * social.ts) against a stub on a manual clock: the documented success status, a body valid for it
 * that says what it should, and every documented refusal with its status. The list of operations
 * comes from the bundle, so an operation added without a call fails the suite.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { socialScenario, type SocialFixture } from '../../scripts/lib/scenarios/social.js';
import { contract, KEY, startSocial, type SocialStub } from './support.js';
import { expectationFor } from '../../scripts/lib/scenarios/scenario.js';
import { listOperations } from '../../server-stubs/lib/openapi/document.js';

const { calls, expectations, refusals = [] } = socialScenario;

const bundleOperations = listOperations(contract.document).flatMap(({ op, path, method }) =>
  op.operationId ? [{ operationId: op.operationId, path, method, statuses: Object.keys(op.responses ?? {}) }] : [],
);
const operationOf = (id: string) => bundleOperations.find((o) => o.operationId === id)!;

let social: SocialStub;
let fixture: SocialFixture;
beforeAll(async () => {
  social = await startSocial();
  fixture = await socialScenario.setup({
    baseUrl: social.baseUrl,
    headers: { Authorization: `Bearer ${KEY}` },
    advance: async (seconds) => {
      social.clock.advance(seconds * 1000);
      return true;
    },
  });
});
afterAll(() => social.close());

describe('the social operations', () => {
  test('the bundle has the 7 operations, and each has a call', () => {
    expect(bundleOperations.map((o) => o.operationId).sort()).toEqual(
      ['generateVariants', 'schedulePost', 'listPosts', 'updatePost', 'reviewDrafts', 'listAccounts', 'getStats'].sort(),
    );
    expect(Object.keys(calls).sort()).toEqual(bundleOperations.map((o) => o.operationId).sort());
  });

  test.each(bundleOperations)('$operationId ($method $path): documented success, body valid and as expected', async (op) => {
    const result = await calls[op.operationId]!(fixture);
    const success = op.statuses.find((s) => /^2\d\d$/.test(s));
    expect(String(result.status), JSON.stringify(result.body)).toBe(success);
    expect(contract.responseErrors(op.path, op.method, result.status, result.body)).toEqual([]);
    expectationFor(expectations, op.operationId)!(result.body, fixture);
  });

  test.each(refusals.map((r) => [`${r.id} ${r.status}: ${r.why}`, r] as const))('%s', async (_name, refusal) => {
    const op = operationOf(refusal.id);
    const result = await refusal.call(fixture);
    expect(result.status, JSON.stringify(result.body)).toBe(refusal.status);
    expect(contract.responseErrors(op.path, op.method, result.status, result.body)).toEqual([]);
  });

  test('every declared status but 500 (and the framework\'s 401, 400 and 429) is reached by a refusal or a call', () => {
    const reached = new Set([...refusals.map((r) => `${r.id} ${r.status}`), ...bundleOperations.map((o) => `${o.operationId} ${o.statuses.find((s) => /^2/.test(s))}`)]);
    const framework = new Set(['400', '401', '429', '500']);
    const missing = bundleOperations.flatMap((o) => o.statuses.filter((s) => !framework.has(s) && !reached.has(`${o.operationId} ${s}`)).map((s) => `${o.operationId} ${s}`));
    expect(missing).toEqual([]);
  });
});
