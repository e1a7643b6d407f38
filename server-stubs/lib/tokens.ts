import { createRequire } from 'node:module';

/**
 * Token counts for every service that reports usage (coder, dev): one BPE tokenizer (o200k_base,
 * gpt-tokenizer's; the dev tests check it against js-tiktoken's) for every model, so counts are
 * estimates of any vendor's, and the same input always counts the same. Loading it is slow enough to
 * matter at start, so it is loaded on first use and a stub that never counts starts without it. Special-token text such as
 * `<|endoftext|>` in a prompt is counted as the text it is, not refused.
 *
 * BPE is quadratic in the length of one pre-token, so a long unbroken run (a megabyte of `x`)
 * would hold the event loop for minutes: runs longer than 32 characters are encoded in 32-character
 * slices, and text beyond 20,000 characters is estimated from its first 20,000.
 */
type Encoding = typeof import('gpt-tokenizer/encoding/o200k_base');
let loaded: Encoding | undefined;
// A synchronous load on first use: counting is synchronous, and most stub runs never count.
const tokenizer = () => (loaded ??= createRequire(import.meta.url)('gpt-tokenizer/cjs/encoding/o200k_base') as Encoding);
const asText = { disallowedSpecial: new Set<string>() };
const encode = (text: string) => tokenizer().encode(text, asText);
/**
 * The text of the first `max` of `tokens`, the tokens of whole pieces of `text`. gpt-tokenizer
 * decodes through one module-wide TextDecoder in streaming mode: a cut inside a character's bytes
 * leaves those bytes in it (the character is dropped from this text), to come out in front of the
 * next decode, another request's answer. Decoding the rest of the tokens, which end where a piece
 * ends, completes that character and leaves the decoder empty. Only a prefix of the text is kept,
 * should a decoder ever answer U+FFFD for the cut character instead.
 */
function decodePrefix(text: string, tokens: number[], max: number): string {
  let out = tokenizer().decode(tokens.slice(0, max));
  tokenizer().decode(tokens.slice(max));
  while (!text.startsWith(out)) out = out.slice(0, -1);
  return out;
}

const SLICE = 4096;
const RUN = 32;
const EXACT_UP_TO = 20_000;
/** Runs longer than RUN characters, kept as their own pieces; compiled once, not per slice. */
const LONG_RUNS = new RegExp(`(\\S{${RUN + 1},}|\\s{${RUN + 1},})`);

/** The text in pieces that encode fast, in order; their tokens joined are the text's (up to run slicing). */
function* safePieces(text: string): Generator<string> {
  // Most texts (a prompt, a model name) are one short slice with no long run: one piece, no split.
  if (text.length <= SLICE && !LONG_RUNS.test(text)) {
    if (text) yield text;
    return;
  }
  for (let at = 0; at < text.length; at += SLICE) {
    for (const part of text.slice(at, at + SLICE).split(LONG_RUNS)) {
      if (part.length <= RUN) {
        if (part) yield part;
      } else if (/^(\S+|\s+)$/.test(part)) {
        for (let i = 0; i < part.length; i += RUN) yield part.slice(i, i + RUN);
      } else yield part;
    }
  }
}

export function countTokens(text: string): number {
  if (!text) return 0;
  const head = text.length > EXACT_UP_TO ? text.slice(0, EXACT_UP_TO) : text;
  let count = 0;
  for (const piece of safePieces(head)) count += encode(piece).length;
  return head === text ? count : Math.ceil((count * text.length) / head.length);
}

/**
 * The text cut to at most `max` tokens, and whether it was cut. Exact over the first 20,000
 * characters; past them the cut is placed at the rate seen so far, as `countTokens` estimates (a
 * megabyte model name once held the event loop for two seconds here).
 */
export function truncateToTokens(text: string, max: number): { text: string; cut: boolean } {
  const tokens: number[] = [];
  let read = 0;
  for (const piece of safePieces(text)) {
    tokens.push(...encode(piece));
    read += piece.length;
    if (tokens.length > max) return { text: decodePrefix(text, tokens, Math.max(0, max)), cut: true };
    if (read >= EXACT_UP_TO && read < text.length) {
      const perToken = read / tokens.length;
      if (Math.ceil(text.length / perToken) <= max) break;
      // Never more than `max` by the count the answer reports, and never half a surrogate pair.
      for (let end = Math.floor(max * perToken); ; end -= Math.ceil(perToken)) {
        const cut = text.slice(0, /[\uD800-\uDBFF]/.test(text[end - 1] ?? '') ? end - 1 : end);
        if (countTokens(cut) <= max) return { text: cut, cut: true };
      }
    }
  }
  return { text, cut: false };
}

/** What every chat message costs beyond its text (role and separators), as chat formats count it. */
export const PER_MESSAGE_OVERHEAD = 3;

export function countChatTokens(messages: ReadonlyArray<{ content: string }>): number {
  return messages.reduce((sum, m) => sum + PER_MESSAGE_OVERHEAD + countTokens(m.content), 0);
}
