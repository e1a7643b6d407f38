/**
 * Search over the committed corpus (corpus/corpus.json, written by scripts/generate-blog-corpus.ts):
 * minisearch ranks what `q` matches; the filters, the published inclusion rules and the sorts are
 * applied on top.
 */
import { readFileSync } from 'node:fs';
import MiniSearch, { type SearchOptions } from 'minisearch';
import type { components, operations } from '../../generated/blog/types.gen.js';

type Article = components['schemas']['Article'];
type Profile = components['schemas']['Profile'];
type Tag = components['schemas']['Tag'];
export type SearchQuery = NonNullable<operations['searchBlog']['parameters']['query']>;
export type SearchResults = components['schemas']['SearchResults'];

interface Corpus {
  articles: Article[];
  profiles: Profile[];
  tags: Tag[];
}

const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

// Multi-word queries narrow (every word must match); prefixes help typing; typos are forgiven only in
// words long enough that one wrong letter cannot turn them into another word.
const searchOptions: SearchOptions = { combineWith: 'AND', prefix: true, fuzzy: (term) => (term.length >= 6 ? 0.2 : false) };

interface Indexes {
  corpus: Corpus;
  articles: MiniSearch;
  profiles: MiniSearch;
  tags: MiniSearch;
}

let indexes: Indexes | undefined;

// Built on first use and shared by every app instance: the corpus never changes at run time.
function loadIndexes(): Indexes {
  if (indexes) return indexes;
  const corpus = JSON.parse(readFileSync(new URL('./corpus/corpus.json', import.meta.url), 'utf8')) as Corpus;
  const articles = new MiniSearch({
    idField: 'slug',
    fields: ['title', 'excerpt', 'tagText', 'authorText'],
    searchOptions: { ...searchOptions, boost: { title: 3, tagText: 2 } },
  });
  articles.addAll(corpus.articles.map((a) => ({ slug: a.slug, title: a.title, excerpt: a.excerpt, tagText: a.tags.join(' '), authorText: `${a.author.display_name} ${a.author.username}` })));
  const profiles = new MiniSearch({ idField: 'username', fields: ['username', 'display_name', 'bio'], searchOptions: { ...searchOptions, boost: { display_name: 2, username: 2 } } });
  profiles.addAll(corpus.profiles);
  const tags = new MiniSearch({ idField: 'name', fields: ['name'], searchOptions });
  tags.addAll(corpus.tags);
  indexes = { corpus, articles, profiles, tags };
  return indexes;
}

/** `from` as an instant: a date is that day's first millisecond, UTC. */
function lowerBound(value: string | undefined): number {
  if (value === undefined) return -Infinity;
  return DATE_ONLY.test(value) ? Date.parse(`${value}T00:00:00Z`) : Date.parse(value);
}

/** `to` as an instant: a date covers that whole day, UTC (DECISIONS blog-1: inclusive). */
function upperBound(value: string | undefined): number {
  if (value === undefined) return Infinity;
  return DATE_ONLY.test(value) ? Date.parse(`${value}T00:00:00Z`) + DAY_MS - 1 : Date.parse(value);
}

const newestFirst = (a: Article, b: Article) => b.published_at.localeCompare(a.published_at) || a.slug.localeCompare(b.slug);

/** Relevance ranks by score; what scores the same (or everything, without `q`) comes newest first. */
function sortArticles(list: Array<{ article: Article; score: number }>, sort: SearchQuery['sort']): Article[] {
  const order: Record<NonNullable<SearchQuery['sort']>, (a: { article: Article; score: number }, b: { article: Article; score: number }) => number> = {
    relevance: (a, b) => b.score - a.score || newestFirst(a.article, b.article),
    newest: (a, b) => newestFirst(a.article, b.article),
    oldest: (a, b) => -newestFirst(a.article, b.article),
    popular: (a, b) => b.article.view_count - a.article.view_count || newestFirst(a.article, b.article),
  };
  return [...list].sort(order[sort ?? 'relevance']).map((x) => x.article);
}

function ranked<T>(index: MiniSearch, byId: Map<string, T>, q: string): Array<{ item: T; score: number }> {
  return index.search(q).flatMap((hit) => {
    const item = byId.get(String(hit.id));
    return item ? [{ item, score: hit.score }] : [];
  });
}

export function searchCorpus(query: Required<Pick<SearchQuery, 'type' | 'sort' | 'limit'>> & SearchQuery): SearchResults {
  const results: SearchResults = { articles: [], profiles: [], tags: [] };
  const { q, tag, author, from, to, type, sort, limit } = query;
  // Published rule: without q and without any filter there is nothing to search for.
  if (q === undefined && tag === undefined && author === undefined && from === undefined && to === undefined) return results;
  const { corpus, ...index } = loadIndexes();
  const wants = (kind: 'articles' | 'profiles' | 'tags') => type === 'all' || type === kind;

  if (wants('articles')) {
    const candidates =
      q === undefined
        ? corpus.articles.map((article) => ({ article, score: 0 }))
        : ranked(index.articles, new Map(corpus.articles.map((a) => [a.slug, a])), q).map(({ item, score }) => ({ article: item, score }));
    const low = lowerBound(from);
    const high = upperBound(to);
    const filtered = candidates.filter(({ article }) => {
      const at = Date.parse(article.published_at);
      return (
        (tag === undefined || article.tags.includes(tag.toLowerCase())) &&
        (author === undefined || article.author.username.toLowerCase() === author.toLowerCase()) &&
        at >= low &&
        at <= high
      );
    });
    results.articles = sortArticles(filtered, sort).slice(0, limit);
  }
  // Published rules: profiles only with q and without author; tags only with q.
  if (wants('profiles') && q !== undefined && author === undefined) {
    const hits = ranked(index.profiles, new Map(corpus.profiles.map((p) => [p.username, p])), q);
    if (sort === 'popular') hits.sort((a, b) => b.item.follower_count - a.item.follower_count || a.item.username.localeCompare(b.item.username));
    results.profiles = hits.slice(0, limit).map((h) => h.item);
  }
  if (wants('tags') && q !== undefined) {
    const hits = ranked(index.tags, new Map(corpus.tags.map((t) => [t.name, t])), q);
    if (sort === 'popular') hits.sort((a, b) => b.item.count - a.item.count || a.item.name.localeCompare(b.item.name));
    results.tags = hits.slice(0, limit).map((h) => h.item);
  }
  return results;
}
