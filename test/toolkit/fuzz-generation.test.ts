/**
 * The fuzzer builds each operation's request generators once (scripts/lib/fuzz/chain-once.ts) and
 * draws from them: the requests are the very ones a generator built afresh for every draw would give.
 * Its strings of any scalar value and its URLs (scripts/lib/fuzz/scalar-strings.ts) draw and shrink
 * as fast-check's `binary` strings and `webUrl` do.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { chainOnce } from '../../scripts/lib/fuzz/chain-once.js';
import { scalarString, scalarValue, webUrl } from '../../scripts/lib/fuzz/scalar-strings.js';

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

/**
 * What fast-check 4.10's own `fc.string({ unit: 'binary', maxLength: 12 })` and `fc.webUrl()` draw
 * and shrink to from these seeds, taken from them once: building those two here would fill the very
 * table of 1.1 million characters scalar-strings.ts avoids, in whichever worker runs this file. If
 * a fast-check upgrade changes them, compare scalar-strings.ts with fast-check's webUrl.ts again.
 */
const drawn = (arb: fc.Arbitrary<string>) => createHash('sha256').update(JSON.stringify(fc.sample(arb, { seed: 29, numRuns: 300 }))).digest('hex');
const shrunkTo = (arb: fc.Arbitrary<string>, holds: (s: string) => boolean) => fc.check(fc.property(arb, holds), { seed: 29, numRuns: 300 }).counterexample;

describe('scalar strings and URLs', () => {
  test("draw what fast-check's binary strings and webUrl draw, from the same seed", () => {
    expect(drawn(scalarString({ maxLength: 12 }))).toBe('8f2a44fed02ae394ef6d557e15d090ca9f1e416e12764e591be2ffa86b4ba292');
    expect(drawn(webUrl)).toBe('09996d24758db46d6d05ec50a3b5cd8974d0465212f406336f82eb5e840ccb37');
  });

  test('shrink a failure to what fast-check shrinks it to', () => {
    expect(shrunkTo(scalarString({ maxLength: 12 }), (s) => !/[^\x00-\x7f]/.test(s))).toEqual(['\x80']);
    expect(shrunkTo(webUrl, (s) => !s.includes('%'))).toEqual(['http://a.aa/%00']);
  });

  test('take back, for shrinking, exactly the strings of one scalar value', () => {
    expect(scalarValue.canShrinkWithoutContext('𝕏')).toBe(true);
    expect(scalarValue.canShrinkWithoutContext('\u{10ffff}')).toBe(true);
    expect(scalarValue.canShrinkWithoutContext('\ud800')).toBe(false);
    expect(scalarValue.canShrinkWithoutContext('ab')).toBe(false);
    expect(scalarValue.canShrinkWithoutContext('')).toBe(false);
  });
});
