import type { RetrievedSource } from '../lib/retrieval.js';
import { countTokens } from '../lib/tokens.js';

export interface ComposedAnswer {
  answer: string;
  annotations: Array<{ type: 'url_citation'; url_citation: { start_index: number; end_index: number; url: string; title: string } }>;
  sources: Array<{ url: string; title: string; snippet: string }>;
}

export const NO_SOURCES_ANSWER = 'No indexed source answers this question; try other words.';

/**
 * The answer, composed deterministically from the sources: one sentence per source (its snippet),
 * each cited by a range that slices exactly that sentence. Sources whose snippet an earlier source
 * already gave are left out, so every listed source is cited once and no sentence repeats.
 */
export function composeAnswer(retrieved: RetrievedSource[], maxSources: number): ComposedAnswer {
  const used: RetrievedSource[] = [];
  for (const source of retrieved) {
    if (used.length === maxSources) break;
    if (!used.some((u) => u.snippet === source.snippet || u.url === source.url)) used.push(source);
  }
  if (used.length === 0) return { answer: NO_SOURCES_ANSWER, annotations: [], sources: [] };
  let answer = '';
  const annotations: ComposedAnswer['annotations'] = [];
  for (const source of used) {
    if (answer) answer += ' ';
    const start = answer.length;
    answer += source.snippet;
    annotations.push({ type: 'url_citation', url_citation: { start_index: start, end_index: answer.length, url: source.url, title: source.title } });
  }
  return { answer, annotations, sources: used.map(({ url, title, snippet }) => ({ url, title, snippet })) };
}

/** What the model would read: the conversation, then the retrieved context. */
export function promptText(turns: string[], sources: ComposedAnswer['sources']): string {
  const context = sources.map((s, i) => `[${i + 1}] ${s.title} (${s.url}): ${s.snippet}`);
  return [...turns, ...context].join('\n');
}

export function usageOf(prompt: string, answer: string) {
  const prompt_tokens = countTokens(prompt);
  const completion_tokens = countTokens(answer);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}
