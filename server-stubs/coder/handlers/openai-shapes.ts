/** Shapes and conversions of the OpenAI-style routes: request content to router messages, ids. */
import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/coder/types.gen.js';
import type { RouterMessage } from '../router.js';

type Schemas = components['schemas'];
export type ChatCompletion = Schemas['PlatformChatCompletion'];
export type ChatMessage = Schemas['PlatformChatMessage'];
export type ResponseObject = Schemas['PlatformResponse'];
export type ResponseInputItem = Schemas['PlatformResponseInputItem'];

/**
 * `chatcmpl-…`, `modr-…`: the OpenAI id styles, random hex (up to 32 digits). Taken from
 * `randomUUID`, which draws on a cached pool: a `randomBytes` call per answer was a twentieth of a
 * chat completion's CPU.
 */
export const openAIId = (prefix: string, bytes = 12) => `${prefix}${randomUUID().replaceAll('-', '').slice(0, bytes * 2)}`;

/** A text or a list of parts as the router's plain text: the text parts joined, the others dropped. */
export function textOf(content: string | null | undefined | ReadonlyArray<{ type: string; text?: string }>, partTypes: readonly string[]): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .filter((p) => partTypes.includes(p.type) && typeof p.text === 'string')
    .map((p) => p.text)
    .join('\n');
}

/** Chat roles as the router knows them; `developer` is the newer name of `system`. */
export function chatToRouter(messages: readonly ChatMessage[]): RouterMessage[] {
  return messages.map((m) => ({ role: m.role === 'developer' ? 'system' : m.role, content: textOf(m.content, ['text']) }));
}

export function responseInputToRouter(input: string | readonly ResponseInputItem[]): RouterMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return input.map((item) => ({
    role: item.role === 'developer' ? 'system' : item.role,
    content: textOf(item.content, ['input_text', 'output_text']),
  }));
}

/** The smaller of two optional token caps. */
export function tokenCap(...caps: Array<number | null | undefined>): number | undefined {
  const given = caps.filter((c): c is number => typeof c === 'number');
  return given.length ? Math.min(...given) : undefined;
}
