/** Values a generator writes that JSON.stringify cannot: spliced into the encoded body by `encodeJson` (arbitraries.ts). */

/**
 * A raw JSON token spliced into the encoded body where JSON.stringify cannot write it: `1e309`
 * (parses to Infinity), `-1e309`, `NaN` (not JSON at all).
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** `times` copies of `item` as a JSON array, or `times` copies of a character as a string: oversized values that stay small until sent. */
export class Repeat {
  constructor(
    readonly item: unknown,
    readonly times: number,
    readonly asString = false,
  ) {}
}
