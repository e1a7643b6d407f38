import { devHandlers, type DevDeps, type DevModel } from '../context.js';
import { composeAnswer, promptText, usageOf } from '../answer.js';

/** dev-flash is the faster, cheaper model: it reads fewer sources. */
export const sourcesPerModel: Record<DevModel, number> = { 'dev-pro': 5, 'dev-flash': 2 };

const UNAVAILABLE = 'Web retrieval is temporarily unavailable; retry with backoff';

/** The turns the model reads, and the query: the last user turn (the schema guarantees there is one). */
function conversation(body: { query?: string; messages?: Array<{ role: string; content: string }> }): { turns: string[]; query: string } {
  if (body.query !== undefined) return { turns: [body.query], query: body.query };
  const messages = body.messages ?? [];
  const lastUser = messages.findLast((m) => m.role === 'user');
  return { turns: messages.map((m) => `${m.role}: ${m.content}`), query: lastUser?.content ?? '' };
}

export function searchHandlers({ retriever, newId }: DevDeps) {
  return devHandlers({
    createSearch: async ({ body, fail }) => {
      if (!retriever) return fail(503, 'retrieval_unavailable', UNAVAILABLE);
      const model = body.model as DevModel;
      const { turns, query } = conversation(body);
      const limit = sourcesPerModel[model];
      // Twice the sources needed: near-duplicate pages are dropped when the answer is composed.
      const retrieved = await retriever.search(query, { limit: limit * 2 }).catch(() => fail(503, 'retrieval_unavailable', UNAVAILABLE));
      const composed = composeAnswer(retrieved, limit);
      return {
        status: 200,
        body: {
          id: newId(),
          object: 'search.completion',
          model,
          grounded: true,
          ...composed,
          usage: usageOf(promptText(turns, composed.sources), composed.answer),
        },
      };
    },
  });
}
