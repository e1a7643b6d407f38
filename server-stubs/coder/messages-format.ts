import { randomBytes } from 'node:crypto';
import type { components } from '../../generated/coder/types.gen.js';
import type { RouterAnswer, RouterMessage } from './router.js';
import { parseEventStream } from '../lib/sse.js';
import { countChatTokens } from '../lib/tokens.js';

type MessagesRequest = components['schemas']['MessagesRequest'];
type MessageParam = components['schemas']['MessageParam'];
type SystemPrompt = components['schemas']['SystemPrompt'];
export type Message = components['schemas']['Message'];
export type MessageStreamFrame = components['schemas']['MessageStreamFrame'];

/** A block as text a chat model can read: text as is, a tool result by its content, anything else named. */
function blockText(block: Record<string, unknown>): string {
  if (block.type === 'text' && typeof block.text === 'string') return block.text;
  if (block.type === 'tool_result') {
    const content = block.content;
    if (typeof content === 'string') return content;
    if (Array.isArray(content)) return content.map((part) => (part && typeof part === 'object' ? blockText(part as Record<string, unknown>) : '')).join('\n');
    return '';
  }
  if (block.type === 'tool_use') return `[tool_use ${String(block.name ?? '')}] ${JSON.stringify(block.input ?? {})}`;
  return `[${String(block.type)}]`;
}

export function contentText(content: MessageParam['content'] | SystemPrompt): string {
  if (typeof content === 'string') return content;
  return content.map((block) => blockText(block as Record<string, unknown>)).join('\n');
}

/** The request as chat messages: the system prompt first, then each turn with its blocks flattened. */
export function toChatMessages(request: Pick<MessagesRequest, 'system' | 'messages'>): RouterMessage[] {
  const system: RouterMessage[] = request.system === undefined ? [] : [{ role: 'system', content: contentText(request.system) }];
  return [...system, ...request.messages.map((m) => ({ role: m.role, content: contentText(m.content) }))];
}

export function lastUserText(request: Pick<MessagesRequest, 'messages'>): string | undefined {
  const last = [...request.messages].reverse().find((m) => m.role === 'user');
  return last && contentText(last.content);
}

export function estimateInputTokens(request: Pick<MessagesRequest, 'system' | 'messages'>): number {
  return countChatTokens(toChatMessages(request));
}

/** Published: routed models get at least 1024 tokens to answer in. */
export const MIN_ROUTED_MAX_TOKENS = 1024;

export function messageOf(model: string, answer: RouterAnswer): Message {
  return {
    id: `msg_${randomBytes(12).toString('hex')}`,
    type: 'message',
    role: 'assistant',
    content: [{ type: 'text', text: answer.content }],
    model,
    stop_reason: answer.finish_reason === 'length' ? 'max_tokens' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: answer.usage.prompt_tokens, output_tokens: answer.usage.completion_tokens },
  };
}

/** Text in pieces of a few words, as a model streams it. */
function pieces(text: string): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += 4) out.push(words.slice(i, i + 4).join(''));
  return out.length > 0 ? out : [''];
}

/** The message as the Messages API streams it, event by event. */
export function messageFrames(message: Message): MessageStreamFrame[] {
  const text = message.content.map((b) => b.text).join('');
  return [
    { event: 'message_start', data: { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { input_tokens: message.usage.input_tokens, output_tokens: 0 } } } },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
    { event: 'ping', data: { type: 'ping' } },
    ...pieces(text).map((piece): MessageStreamFrame => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } } })),
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    {
      event: 'message_delta',
      data: { type: 'message_delta', delta: { stop_reason: message.stop_reason === 'max_tokens' ? 'max_tokens' : 'end_turn', stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ];
}

/** The answer's text in an upstream reply, JSON or event stream (for the session record); '' when there is none. */
export function upstreamAnswerText(contentType: string, bytes: string): string {
  try {
    if (contentType.includes('json')) {
      const body = JSON.parse(bytes) as { content?: Array<{ type?: string; text?: string }> };
      return (body.content ?? []).filter((b) => b.type === 'text').map((b) => b.text ?? '').join('');
    }
    let text = '';
    for (const { data } of parseEventStream(bytes).frames as Array<{ data: { type?: string; delta?: { type?: string; text?: string } } | null }>) {
      if (data?.type === 'content_block_delta' && data.delta?.type === 'text_delta') text += data.delta.text ?? '';
    }
    return text;
  } catch {
    return '';
  }
}
