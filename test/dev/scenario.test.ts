/**
 * The dev scenario (scripts/lib/scenarios/dev.ts, also run by the conformance test and
 * `npm run contract`) on a fresh stub: every call and refusal answers as it says, and its
 * expectations can fail on an answer that breaks a citation rule.
 */
import { AssertionError } from 'node:assert';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { checkGroundedAnswer, devScenario } from '../../scripts/lib/scenarios/dev.js';
import { runScenario } from '../../scripts/lib/scenarios/index.js';
import { expectCompletion, KEY, postSearch, startDev, type DevStub } from './support.js';

let dev: DevStub;
beforeAll(async () => {
  dev = await startDev();
});
afterAll(() => dev.close());

test('every call and refusal of the scenario answers as expected', async () => {
  const outcomes = await runScenario(devScenario, { baseUrl: dev.baseUrl, headers: { Authorization: `Bearer ${KEY}` }, advance: async () => false });
  expect(outcomes.flatMap((o) => o.problems)).toEqual([]);
  expect(outcomes.map((o) => [o.id, o.status])).toEqual([
    ['createSearch', 200],
    ['createSearch', 400],
    ['createSearch', 400],
    ['createSearch', 401],
  ]);
});

test('the answer checks catch a citation that does not slice its source or cites an unlisted url', async () => {
  const body = expectCompletion(await postSearch(dev.baseUrl, { query: 'How do ETags make HTTP caching cheaper?' }));
  const shifted = structuredClone(body);
  shifted.annotations[0]!.url_citation.start_index += 1;
  expect(() => checkGroundedAnswer(shifted)).toThrow(AssertionError);
  const unlisted = structuredClone(body);
  unlisted.annotations[0]!.url_citation.url = 'https://elsewhere.example/page';
  expect(() => checkGroundedAnswer(unlisted)).toThrow(AssertionError);
  const badSum = structuredClone(body);
  badSum.usage.total_tokens += 1;
  expect(() => checkGroundedAnswer(badSum)).toThrow(AssertionError);
});

test('the 503 is declared under its test switch', () => {
  expect(devScenario.underSwitch).toEqual([{ id: 'createSearch', status: 503, switch: 'DEV_RETRIEVAL=off' }]);
});
