import { Tiktoken } from 'js-tiktoken/lite';
import o200k_base from 'js-tiktoken/ranks/o200k_base';

let encoder: Tiktoken | undefined;

/** Tokens of a text in the o200k_base encoding; the encoder is built once, on first use. */
export function countTokens(text: string): number {
  encoder ??= new Tiktoken(o200k_base);
  return encoder.encode(text).length;
}
