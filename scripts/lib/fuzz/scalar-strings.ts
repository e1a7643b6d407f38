/**
 * Generators that draw exactly as fast-check's `fc.string({ unit: 'binary' })` and `fc.webUrl()`,
 * without the table those two build.
 *
 * fast-check's `binary` unit (any Unicode scalar value) is a `mapToConstant` over 1,112,064 values.
 * Building a string generator on it asks whether its sample strings (`__proto__`, ...) can be
 * written in that unit, and `mapToConstant` answers by filling a reverse Map of all 1.1 million
 * values, kept as long as the process lives, which every later full garbage collection walks (a
 * vitest worker runs many files; bench/RESULTS.md has the cost). `fc.webUrl()` builds the
 * same unit for its percent-encoded characters. Here the unit maps the same index to the same
 * character and back by arithmetic, and the URL generator is fast-check's own composition
 * (fast-check 4, src/arbitrary/webUrl.ts with its defaults) on that unit: the same draws and
 * shrinks from the same seed, no table. fuzz-generation.test.ts pins the sameness.
 */
import fc from 'fast-check';

const SURROGATES_START = 0xd800;
const SURROGATES = 0xe000 - 0xd800;
/** the index of U+10FFFF, the last scalar value, once the surrogates are left out */
const LAST_INDEX = 0x10ffff - SURROGATES;

/** The index of a one-code-point string, for shrinking a value given from outside; throws for anything else. */
function scalarIndex(value: unknown): number {
  const codePoint = typeof value === 'string' ? value.codePointAt(0) : undefined;
  if (codePoint === undefined || String.fromCodePoint(codePoint) !== value || (codePoint >= SURROGATES_START && codePoint < SURROGATES_START + SURROGATES)) {
    throw new Error('not one Unicode scalar value');
  }
  return codePoint < SURROGATES_START ? codePoint : codePoint - SURROGATES;
}

/** One Unicode scalar value: fast-check's `binary` string unit, index for index. */
export const scalarValue: fc.Arbitrary<string> = fc
  .nat({ max: LAST_INDEX })
  .map((index) => String.fromCodePoint(index < SURROGATES_START ? index : index + SURROGATES), scalarIndex);

/** `fc.string({ unit: 'binary', ...constraints })`, drawing the same strings. */
export function scalarString(constraints: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<string> {
  return fc.string({ ...constraints, unit: scalarValue });
}

/** A character as a URL writes it: itself where `encodeURIComponent` leaves it, else percent-encoded. */
function percentEncoded(c: string): string {
  const encoded = encodeURIComponent(c);
  return c !== encoded ? encoded : `%${c.charCodeAt(0).toString(16)}`;
}

function percentDecoded(value: unknown): string {
  if (typeof value !== 'string') throw new Error('not a string');
  return decodeURIComponent(value);
}

const lettersAndDigits = (others: string) =>
  fc.mapToConstant(
    { num: 26, build: (v) => String.fromCharCode(v + 0x61) },
    { num: 26, build: (v) => String.fromCharCode(v + 0x41) },
    { num: 10, build: (v) => String.fromCharCode(v + 0x30) },
    { num: others.length, build: (v) => others[v]! },
  );

/** A path segment's characters: mostly letters, digits and the segment's own punctuation, sometimes any percent-encoded character. */
const segmentUnit = fc.oneof(
  { weight: 10, arbitrary: lettersAndDigits("-._~!$&'()*+,;=:@") },
  { weight: 1, arbitrary: scalarString({ minLength: 1, maxLength: 1 }).map(percentEncoded, percentDecoded) },
);

const webSegment = (size: fc.Size) => fc.string({ unit: segmentUnit, size });

function pathOf(segments: string[]): string {
  return segments.map((s) => `/${s}`).join('');
}

function segmentsOf(value: unknown): string[] {
  if (typeof value !== 'string') throw new Error('not a string');
  if (value.length !== 0 && value[0] !== '/') throw new Error('not a path');
  return value.split('/').slice(1);
}

/** `fc.webPath()` at fast-check's default size (`small`): segments of one size, counted by the other. */
const webPath = fc.oneof(
  fc.array(webSegment('small'), { size: 'xsmall' }).map(pathOf, segmentsOf),
  fc.array(webSegment('xsmall'), { size: 'small' }).map(pathOf, segmentsOf),
);

const URL_PARTS = /^(https?):\/\/([^/?#]*)([^?#]*)$/;

/** `fc.webUrl()`: http or https, a domain, a path; no user, port, query or fragment. */
export const webUrl: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('http', 'https'), fc.webAuthority({ size: 'small' }), webPath, fc.constant(null), fc.constant(null))
  .map(
    ([scheme, authority, path]) => `${scheme}://${authority}${path}`,
    (value) => {
      const m = typeof value === 'string' ? URL_PARTS.exec(value) : null;
      if (!m) throw new Error('not a URL of this generator');
      return [m[1] as 'http' | 'https', m[2]!, m[3]!, null, null];
    },
  );
