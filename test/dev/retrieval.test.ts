/**
 * The shared local retriever (server-stubs/lib/retrieval.ts) over the embedded corpus, which the
 * coder research agent uses too, and the committed corpus being exactly what its generator writes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { buildCorpus } from '../../scripts/generate-corpus.js';
import { localRetriever } from '../../server-stubs/lib/retrieval.js';

const committed = JSON.parse(readFileSync(new URL('../../server-stubs/lib/corpus/documents.json', import.meta.url), 'utf8')) as Array<{ id: string; url: string; title: string; area: string; text: string }>;

describe('corpus', () => {
  test('the committed file is what scripts/generate-corpus.ts writes', () => {
    expect(committed).toEqual(buildCorpus());
  });

  test('a few hundred developer documents with unique docs.example.com urls', () => {
    expect(committed.length).toBeGreaterThanOrEqual(200);
    expect(new Set(committed.map((d) => d.url)).size).toBe(committed.length);
    for (const doc of committed) {
      expect(doc.url).toMatch(/^https:\/\/docs\.example\.com\/[a-z0-9-]+\/[a-z0-9-]+\/[a-z-]+$/);
      expect(doc.title.length).toBeGreaterThan(0);
      expect(doc.text.length).toBeGreaterThan(40);
    }
    expect(new Set(committed.map((d) => d.area))).toEqual(new Set(['HTTP', 'TypeScript', 'Node.js', 'Databases', 'OpenAPI', 'Security', 'Testing', 'Containers', 'Observability', 'Git', 'Web performance', 'Search and retrieval']));
  });
});

describe('localRetriever', () => {
  const retriever = localRetriever();

  test.each([
    ['How do ETags make HTTP caching cheaper?', '/http/caching/'],
    ['prevent SQL injection', '/databases/sql-injection/'],
    ['event loop blocked by CPU work', '/node/event-loop/'],
    ['OAuth authorization code flow with PKCE', '/security/oauth2/'],
    ['kubernetes liveness probe', '/containers/kubernetes-probes/'],
  ])('%s finds %s first', async (query, path) => {
    const [first] = await retriever.search(query);
    expect(first?.url).toContain(path);
  });

  test('sources are ranked by score, carry a sentence of their text as snippet, and respect the limit', async () => {
    const results = await retriever.search('rate limiting Retry-After', { limit: 3 });
    expect(results.length).toBe(3);
    const scores = results.map((r) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    for (const result of results) {
      const doc = committed.find((d) => d.url === result.url)!;
      expect(doc.title).toBe(result.title);
      expect(doc.text).toContain(result.snippet);
      expect(result.snippet.endsWith('?')).toBe(false);
    }
  });

  test('the default limit is 5', async () => {
    expect((await retriever.search('http')).length).toBe(5);
  });

  test('nothing for an empty query, a zero limit or words the corpus lacks', async () => {
    expect(await retriever.search('')).toEqual([]);
    expect(await retriever.search('   ')).toEqual([]);
    expect(await retriever.search('caching', { limit: 0 })).toEqual([]);
    expect(await retriever.search('zzqxv wqpfk')).toEqual([]);
  });

  test('the same query gives the same sources', async () => {
    expect(await retriever.search('typescript generics')).toEqual(await localRetriever().search('typescript generics'));
  });
});
