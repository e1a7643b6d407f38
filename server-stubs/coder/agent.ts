import type { components } from '../../generated/coder/types.gen.js';
import type { Retriever, RetrievedSource } from '../lib/retrieval.js';

export type AgentEvent = components['schemas']['AgentStreamFrame']['data'];
export type AgentCitation = components['schemas']['AgentCitation'];
export type AgentMode = 'chat' | 'research' | 'coding';

/** Published defaults of `maxCycles` by mode. */
export const defaultCycles: Record<AgentMode, number> = { chat: 1, research: 5, coding: 4 };

const stopWords = new Set(['the', 'and', 'for', 'with', 'what', 'how', 'does', 'are', 'was', 'why', 'when', 'which', 'who', 'from', 'into', 'about', 'that', 'this', 'can', 'you', 'your', 'use', 'between']);

/** The words of a question a source has to mention to cover it. */
export function termsOf(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  return [...new Set(words.filter((w) => w.length >= 3 && !stopWords.has(w)))];
}

const citationOf = (s: RetrievedSource): AgentCitation => ({ url: s.url, title: s.title, snippet: s.snippet });

export interface AgentRun {
  query: string;
  mode: AgentMode;
  maxCycles: number;
  /** citations of the session's earlier answer, carried into this one */
  earlier: AgentCitation[];
}

/**
 * The research agent, deterministic over its retriever: plan; per cycle search for what is still
 * missing and reflect on coverage, until nothing is missing, a search finds nothing new, or the
 * cycles run out; then the answer from the sources, streamed, and `done`. `emit` gets every event.
 */
export async function runAgent(run: AgentRun, retriever: Retriever, emit: (event: AgentEvent) => void): Promise<void> {
  const terms = termsOf(run.query);
  const continuing = run.earlier.length > 0 ? `; continuing with ${run.earlier.length} earlier citation(s)` : '';
  emit({ type: 'thinking', stage: 'plan', content: `${run.mode} run on "${run.query}": up to ${run.maxCycles} search cycle(s)${continuing}` });
  const found: AgentCitation[] = [];
  let searchFor = run.query;
  for (let cycle = 1; cycle <= run.maxCycles; cycle++) {
    emit({ type: 'tool_call', tool: 'search', input: { query: searchFor } });
    let results: RetrievedSource[];
    try {
      results = await retriever.search(searchFor, { limit: 3 });
    } catch {
      emit({ type: 'error', code: 'RETRIEVAL_FAILED', message: 'The retriever failed; retry later' });
      return;
    }
    const fresh = results.map(citationOf).filter((c) => !found.some((f) => f.url === c.url));
    found.push(...fresh);
    emit({ type: 'tool_result', tool: 'search', citations: fresh });
    const text = found.map((c) => `${c.title} ${c.snippet}`.toLowerCase()).join(' ');
    const covered = terms.filter((t) => text.includes(t));
    const gaps = terms.filter((t) => !text.includes(t));
    emit({ type: 'reflection', covered, gaps });
    if (gaps.length === 0 || fresh.length === 0) break;
    searchFor = gaps.join(' ');
  }
  emit({ type: 'thinking', stage: 'synthesize', content: `Writing the answer from ${found.length} source${found.length === 1 ? '' : 's'}` });
  const lines = found.length > 0 ? found.map((c, i) => `${c.title} [${i + 1}]: ${c.snippet}`) : [`No sources found for "${run.query}".`];
  lines.forEach((line, i) => emit({ type: 'content', delta: i < lines.length - 1 ? `${line}\n` : line }));
  const citations = [...found, ...run.earlier.filter((e) => !found.some((f) => f.url === e.url))];
  emit({ type: 'done', result: { content: lines.join('\n'), citations } });
}
