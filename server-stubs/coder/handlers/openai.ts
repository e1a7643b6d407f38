import type { operations } from '../../../generated/coder/types.gen.js';
import type { HandlerResult } from '../../lib/handlers.js';
import { coderHandlers, type CoderDeps } from '../context.js';
import { embed, EMBEDDING_DIMENSIONS, toBase64Float32 } from '../embeddings.js';
import { moderate } from '../moderation.js';
import type { PlatformState } from '../platform-state.js';
import { RouterUnavailable, type RouterAnswer, type RouterRequest } from '../router.js';
import { countTokens } from '../../lib/tokens.js';
import { chatToRouter, openAIId, responseInputToRouter, tokenCap, type ChatCompletion, type ResponseObject } from './openai-shapes.js';

type Fail503 = (status: 503, code: string, message: string, extras?: Record<string, unknown>) => never;

/** The 200 declares JSON and an event stream; the handler types know one media type per status. */
const jsonCompletion = (body: ChatCompletion) => ({ status: 200, body }) as unknown as HandlerResult<operations['createChatCompletion']>;

/** Streamed answers are cut into pieces of a few words, as a model would send them. */
function pieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g)?.reduce<string[]>((out, word, i) => {
    if (i % 4 === 0) out.push(word);
    else out[out.length - 1] += word;
    return out;
  }, []) ?? [];
}

export function openaiHandlers({ switches, router, clock }: CoderDeps, { responses }: PlatformState) {
  /** The router's answer, or 503 when it is off or its server is unreachable (DECISIONS coder-8). */
  const complete = async (fail: Fail503, request: RouterRequest): Promise<RouterAnswer> => {
    if (!switches.router) fail(503, 'server_error', 'The model router is not initialized', { code: 'router_unavailable' });
    try {
      return await router.complete(request);
    } catch (error) {
      if (error instanceof RouterUnavailable) fail(503, 'server_error', `The model router is unavailable: ${error.message}`, { code: 'router_unavailable' });
      throw error;
    }
  };
  const seconds = () => Math.floor(clock.now() / 1000);

  return coderHandlers({
    createChatCompletion: async ({ body, fail }) => {
      const answer = await complete(fail, {
        model: body.model,
        messages: chatToRouter(body.messages),
        max_tokens: tokenCap(body.max_tokens, body.max_completion_tokens),
        temperature: body.temperature ?? undefined,
      });
      const id = openAIId('chatcmpl-');
      const created = seconds();
      const usage = { ...answer.usage, total_tokens: answer.usage.prompt_tokens + answer.usage.completion_tokens };
      if (!body.stream) {
        return jsonCompletion({
          id,
          object: 'chat.completion',
          created,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: answer.content, refusal: null }, finish_reason: answer.finish_reason, logprobs: null }],
          usage,
        });
      }
      const chunk = (choices: Array<{ index: number; delta: { role?: 'assistant'; content?: string }; finish_reason: 'stop' | 'length' | null }>) => ({
        data: { id, object: 'chat.completion.chunk' as const, created, model: body.model, choices },
      });
      return {
        status: 200,
        stream: (events) => {
          events.send(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
          for (const piece of pieces(answer.content)) events.send(chunk([{ index: 0, delta: { content: piece }, finish_reason: null }]));
          events.send(chunk([{ index: 0, delta: {}, finish_reason: answer.finish_reason }]));
          if (body.stream_options?.include_usage) events.send({ data: { ...chunk([]).data, usage } });
          events.send({ data: '[DONE]' });
          events.end();
        },
      };
    },

    createEmbedding: ({ body }) => {
      const inputs = typeof body.input === 'string' ? [body.input] : body.input;
      const dimensions = body.dimensions ?? EMBEDDING_DIMENSIONS;
      const tokens = inputs.reduce((sum, text) => sum + countTokens(text), 0);
      return {
        status: 200,
        body: {
          object: 'list',
          data: inputs.map((text, index) => {
            const vector = embed(text, dimensions);
            return { object: 'embedding' as const, index, embedding: body.encoding_format === 'base64' ? toBase64Float32(vector) : vector };
          }),
          model: body.model,
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        },
      };
    },

    createModeration: ({ body }) => {
      const inputs = typeof body.input === 'string' ? [body.input] : body.input;
      return { status: 200, body: { id: openAIId('modr-'), model: body.model, results: inputs.map(moderate) } };
    },

    createResponse: async ({ body, principal, fail }) => {
      const previous = body.previous_response_id ? responses.find(principal.owner, body.previous_response_id) : undefined;
      if (body.previous_response_id && !previous) {
        fail(404, 'not_found_error', `No response with id ${body.previous_response_id}`, { code: 'response_not_found' });
      }
      const turn = responseInputToRouter(body.input);
      const conversation = [...(previous?.conversation ?? []), ...turn];
      const answer = await complete(fail, {
        model: body.model,
        messages: [...(body.instructions ? [{ role: 'system' as const, content: body.instructions }] : []), ...conversation],
        max_tokens: body.max_output_tokens ?? undefined,
        temperature: body.temperature ?? undefined,
      });
      const incomplete = answer.finish_reason === 'length';
      const response: ResponseObject = {
        id: openAIId('resp_', 16),
        object: 'response',
        created_at: seconds(),
        status: incomplete ? 'incomplete' : 'completed',
        model: body.model,
        output: [
          {
            type: 'message',
            id: openAIId('msg_', 16),
            status: incomplete ? 'incomplete' : 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: answer.content, annotations: [] }],
          },
        ],
        previous_response_id: body.previous_response_id ?? null,
        instructions: body.instructions ?? null,
        incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
        error: null,
        usage: { input_tokens: answer.usage.prompt_tokens, output_tokens: answer.usage.completion_tokens, total_tokens: answer.usage.prompt_tokens + answer.usage.completion_tokens },
        store: body.store !== false,
        metadata: body.metadata ?? {},
      };
      if (response.store) responses.save({ owner: principal.owner, response, conversation: [...conversation, { role: 'assistant', content: answer.content }] });
      return { status: 200, body: response };
    },

    getResponse: ({ params, principal, fail }) => {
      const stored =
        responses.find(principal.owner, params.response_id) ?? fail(404, 'not_found_error', `No response with id ${params.response_id}`, { code: 'response_not_found' });
      return { status: 200, body: stored.response };
    },
  });
}
