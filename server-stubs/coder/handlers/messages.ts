import type { operations } from '../../../generated/coder/types.gen.js';
import type { Fail, HandlerResult } from '../../lib/handlers.js';
import { coderHandlers, type CoderDeps, type CoderPrincipal } from '../context.js';
import { estimateInputTokens, lastUserText, messageFrames, messageOf, MIN_ROUTED_MAX_TOKENS, toChatMessages, upstreamAnswerText, type Message } from '../messages-format.js';
import { RouterUnavailable } from '../router.js';
import { UpstreamFailure } from '../upstream.js';

type CreateMessageResult = HandlerResult<operations['createMessage']>;

/** The 200 declares JSON and an event stream; the handler types know one media type per status. */
const jsonAnswer = (body: Message) => ({ status: 200, body }) as unknown as CreateMessageResult;

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * Where an exchange is recorded (`X-Session-Id`, DECISIONS coder-4): nowhere without the header or
 * with the store off; another key's session is refused as unknown.
 */
function sessionRecorder({ sessions, switches }: CoderDeps, principal: CoderPrincipal, sessionId: string | undefined, fail: Fail<404>) {
  if (!sessionId || !switches.sessionStore) return { user: (_: string) => {}, assistant: (_: string) => {} };
  if (sessions.claim(sessionId, principal.owner) === 'taken') fail(404, 'not_found_error', 'Session not found');
  return {
    user: (text: string) => sessions.addMessage(sessionId, principal.owner, 'user', text),
    assistant: (text: string) => sessions.addMessage(sessionId, principal.owner, 'assistant', text),
  };
}

/** An upstream answer passed on byte for byte, with its text recorded once the last byte has gone through. */
function recorded(response: Response, record: (text: string) => void): Response {
  if (!response.body) return response;
  const decoder = new TextDecoder();
  let seen = '';
  const tap = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += decoder.decode(chunk, { stream: true });
      controller.enqueue(chunk);
    },
    flush() {
      seen += decoder.decode();
      if (response.ok) record(upstreamAnswerText(response.headers.get('content-type') ?? '', seen));
    },
  });
  return new Response(response.body.pipeThrough(tap), { status: response.status, statusText: response.statusText, headers: response.headers });
}

export function messageHandlers(deps: CoderDeps) {
  const { switches, router, upstream } = deps;
  return coderHandlers({
    createMessage: async ({ body, headers, principal, rawBody, fail }): Promise<CreateMessageResult> => {
      const session = sessionRecorder(deps, principal, header(headers['x-session-id']), fail);
      const question = lastUserText(body);

      if (body.model.startsWith(switches.vendorPrefix)) {
        let response: Response;
        try {
          response = await upstream.send({
            token: principal.token,
            body: rawBody ?? Buffer.from(JSON.stringify(body)),
            anthropicVersion: header(headers['anthropic-version']),
            anthropicBeta: header(headers['anthropic-beta']),
          });
        } catch (error) {
          if (error instanceof UpstreamFailure) fail(error.status, 'api_error', error.message);
          throw error;
        }
        if (question !== undefined && response.ok) session.user(question);
        return { passthrough: recorded(response, (text) => session.assistant(text)) };
      }

      // Only a `claude-*` message may come with a key that is not the gateway's (see app.ts).
      if (!principal.gatewayKey) fail(401, 'authentication_error', 'Invalid API key');
      if (!switches.router) fail(503, 'api_error', 'Model router not initialized');
      let message: Message;
      try {
        const answer = await router.complete({
          model: body.model,
          messages: toChatMessages(body),
          max_tokens: Math.max(body.max_tokens ?? MIN_ROUTED_MAX_TOKENS, MIN_ROUTED_MAX_TOKENS),
          temperature: body.temperature,
        });
        message = messageOf(body.model, { ...answer, usage: { ...answer.usage, prompt_tokens: answer.usage.prompt_tokens || estimateInputTokens(body) } });
      } catch (error) {
        if (error instanceof RouterUnavailable) fail(502, 'api_error', error.message);
        throw error;
      }
      if (question !== undefined) session.user(question);
      session.assistant(message.content.map((b) => b.text).join(''));
      if (!body.stream) return jsonAnswer(message);
      return {
        status: 200,
        stream: (events) => {
          for (const frame of messageFrames(message)) events.send(frame);
          events.end();
        },
      };
    },

    countMessageTokens: ({ body }) => ({ status: 200, body: { input_tokens: estimateInputTokens(body) } }),
  });
}
