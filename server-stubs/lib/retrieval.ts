/**
 * Retrieval over the local corpus, shared by grounded search (/dev) and the coder research agent:
 * one adapter interface, so a real web search can replace the embedded corpus.
 * The corpus (corpus/documents.json) is written by scripts/generate-corpus.ts.
 */
import { readFileSync } from 'node:fs';
import MiniSearch from 'minisearch';

export interface RetrievedSource {
  url: string;
  title: string;
  /** a short extract relevant to the query */
  snippet: string;
  score: number;
}

export interface Retriever {
  search(query: string, options?: { limit?: number }): Promise<RetrievedSource[]>;
}

interface CorpusDocument {
  id: string;
  url: string;
  title: string;
  area: string;
  text: string;
}

const DEFAULT_LIMIT = 5;
/** Hits scoring under this share of the best hit matched a stray word, not the topic: left out. */
const RELATIVE_CUTOFF = 0.2;

/** Words that say nothing about a topic; indexed, they let "how do I …" match every FAQ. */
const STOP_WORDS = new Set(
  'a an and are as at be by can do does for from how i in is it its make makes my of on or should so that the this to use what when where which why with you your'.split(' '),
);

let index: { search: MiniSearch<CorpusDocument>; byId: Map<string, CorpusDocument> } | undefined;

// Built on first use and shared: every stub app that retrieves would otherwise re-index 360 documents.
function corpusIndex() {
  if (!index) {
    const documents = JSON.parse(
      readFileSync(new URL('./corpus/documents.json', import.meta.url), 'utf8'),
    ) as CorpusDocument[];
    const search = new MiniSearch<CorpusDocument>({
      fields: ['title', 'text', 'area'],
      storeFields: [],
      processTerm: (term) => {
        const lower = term.toLowerCase();
        return STOP_WORDS.has(lower) ? null : lower;
      },
      searchOptions: { boost: { title: 2 }, prefix: true, fuzzy: 0.2 },
    });
    search.addAll(documents);
    index = { search, byId: new Map(documents.map((d) => [d.id, d])) };
  }
  return index;
}

function terms(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The statement of the document that shares the most terms with the query (the first on a tie);
 * questions are skipped because an FAQ's question restates the query rather than answering it.
 */
function bestSentence(text: string, query: string): string {
  const wanted = new Set(terms(query));
  const all = text.match(/[^.?!]+[.?!]+/g)?.map((s) => s.trim()) ?? [];
  const statements = all.filter((s) => !s.endsWith('?'));
  const sentences = statements.length > 0 ? statements : [text];
  let best = sentences[0] ?? text;
  let bestHits = -1;
  for (const sentence of sentences) {
    const hits = new Set(terms(sentence).filter((t) => wanted.has(t))).size;
    if (hits > bestHits) {
      best = sentence;
      bestHits = hits;
    }
  }
  return best;
}

export function localRetriever(): Retriever {
  return {
    async search(query, options) {
      const limit = Math.max(0, Math.floor(options?.limit ?? DEFAULT_LIMIT));
      if (query.trim() === '' || limit === 0) return [];
      const { search, byId } = corpusIndex();
      const hits = search.search(query);
      const floor = (hits[0]?.score ?? 0) * RELATIVE_CUTOFF;
      return hits
        .filter((hit) => hit.score >= floor)
        .slice(0, limit)
        .flatMap((hit) => {
          const doc = byId.get(String(hit.id));
          if (!doc) return [];
          return [{ url: doc.url, title: doc.title, snippet: bestSentence(doc.text, query), score: hit.score }];
        });
    },
  };
}
