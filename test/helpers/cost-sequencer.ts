/**
 * The order and the shards of the test files by what each one costs (test/helpers/file-costs.json,
 * seconds per file of a whole run, written by `npm run bench -- tests`), so that neither depends on
 * a local cache a fresh clone lacks:
 * - costliest first, so that no long file starts last and runs alone at the end;
 * - `--shard=i/n` deals the files to n shards of about equal cost (each file to the cheapest shard
 *   so far, costliest first), where vitest's own deal is by a hash of the path and equal in count.
 * A file the table does not know yet counts as the median file.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export type FileCosts = Record<string, number>;

export function readFileCosts(file = path.join(import.meta.dirname, 'file-costs.json')): FileCosts {
  return JSON.parse(readFileSync(file, 'utf8')) as FileCosts;
}

/** Each file's cost, the median for one not in the table. */
export function costOf(costs: FileCosts): (file: string) => number {
  const known = Object.values(costs).sort((a, b) => a - b);
  const median = known[Math.floor(known.length / 2)] ?? 1;
  return (file) => costs[file] ?? median;
}

/** Costliest first; equal costs by path, so every shard and run sees the same order. */
export function byCost<T>(items: T[], fileOf: (item: T) => string, cost: (file: string) => number): T[] {
  return [...items].sort((a, b) => cost(fileOf(b)) - cost(fileOf(a)) || fileOf(a).localeCompare(fileOf(b)));
}

/** Shard `index` (1-based) of `count`: each file, costliest first, to the shard with the least cost so far. */
export function shardByCost<T>(items: T[], index: number, count: number, fileOf: (item: T) => string, cost: (file: string) => number): T[] {
  const shards = Array.from({ length: count }, () => ({ cost: 0, items: [] as T[] }));
  for (const item of byCost(items, fileOf, cost)) {
    const cheapest = shards.reduce((a, b) => (b.cost < a.cost ? b : a));
    cheapest.cost += cost(fileOf(item));
    cheapest.items.push(item);
  }
  return shards[index - 1]!.items;
}

export default class CostSequencer extends BaseSequencer {
  private readonly cost = costOf(readFileCosts());
  private readonly fileOf = (spec: TestSpecification) => path.relative(this.ctx.config.root, spec.moduleId).split(path.sep).join('/');

  override async shard(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { index, count } = this.ctx.config.shard!;
    return shardByCost(files, index, count, this.fileOf, this.cost);
  }

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return byCost(files, this.fileOf, this.cost);
  }
}
