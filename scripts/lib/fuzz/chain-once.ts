/**
 * `arb.chain(build)` with each value's generator built once. fast-check calls the chainer for every
 * value drawn, so a request family that picks an operation, then builds that operation's generators,
 * would build them again for every request. A generator holds no state and `build` draws nothing, so
 * the one built for a value draws, and shrinks, exactly as a fresh one would.
 *
 * Keyed by identity: meant for values drawn from a fixed list (operations, parameters, paths, indexes).
 */
import type fc from 'fast-check';

export function chainOnce<T, U>(arb: fc.Arbitrary<T>, build: (value: T) => fc.Arbitrary<U>): fc.Arbitrary<U> {
  const built = new Map<T, fc.Arbitrary<U>>();
  return arb.chain((value) => {
    let chained = built.get(value);
    if (chained === undefined) {
      chained = build(value);
      built.set(value, chained);
    }
    return chained;
  });
}
