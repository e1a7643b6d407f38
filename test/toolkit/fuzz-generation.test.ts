/**
 * The fuzzer builds each operation's request generators once (scripts/lib/fuzz/chain-once.ts) and
 * draws from them: the requests are the very ones a generator built afresh for every draw would give.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { chainOnce } from '../../scripts/lib/fuzz/chain-once.js';

const operations = [{ name: 'a', max: 3 }, { name: 'b', max: 1_000 }, { name: 'c', max: 7 }];
const requestsOf = (op: (typeof operations)[number]) => fc.tuple(fc.constant(op.name), fc.integer({ min: 0, max: op.max }), fc.string({ maxLength: 4 }));

describe('chainOnce', () => {
  test('draws what a chain that builds afresh each time draws, from the same seed', () => {
    const settings = { seed: 20_260_601, numRuns: 300 };
    expect(fc.sample(chainOnce(fc.constantFrom(...operations), requestsOf), settings)).toEqual(fc.sample(fc.constantFrom(...operations).chain(requestsOf), settings));
  });

  test('builds one generator per value drawn, however often it is drawn', () => {
    const built: string[] = [];
    const arb = chainOnce(fc.constantFrom(...operations), (op) => {
      built.push(op.name);
      return requestsOf(op);
    });
    fc.sample(arb, { seed: 7, numRuns: 300 });
    expect(built.sort()).toEqual(['a', 'b', 'c']);
  });

  test('shrinks a failure as the plain chain does', () => {
    const fails = ([, n]: [string, number, string]) => n < 500;
    const shrunk = (arb: fc.Arbitrary<[string, number, string]>) => fc.check(fc.property(arb, fails), { seed: 3, numRuns: 500 }).counterexample;
    const counterexample = shrunk(chainOnce(fc.constantFrom(...operations), requestsOf));
    expect(counterexample).toEqual([['b', 500, '']]);
    expect(counterexample).toEqual(shrunk(fc.constantFrom(...operations).chain(requestsOf)));
  });
});
