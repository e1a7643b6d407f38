import { defaultCycles, runAgent, type AgentCitation, type AgentEvent } from '../agent.js';
import { coderHandlers, type CoderDeps } from '../context.js';

export function agentHandlers({ sessions, switches, retriever }: CoderDeps) {
  return coderHandlers({
    streamAgent: ({ principal, query, fail }) => {
      const sessionId = switches.sessionStore ? query.sessionId : undefined;
      if (sessionId && sessions.claim(sessionId, principal.owner) === 'taken') fail(404, undefined, 'Session not found');
      const earlierDone = sessionId ? sessions.visible(sessionId, principal.owner)?.events.findLast((e) => e.type === 'done') : undefined;
      const earlier = ((earlierDone?.payload.result as { citations?: AgentCitation[] } | undefined)?.citations ?? []).slice();
      return {
        status: 200,
        stream: async (events) => {
          if (sessionId) sessions.addMessage(sessionId, principal.owner, 'user', query.query);
          const emit = (event: AgentEvent) => {
            events.send({ data: event });
            if (!sessionId) return;
            const { type, ...payload } = event;
            sessions.addEvent(sessionId, principal.owner, type, payload);
            if (event.type === 'done') sessions.addMessage(sessionId, principal.owner, 'assistant', event.result.content);
          };
          await runAgent({ query: query.query, mode: query.mode, maxCycles: query.maxCycles ?? defaultCycles[query.mode], earlier }, retriever, emit);
          events.end();
        },
      };
    },
  });
}
