import { createHash } from 'node:crypto';

/** Full length of the stand-in vectors; `dimensions` asks for a prefix of it. */
export const EMBEDDING_DIMENSIONS = 256;

/**
 * A deterministic unit vector for a text: SHA-256 in counter mode gives the components, so the
 * same text always embeds the same, and two different texts almost surely differ. It stands in for
 * a model: similar texts are not near each other.
 */
export function embed(text: string, dimensions = EMBEDDING_DIMENSIONS): number[] {
  const values: number[] = [];
  for (let block = 0; values.length < dimensions; block++) {
    const digest = createHash('sha256').update(`${block}\u0000${text}`).digest();
    for (let i = 0; i + 2 <= digest.length && values.length < dimensions; i += 2) values.push(digest.readUInt16LE(i) / 32767.5 - 1);
  }
  // Rounded to float32 first, so the base64 form decodes to exactly these numbers.
  const norm = Math.hypot(...values) || 1;
  return values.map((v) => Math.fround(v / norm));
}

/** The OpenAI base64 form: the vector's little-endian float32 bytes. */
export function toBase64Float32(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((v, i) => bytes.writeFloatLE(v, i * 4));
  return bytes.toString('base64');
}
