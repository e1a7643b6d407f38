/**
 * The grounded answer (seed "Grounded-search response"): composed from the retrieved sources,
 * citations that slice `answer` exactly and cite listed sources only, usage counted with the
 * tokenizer and adding up, and dev-flash reading fewer sources than dev-pro.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import o200k_base from 'js-tiktoken/ranks/o200k_base';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkGroundedAnswer } from '../../scripts/lib/scenarios/dev.js';
import { expectCompletion, fixedSources, postSearch, recordingRetriever, startDev, type DevStub } from './support.js';

const tokenizer = new Tiktoken(o200k_base);

const QUESTIONS = [
  'How do ETags make HTTP caching cheaper?',
  'How do I prevent SQL injection?',
  'rate limiting 429 retry',
  'what is the event loop in node',
  'TypeScript generics and type guards',
  'kubernetes probes and health checks',
];

describe('on the embedded corpus', () => {
  let dev: DevStub;
  beforeAll(async () => {
    dev = await startDev();
  });
  afterAll(() => dev.close());

  test.each(QUESTIONS)('%s: every citation slices the answer exactly and cites a listed source', async (query) => {
    const body = expectCompletion(await postSearch(dev.baseUrl, { query }));
    expect(body.sources.length).toBeGreaterThan(0);
    expect(body.annotations.length).toBe(body.sources.length);
    checkGroundedAnswer(body);
    for (const source of body.sources) expect(source.url).toMatch(/^https:\/\/docs\.example\.com\//);
  });

  test('the answer is about the question', async () => {
    const body = expectCompletion(await postSearch(dev.baseUrl, { query: 'How do I prevent SQL injection?' }));
    expect(body.sources[0]?.url).toContain('/sql-injection/');
    expect(body.answer).toMatch(/parameterized queries/);
  });

  test('the same question gets the same answer (composition is deterministic)', async () => {
    const first = expectCompletion(await postSearch(dev.baseUrl, { query: 'rate limiting 429 retry' }));
    const second = expectCompletion(await postSearch(dev.baseUrl, { query: 'rate limiting 429 retry' }));
    expect(second.id).not.toBe(first.id);
    expect({ ...second, id: '' }).toEqual({ ...first, id: '' });
  });

  test('dev-flash answers from fewer sources than dev-pro', async () => {
    const query = 'rate limiting 429 retry';
    const pro = expectCompletion(await postSearch(dev.baseUrl, { query, model: 'dev-pro' }));
    const flash = expectCompletion(await postSearch(dev.baseUrl, { query, model: 'dev-flash' }));
    expect(flash.sources.length).toBeGreaterThan(0);
    expect(flash.sources.length).toBeLessThan(pro.sources.length);
    expect(flash.usage.prompt_tokens).toBeLessThan(pro.usage.prompt_tokens);
  });

  test('usage: completion is the answer in tokens, total the sum, and conversation turns count as prompt', async () => {
    const query = 'How do ETags make HTTP caching cheaper?';
    const alone = expectCompletion(await postSearch(dev.baseUrl, { query }));
    expect(alone.usage.completion_tokens).toBe(tokenizer.encode(alone.answer).length);
    expect(alone.usage.total_tokens).toBe(alone.usage.prompt_tokens + alone.usage.completion_tokens);
    // The prompt holds the question and the retrieved context: more than the question alone.
    expect(alone.usage.prompt_tokens).toBeGreaterThan(tokenizer.encode(query).length);

    const withContext = expectCompletion(
      await postSearch(dev.baseUrl, {
        messages: [
          { role: 'system', content: 'You answer questions of a platform team that runs a large public API behind a CDN.' },
          { role: 'user', content: query },
        ],
      }),
    );
    expect(withContext.answer).toBe(alone.answer);
    expect(withContext.usage.completion_tokens).toBe(alone.usage.completion_tokens);
    expect(withContext.usage.prompt_tokens).toBeGreaterThan(alone.usage.prompt_tokens);
  });

  test('a question the corpus cannot answer: no sources, no citations, still grounded', async () => {
    const body = expectCompletion(await postSearch(dev.baseUrl, { query: 'zzqxv wqpfk' }));
    expect(body).toMatchObject({ grounded: true, sources: [], annotations: [] });
    expect(body.answer.length).toBeGreaterThan(0);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });
});

describe('with an injected retriever', () => {
  let dev: DevStub;
  const retriever = recordingRetriever([...fixedSources, { ...fixedSources[0]!, url: 'https://docs.example.com/fixture/duplicate' }]);
  beforeAll(async () => {
    dev = await startDev({ retriever });
  });
  afterAll(() => dev.close());

  test('offsets count UTF-16 code units, so slicing works with non-ASCII text', async () => {
    const body = expectCompletion(await postSearch(dev.baseUrl, { query: 'fixture' }));
    checkGroundedAnswer(body);
    expect(body.answer).toContain('🚀');
  });

  test('dev-pro reads 5 sources, dev-flash 2; the retriever is asked for a margin over that', async () => {
    const pro = expectCompletion(await postSearch(dev.baseUrl, { query: 'fixture', model: 'dev-pro' }));
    expect(pro.sources.map((s) => s.url)).toEqual(fixedSources.slice(0, 5).map((s) => s.url));
    const flash = expectCompletion(await postSearch(dev.baseUrl, { query: 'fixture', model: 'dev-flash' }));
    expect(flash.sources.map((s) => s.url)).toEqual(fixedSources.slice(0, 2).map((s) => s.url));
    expect(retriever.calls.slice(-2).map((c) => c.limit)).toEqual([10, 4]);
  });

  test('a source repeating an earlier snippet is neither listed nor cited twice', async () => {
    const duplicate = recordingRetriever([fixedSources[0]!, { ...fixedSources[0]!, url: 'https://docs.example.com/fixture/copy' }, fixedSources[1]!]);
    const other = await startDev({ retriever: duplicate });
    try {
      const body = expectCompletion(await postSearch(other.baseUrl, { query: 'fixture' }));
      expect(body.sources.map((s) => s.url)).toEqual([fixedSources[0]!.url, fixedSources[1]!.url]);
      checkGroundedAnswer(body);
    } finally {
      await other.close();
    }
  });

  test('the source score stays internal: sources carry url, title and snippet only', async () => {
    const body = expectCompletion(await postSearch(dev.baseUrl, { query: 'fixture' }));
    for (const source of body.sources) expect(Object.keys(source).sort()).toEqual(['snippet', 'title', 'url']);
  });
});
