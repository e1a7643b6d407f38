import { countChatTokens, countTokens, truncateToTokens } from '../lib/tokens.js';

/**
 * The model router (DECISIONS coder-7/8): every non-`claude-*` model is answered through this
 * adapter. The default is a deterministic local responder, so `npm start` works offline and tests
 * are exact; an OpenAI-compatible base URL (CODER_ROUTER_URL) makes it call a real model server.
 */
export interface RouterMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
}

export interface RouterRequest {
  model: string;
  messages: RouterMessage[];
  max_tokens?: number | undefined;
  temperature?: number | undefined;
}

export interface RouterAnswer {
  content: string;
  finish_reason: 'stop' | 'length';
  usage: { prompt_tokens: number; completion_tokens: number };
}

export interface ModelInfo {
  id: string;
  owned_by: string;
  created: number;
  context_window: number;
  max_output_tokens: number;
  description: string;
}

export interface ChatRouter {
  /** the models it serves (for `GET /models` and `GET /models/catalog`) */
  models(): ModelInfo[];
  complete(request: RouterRequest): Promise<RouterAnswer>;
}

/** The models the gateway routes, with their limits (GET /models, /models/catalog). */
export const localModels: ModelInfo[] = [
  { id: 'coder-mini', owned_by: 'coder', created: 1767225600, context_window: 32_768, max_output_tokens: 4_096, description: 'Small and fast: completions, short answers.' },
  { id: 'coder-pro', owned_by: 'coder', created: 1767225600, context_window: 200_000, max_output_tokens: 16_384, description: 'The default: coding and reasoning over large contexts.' },
  { id: 'coder-code', owned_by: 'coder', created: 1767225600, context_window: 128_000, max_output_tokens: 8_192, description: 'Tuned for code edits and reviews.' },
];

/** How much of the question the local answer repeats. */
export const QUOTE_CHARS = 2000;

const lastUserText = (messages: RouterMessage[]) => [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';

/**
 * The deterministic local responder: the answer names the model and repeats the last user message,
 * so the same request always gets the same answer, and a test can predict it. `max_tokens` caps
 * the answer (finish_reason `length`).
 */
export function localRouter(): ChatRouter {
  return {
    models: () => localModels.map((m) => ({ ...m })),
    complete: async (request) => {
      // The quote stops at 2,000 characters: a megabyte question does not make a megabyte answer.
      const full = `${request.model} (local router) received: ${[...lastUserText(request.messages)].slice(0, QUOTE_CHARS).join('')}`;
      const { text, cut } = request.max_tokens === undefined ? { text: full, cut: false } : truncateToTokens(full, request.max_tokens);
      return {
        content: text,
        finish_reason: cut ? 'length' : 'stop',
        usage: { prompt_tokens: countChatTokens(request.messages), completion_tokens: countTokens(text) },
      };
    },
  };
}

/** An upstream model server failed: unreachable, or answered something other than a completion. */
export class RouterUnavailable extends Error {}

/** A router backed by any OpenAI-compatible server (`CODER_ROUTER_URL`): `POST {baseUrl}/chat/completions`. */
export function openAICompatibleRouter(baseUrl: string, apiKey?: string): ChatRouter {
  const root = baseUrl.replace(/\/+$/, '');
  return {
    models: () => localModels.map((m) => ({ ...m })),
    complete: async (request) => {
      const response = await fetch(`${root}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey && { authorization: `Bearer ${apiKey}` }) },
        body: JSON.stringify({ model: request.model, messages: request.messages, max_tokens: request.max_tokens, temperature: request.temperature }),
      }).catch((error: Error) => {
        throw new RouterUnavailable(`the router at ${root} is unreachable (${error.message})`);
      });
      if (!response.ok) throw new RouterUnavailable(`the router at ${root} answered ${response.status}`);
      const body = (await response.json()) as {
        choices?: Array<{ message?: { content?: string | null }; finish_reason?: string }>;
        usage?: { prompt_tokens?: number; completion_tokens?: number };
      };
      const choice = body.choices?.[0];
      const content = choice?.message?.content ?? '';
      return {
        content,
        finish_reason: choice?.finish_reason === 'length' ? 'length' : 'stop',
        usage: {
          prompt_tokens: body.usage?.prompt_tokens ?? countChatTokens(request.messages),
          completion_tokens: body.usage?.completion_tokens ?? countTokens(content),
        },
      };
    },
  };
}
