/**
 * The test files' order and shards (test/helpers/cost-sequencer.ts): costliest first, shards of
 * about equal cost that together hold every file once, a file the cost table lacks counted as the median.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { byCost, costOf, readFileCosts, shardByCost } from '../helpers/cost-sequencer.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';

const costs = { 'a.test.ts': 90, 'b.test.ts': 60, 'c.test.ts': 40, 'd.test.ts': 30, 'e.test.ts': 20, 'f.test.ts': 10 };
const cost = costOf(costs);
const same = (file: string) => file;

describe('cost sequencer', () => {
  test('costliest first, ties by path; an unknown file costs the median', () => {
    expect(cost('new.test.ts')).toBe(40);
    expect(byCost(['f.test.ts', 'new.test.ts', 'a.test.ts', 'c.test.ts'], same, cost)).toEqual(['a.test.ts', 'c.test.ts', 'new.test.ts', 'f.test.ts']);
  });

  test('shards of about equal cost, each file in exactly one', () => {
    const files = Object.keys(costs);
    const shards = [1, 2].map((i) => shardByCost(files, i, 2, same, cost));
    expect(shards).toEqual([
      ['a.test.ts', 'd.test.ts', 'f.test.ts'],
      ['b.test.ts', 'c.test.ts', 'e.test.ts'],
    ]);
    expect(shards.map((s) => s.reduce((sum, f) => sum + cost(f), 0))).toEqual([130, 120]);
    const three = [1, 2, 3].flatMap((i) => shardByCost(files, i, 3, same, cost));
    expect(three.sort()).toEqual(files);
  });

  test('the committed table is keyed as the sequencer looks files up: the path from the root, with /', () => {
    const table = readFileCosts();
    expect(Object.entries(table).filter(([file, seconds]) => !/^test\/[\w./-]+\.test\.ts$/.test(file) || !(seconds >= 0))).toEqual([]);
    const here = path.relative(defaultRoot, fileURLToPath(import.meta.url)).split(path.sep).join('/');
    expect(readdirSync(path.join(defaultRoot, 'test/toolkit')).filter((f) => table[`test/toolkit/${f}`] !== undefined).length).toBeGreaterThan(10);
    expect(here).toBe('test/toolkit/cost-sequencer.test.ts');
  });
});
