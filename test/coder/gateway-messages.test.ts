import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { countTokens } from '../../server-stubs/lib/tokens.js';
import { anthropic, contractProblems, KEY, KEY_2, raw, startCoder, type CoderStub } from './support.js';

describe('POST /v1/messages, routed models (official SDK)', () => {
  let coder: CoderStub;
  beforeAll(async () => {
    coder = await startCoder();
  });
  afterAll(() => coder.close());

  test('messages.create with authToken (bearer): a message object, deterministic', async () => {
    const request = { model: 'coder-pro', max_tokens: 64, system: 'Be brief.', messages: [{ role: 'user' as const, content: 'How do I read a file?' }] };
    const message = await anthropic(coder.baseUrl).messages.create(request);
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'coder-pro',
      content: [{ type: 'text', text: 'coder-pro (local router) received: How do I read a file?' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
    });
    expect(message.id).toMatch(/^msg_/);
    expect(message.usage.input_tokens).toBeGreaterThan(5);
    expect(message.usage.output_tokens).toBeGreaterThan(5);
    const again = await anthropic(coder.baseUrl, { apiKey: KEY }).messages.create(request);
    expect({ ...again, id: message.id }).toEqual(message);
  });

  test('content blocks and a tool result are flattened to text; the answer repeats the last user turn', async () => {
    const message = await anthropic(coder.baseUrl, { apiKey: KEY }).messages.create({
      model: 'coder-mini',
      max_tokens: 1024,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Run it' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'run', input: { cmd: 'ls' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'a.txt' }] }, { type: 'text', text: 'and now?' }] },
      ],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'coder-mini (local router) received: a.txt\nand now?' }]);
  });

  test('max_tokens is raised to at least 1024: an answer longer than that is cut there (stop_reason max_tokens)', async () => {
    // The local answer quotes 2,000 characters of the question: CJK characters make that over 1024 tokens.
    const long = Array.from({ length: 2000 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7) % 20000))).join('');
    expect(countTokens(long)).toBeGreaterThan(1100);
    // Twice: the bytes of a character the first cut split must not come out in the second answer.
    for (let i = 0; i < 2; i++) {
      const cut = await anthropic(coder.baseUrl).messages.create({ model: 'coder-pro', max_tokens: 5, messages: [{ role: 'user', content: long }] });
      expect(cut.stop_reason).toBe('max_tokens');
      // A cut inside a character's bytes drops that character rather than answer U+FFFD: a token or two short of 1024.
      expect(cut.usage.output_tokens).toBeLessThanOrEqual(1024);
      expect(cut.usage.output_tokens).toBeGreaterThan(1020);
      const [block] = cut.content;
      expect(block?.type).toBe('text');
      const text = block?.type === 'text' ? block.text : '';
      expect(text).not.toContain('\uFFFD');
      expect(`coder-pro (local router) received: ${long}`.startsWith(text)).toBe(true);
    }
    const short = await anthropic(coder.baseUrl).messages.create({ model: 'coder-pro', max_tokens: 5, messages: [{ role: 'user', content: 'hi there, how are you doing today?' }] });
    expect(short.stop_reason).toBe('end_turn');
  });

  test('special-token text in a prompt (<|endoftext|>) is counted as text, not refused', async () => {
    const message = await anthropic(coder.baseUrl, { apiKey: KEY }).messages.create({ model: 'coder-mini', max_tokens: 1024, messages: [{ role: 'user', content: 'what does <|endoftext|> mean?' }] });
    expect(message.content).toEqual([{ type: 'text', text: 'coder-mini (local router) received: what does <|endoftext|> mean?' }]);
    expect(message.usage.input_tokens).toBeGreaterThan(countTokens('what does  mean?'));
  });

  test('a megabyte model name is cut to max_tokens like any long answer (the cut is estimated past 20,000 characters)', async () => {
    const model = `coder-${'x'.repeat(1_500_000)}`;
    const message = await anthropic(coder.baseUrl, { apiKey: KEY }).messages.create({ model, max_tokens: 8000, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.stop_reason).toBe('max_tokens');
    const [block] = message.content;
    if (block?.type !== 'text') throw new Error(`expected a text block, got ${block?.type}`);
    expect(model.startsWith(block.text)).toBe(true);
    expect(block.text.length).toBeGreaterThan(20_000);
    expect(message.usage.output_tokens).toBeLessThanOrEqual(8000);
    expect(message.usage.output_tokens).toBe(countTokens(block.text));
  });

  test('messages.stream accumulates to finalMessage(); the wire has every event in order, each frame on the contract', async () => {
    const stream = anthropic(coder.baseUrl).messages.stream({ model: 'coder-pro', max_tokens: 100, messages: [{ role: 'user', content: 'Say hello to the whole wide world' }] });
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'coder-pro (local router) received: Say hello to the whole wide world' }]);
    expect(final.stop_reason).toBe('end_turn');
    const wire = await raw(coder.baseUrl, 'POST', '/v1/messages', { body: { model: 'coder-pro', stream: true, messages: [{ role: 'user', content: 'Say hello to the whole wide world' }] } });
    expect(wire.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(contractProblems('/v1/messages', 'post', wire)).toEqual([]);
    const events = [...wire.text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(events[0]).toBe('message_start');
    expect(events.slice(1, 3)).toEqual(['content_block_start', 'ping']);
    expect(events.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(events.filter((e) => e === 'content_block_delta').length).toBeGreaterThan(1);
    expect(final.usage.output_tokens).toBeGreaterThan(0);
  });

  test('countTokens: an estimate, the same for the same input, more for more text; x-api-key and bearer', async () => {
    const body = { model: 'coder-pro', system: 'Be brief.', messages: [{ role: 'user' as const, content: 'How do I read a file line by line?' }] };
    const a = await anthropic(coder.baseUrl).messages.countTokens(body);
    const b = await anthropic(coder.baseUrl, { apiKey: KEY }).messages.countTokens(body);
    expect(a).toEqual(b);
    expect(a.input_tokens).toBeGreaterThan(10);
    const more = await anthropic(coder.baseUrl).messages.countTokens({ ...body, messages: [...body.messages, { role: 'assistant', content: 'With a for loop over the file object.' }] });
    expect(more.input_tokens).toBeGreaterThan(a.input_tokens);
    const bad = await raw(coder.baseUrl, 'POST', '/v1/messages/count_tokens', { body: { model: 'coder-pro' } });
    expect({ status: bad.status, type: bad.body.error?.type }).toEqual({ status: 400, type: 'invalid_request_error' });
    expect(contractProblems('/v1/messages/count_tokens', 'post', bad)).toEqual([]);
  });

  test('400 for any invalid request, in the Anthropic error body: SDK sees BadRequestError', async () => {
    await expect(anthropic(coder.baseUrl).messages.create({ model: 'coder-pro', max_tokens: 10, messages: 'nope' as never })).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    for (const body of ['{"model":', { messages: [] }, { model: 'coder-pro', messages: [{ role: 'robot', content: 'x' }] }]) {
      const res = await raw(coder.baseUrl, 'POST', '/v1/messages', { body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      expect(contractProblems('/v1/messages', 'post', res)).toEqual([]);
    }
  });

  test('401: routed models need a gateway key, by bearer or x-api-key; the published messages', async () => {
    await expect(anthropic(coder.baseUrl, { authToken: 'sk-not-ours' }).messages.create({ model: 'coder-pro', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(
      Anthropic.AuthenticationError,
    );
    const invalid = await raw(coder.baseUrl, 'POST', '/v1/messages', { key: null, headers: { 'x-api-key': 'sk-not-ours' }, body: { model: 'coder-pro', messages: [] } });
    expect({ status: invalid.status, body: invalid.body }).toEqual({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'Invalid API key' } } });
    const missing = await raw(coder.baseUrl, 'POST', '/v1/messages', { key: null, body: { model: 'coder-pro', messages: [] } });
    expect(missing.body.error.message).toBe('Missing or invalid Authorization header');
    const count = await raw(coder.baseUrl, 'POST', '/v1/messages/count_tokens', { key: null, headers: { 'x-api-key': 'sk-not-ours' }, body: { model: 'claude-x', messages: [] } });
    expect(count.status).toBe(401);
  });

  test('X-Session-Id records the user turn and the answer; another key\'s session is 404', async () => {
    await raw(coder.baseUrl, 'POST', '/sessions?session_id=chat-1');
    const client = new Anthropic({ baseURL: coder.baseUrl, authToken: KEY, apiKey: null, maxRetries: 0, defaultHeaders: { 'X-Session-Id': 'chat-1' } });
    await client.messages.create({ model: 'coder-pro', max_tokens: 10, messages: [{ role: 'user', content: 'first question' }] });
    await client.messages.stream({ model: 'coder-pro', max_tokens: 10, messages: [{ role: 'user', content: 'second question' }] }).finalMessage();
    const read = await raw(coder.baseUrl, 'GET', '/sessions/chat-1');
    expect(read.body.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'first question'],
      ['assistant', 'coder-pro (local router) received: first question'],
      ['user', 'second question'],
      ['assistant', 'coder-pro (local router) received: second question'],
    ]);
    const intruder = await raw(coder.baseUrl, 'POST', '/v1/messages', { key: KEY_2, headers: { 'X-Session-Id': 'chat-1' }, body: { model: 'coder-pro', messages: [{ role: 'user', content: 'x' }] } });
    expect({ status: intruder.status, type: intruder.body.error.type }).toEqual({ status: 404, type: 'not_found_error' });
    expect(contractProblems('/v1/messages', 'post', intruder)).toEqual([]);
    expect((await raw(coder.baseUrl, 'GET', '/sessions/chat-1')).body.messages).toHaveLength(4);
  });
});

describe('router off', () => {
  test('routed models answer 503; count_tokens still works', async () => {
    const coder = await startCoder({ router: false });
    try {
      const res = await raw(coder.baseUrl, 'POST', '/v1/messages', { body: { model: 'coder-pro', messages: [{ role: 'user', content: 'x' }] } });
      expect({ status: res.status, body: res.body }).toEqual({ status: 503, body: { type: 'error', error: { type: 'api_error', message: 'Model router not initialized' } } });
      expect(contractProblems('/v1/messages', 'post', res)).toEqual([]);
      expect((await raw(coder.baseUrl, 'POST', '/v1/messages/count_tokens', { body: { model: 'coder-pro', messages: [] } })).status).toBe(200);
    } finally {
      await coder.close();
    }
  });
});
