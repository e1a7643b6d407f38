import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Retriever, RetrievedSource } from '../../server-stubs/lib/retrieval.js';
import { agentStream, contractProblems, KEY_2, raw, startCoder, type CoderStub } from './support.js';

const corpus: RetrievedSource[] = [
  { url: 'https://docs.example/python-files', title: 'Python files', snippet: 'Open a file and iterate over its lines.', score: 2 },
  { url: 'https://docs.example/encoding', title: 'Text encoding', snippet: 'Pass encoding="utf-8" when opening text.', score: 1 },
];

/** Finds the sources that mention any word of the query, and remembers what it was asked. */
function fakeRetriever(asked: string[]): Retriever {
  return {
    async search(query) {
      asked.push(query);
      const words = query.toLowerCase().split(/\s+/);
      return corpus.filter((s) => words.some((w) => `${s.title} ${s.snippet}`.toLowerCase().includes(w)));
    },
  };
}

describe('research-agent stream', () => {
  const asked: string[] = [];
  let coder: CoderStub;
  beforeAll(async () => {
    coder = await startCoder({ retriever: fakeRetriever(asked) });
  });
  afterAll(() => coder.close());

  test('plan, search, reflect until nothing is missing, synthesize, content, done: each data line one JSON object on the contract', async () => {
    asked.length = 0;
    const run = await agentStream(coder.baseUrl, { query: 'python file encoding' });
    expect(run.status).toBe(200);
    expect(run.errors).toEqual([]);
    expect(run.text).not.toMatch(/^event:/m);
    expect(run.events.map((e) => e.type)).toEqual(['thinking', 'tool_call', 'tool_result', 'reflection', 'thinking', 'content', 'content', 'done']);
    expect(run.events[0]).toEqual({ type: 'thinking', stage: 'plan', content: 'research run on "python file encoding": up to 5 search cycle(s)' });
    expect(run.events[1]).toEqual({ type: 'tool_call', tool: 'search', input: { query: 'python file encoding' } });
    expect(run.events[3]).toEqual({ type: 'reflection', covered: ['python', 'file', 'encoding'], gaps: [] });
    const done = run.events.at(-1)!;
    expect(done.result.citations.map((c: { url: string }) => c.url)).toEqual(corpus.map((s) => s.url));
    expect(run.events.filter((e) => e.type === 'content').map((e) => e.delta).join('')).toBe(done.result.content);
    expect(done.result.content).toBe('Python files [1]: Open a file and iterate over its lines.\nText encoding [2]: Pass encoding="utf-8" when opening text.');
  });

  test('gaps drive the next search; cycles stop at maxCycles or when a search finds nothing new', async () => {
    asked.length = 0;
    const run = await agentStream(coder.baseUrl, { query: 'python quantum', maxCycles: '3' });
    expect(run.errors).toEqual([]);
    expect(asked).toEqual(['python quantum', 'quantum']); // the second search found nothing new
    expect(run.events.filter((e) => e.type === 'reflection').map((e) => e.gaps)).toEqual([['quantum'], ['quantum']]);
    asked.length = 0;
    await agentStream(coder.baseUrl, { query: 'python quantum', maxCycles: '1' });
    expect(asked).toEqual(['python quantum']);
  });

  test('mode defaults: chat 1 cycle, coding 4, research 5', async () => {
    const never: Retriever = { search: async (q) => [{ url: `https://x.example/${asked.length}-${q.length}-${Math.random()}`, title: 't', snippet: 's', score: 1 }] };
    const coder2 = await startCoder({ retriever: { search: (q, o) => (asked.push(q), never.search(q, o)) } });
    try {
      for (const [mode, cycles] of [['chat', 1], ['coding', 4], ['research', 5]] as const) {
        asked.length = 0;
        const run = await agentStream(coder2.baseUrl, { query: 'unfindable words here', mode });
        expect(run.errors).toEqual([]);
        expect(asked.length, mode).toBe(cycles);
        expect(run.events[0]!.content).toContain(`${mode} run`);
      }
    } finally {
      await coder2.close();
    }
  });

  test('400 {detail}: query missing or empty, mode not chat|research|coding, maxCycles off its bounds', async () => {
    for (const query of ['', 'mode=research', 'query=x&mode=writing', 'query=x&maxCycles=0', 'query=x&maxCycles=11']) {
      const res = await raw(coder.baseUrl, 'GET', `/api/v1/agent/stream?${query}`);
      expect(res.status, query).toBe(400);
      expect(typeof res.body.detail).toBe('string');
      expect(contractProblems('/api/v1/agent/stream', 'get', res)).toEqual([]);
    }
    expect((await raw(coder.baseUrl, 'GET', '/api/v1/agent/stream?query=x', { key: null })).status).toBe(401);
  });

  test('sessionId records every frame as an event, the query and answer as messages, and continues with the earlier citations', async () => {
    const first = await agentStream(coder.baseUrl, { query: 'python', sessionId: 'agent-run' });
    const read = await raw(coder.baseUrl, 'GET', '/sessions/agent-run');
    expect(read.body.session).toBeNull();
    expect(read.body.events.map((e: { type: string }) => e.type)).toEqual(first.events.map((e) => e.type));
    expect(read.body.events[1].payload).toEqual({ tool: 'search', input: { query: 'python' } });
    expect(read.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    const second = await agentStream(coder.baseUrl, { query: 'encoding', sessionId: 'agent-run' });
    expect(second.events[0]!.content).toContain('continuing with 1 earlier citation(s)');
    expect(second.events.at(-1)!.result.citations.map((c: { url: string }) => c.url)).toEqual([corpus[1]!.url, corpus[0]!.url]);
    const other = await agentStream(coder.baseUrl, { query: 'x', sessionId: 'agent-run' }, KEY_2);
    expect({ status: other.status, body: other.body }).toEqual({ status: 404, body: { detail: 'Session not found' } });
  });

  test('a failing retriever ends the run with an error frame', async () => {
    const failing = await startCoder({ retriever: { search: async () => Promise.reject(new Error('down')) } });
    try {
      const run = await agentStream(failing.baseUrl, { query: 'anything' });
      expect(run.errors).toEqual([]);
      expect(run.events.at(-1)).toEqual({ type: 'error', code: 'RETRIEVAL_FAILED', message: 'The retriever failed; retry later' });
    } finally {
      await failing.close();
    }
  });
});
