/**
 * The generated coder stream readers (generated/coder/streams.gen.ts) against the gateway stub:
 * the agent stream (frames told apart by `data.type`), a streamed message (by `event`) and a
 * streamed chat completion (JSON chunks, then the literal `[DONE]` as text).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Retriever, RetrievedSource } from '../../server-stubs/lib/retrieval.js';
import { createCoderStreams, StreamHttpError, type CoderStreams } from '../../generated/coder/streams.gen.js';
import { KEY, startCoder, type CoderStub } from './support.js';

const corpus: RetrievedSource[] = [
  { url: 'https://docs.example/python-files', title: 'Python files', snippet: 'Open a file and iterate over its lines.', score: 2 },
  { url: 'https://docs.example/encoding', title: 'Text encoding', snippet: 'Pass encoding="utf-8" when opening text.', score: 1 },
];
const retriever: Retriever = {
  async search(query) {
    const words = query.toLowerCase().split(/\s+/);
    return corpus.filter((s) => words.some((w) => `${s.title} ${s.snippet}`.toLowerCase().includes(w)));
  },
};

describe('generated coder stream readers', () => {
  let coder: CoderStub;
  let streams: CoderStreams;
  beforeAll(async () => {
    coder = await startCoder({ retriever });
    streams = createCoderStreams({ baseUrl: coder.baseUrl, headers: { Authorization: `Bearer ${KEY}` } });
  });
  afterAll(() => coder.close());

  test('streamAgent: typed frames through the terminal done, whose answer the content deltas spell', async () => {
    const types: string[] = [];
    let deltas = '';
    let answer: string | undefined;
    for await (const frame of streams.streamAgent({ params: { query: { query: 'python file encoding' } } })) {
      types.push(frame.data.type);
      if (frame.data.type === 'content') deltas += frame.data.delta;
      if (frame.data.type === 'done') answer = frame.data.result.content;
    }
    expect(types).toEqual(['thinking', 'tool_call', 'tool_result', 'reflection', 'thinking', 'content', 'content', 'done']);
    expect(answer).toBe(deltas);
    expect(answer).toContain('Python files [1]');
  });

  test('streamAgent without a query (params off the types): StreamHttpError 400 with the JSON body', async () => {
    const iterator = streams.streamAgent({ params: { query: { query: '' } } });
    const error = await iterator.next().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StreamHttpError);
    expect((error as StreamHttpError).status).toBe(400);
    expect(typeof (error as StreamHttpError).body).toBe('object');
  });

  test('createMessageStream sends stream: true and yields the Messages events in order', async () => {
    const events: string[] = [];
    let text = '';
    for await (const frame of streams.createMessageStream({
      body: { model: 'coder-pro', max_tokens: 100, messages: [{ role: 'user', content: 'Say hello' }] },
    })) {
      events.push(frame.event);
      if (frame.event === 'content_block_delta' && frame.data.delta.type === 'text_delta') text += frame.data.delta.text;
    }
    expect(events[0]).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
    expect(text).toBe('coder-pro (local router) received: Say hello');
  });

  test('createChatCompletionStream: JSON chunks, then [DONE] kept as text', async () => {
    const frames = [];
    for await (const frame of streams.createChatCompletionStream({
      body: { model: 'test-fast', messages: [{ role: 'user', content: 'stream this' }] },
    })) frames.push(frame);
    expect(frames.at(-1)).toEqual({ data: '[DONE]' });
    const text = frames
      .slice(0, -1)
      .map((f) => (typeof f.data === 'string' ? '' : (f.data.choices[0]?.delta.content ?? '')))
      .join('');
    expect(text).toBe('test-fast (local router) received: stream this');
  });
});
