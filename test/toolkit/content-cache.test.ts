/**
 * Results kept by content (scripts/lib/content-cache.ts): the same inputs answer the kept result
 * without computing; any changed input computes again; a kept file cut short is recomputed, not trusted.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { cachedByContent, contentKey } from '../../scripts/lib/content-cache.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'content-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test('the same inputs are computed once; another input, or the same bytes split otherwise, again', async () => {
  let computed = 0;
  const compute = async () => ({ n: ++computed });
  expect(await cachedByContent(root, 'probe', ['bundle', 'ruleset'], compute)).toEqual({ n: 1 });
  expect(await cachedByContent(root, 'probe', ['bundle', 'ruleset'], compute)).toEqual({ n: 1 });
  expect(await cachedByContent(root, 'probe', ['bundle', 'ruleset v2'], compute)).toEqual({ n: 2 });
  expect(await cachedByContent(root, 'probe', ['bundler', 'uleset'], compute)).toEqual({ n: 3 });
  expect(readdirSync(path.join(root, 'node_modules/.cache/probe'))).toHaveLength(3);
});

test('a kept entry cut short is computed again and rewritten', async () => {
  const file = path.join(root, 'node_modules/.cache/probe', `${contentKey(['torn'])}.json`);
  await cachedByContent(root, 'probe', ['torn'], async () => [1, 2, 3]);
  writeFileSync(file, '[1, 2');
  expect(await cachedByContent(root, 'probe', ['torn'], async () => [4])).toEqual([4]);
  expect(await cachedByContent(root, 'probe', ['torn'], async () => [5])).toEqual([4]);
});
