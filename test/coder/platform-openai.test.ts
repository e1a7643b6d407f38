/**
 * The OpenAI-style routes and the models, through the official `openai` SDK unchanged (base URL
 * `${stub}/coder/v1`), as a client of the gateway would call them.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { call, contract, contractErrors, KEY, KEY_2, startCoder, type CoderStub } from './platform-support.js';

let coder: CoderStub;
let openai: OpenAI;
const sdk = (apiKey: string, stub = coder) => new OpenAI({ baseURL: `${stub.baseUrl}/v1`, apiKey, maxRetries: 0 });

beforeAll(async () => {
  coder = await startCoder();
  openai = sdk(KEY);
});
afterAll(() => coder?.close());

describe('chat completions', () => {
  test('a completion answers through the router with the conversation sent', async () => {
    const completion = await openai.chat.completions.create({
      model: 'test-fast',
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'What is the gateway?' }] },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]!.message.content).toBe('test-fast heard 2 messages: What is the gateway?');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ prompt_tokens: 10, total_tokens: 10 + completion.usage!.completion_tokens });
    expect(coder.router.requests.at(-1)!.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is the gateway?' },
    ]);
  });

  test('max_tokens caps the answer with finish_reason length', async () => {
    const completion = await openai.chat.completions.create({ model: 'test-fast', max_tokens: 3, messages: [{ role: 'user', content: 'hello there' }] });
    expect(completion.choices[0]).toMatchObject({ message: { content: 'test-fast heard 1' }, finish_reason: 'length' });
  });

  test('stream: true sends chunks the SDK assembles, usage last, then [DONE]', async () => {
    const stream = await openai.chat.completions.create({
      model: 'test-fast',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'stream this answer please' }],
    });
    let text = '';
    const chunks = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text).toBe('test-fast heard 1 messages: stream this answer please');
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(chunks.at(-1)!.usage?.total_tokens).toBeGreaterThan(0);
  });

  test('every stream frame is on the contract and the last is the literal [DONE]', async () => {
    const response = await fetch(`${coder.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'test-fast', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    const { frames, errors } = contract.streamErrors('/v1/chat/completions', 'post', text);
    expect(errors).toEqual([]);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(frames.at(-1)).toEqual({ data: '[DONE]' });
  });

  test('the router switched off answers 503 in the OpenAI body', async () => {
    const off = await startCoder({ router: false });
    try {
      const error = await sdk(KEY, off).chat.completions.create({ model: 'test-fast', messages: [{ role: 'user', content: 'hi' }] }).catch((e) => e);
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect(error.status).toBe(503);
      expect(error.error).toMatchObject({ type: 'server_error', code: 'router_unavailable' });
      const raw = await call(off.baseUrl, 'POST', '/v1/responses', { body: { model: 'test-fast', input: 'hi' } });
      expect(raw.status).toBe(503);
      expect(contractErrors('/v1/responses', 'post', raw)).toEqual([]);
    } finally {
      await off.close();
    }
  });

  test('invalid input is a 400 and a wrong key a 401, in the OpenAI error body', async () => {
    const bad = await openai.chat.completions.create({ model: 'test-fast', messages: [] }).catch((e) => e);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect(bad.error).toMatchObject({ type: 'invalid_request_error', param: 'messages' });
    const unauthenticated = await sdk('not-a-key').chat.completions.create({ model: 'test-fast', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(unauthenticated).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(unauthenticated.error).toMatchObject({ message: 'Invalid API key', type: 'authentication_error', param: null, code: null });
    const raw = await call(coder.baseUrl, 'POST', '/v1/chat/completions', { body: '{"model":', key: KEY });
    expect(raw.status).toBe(400);
    expect(contractErrors('/v1/chat/completions', 'post', raw)).toEqual([]);
  });
});

describe('embeddings', () => {
  test('base64 (the SDK default) decodes to the float vectors, which are deterministic unit vectors', async () => {
    const input = ['first text', 'second text'];
    const floats = await openai.embeddings.create({ model: 'embed', input, encoding_format: 'float' });
    const decoded = await openai.embeddings.create({ model: 'embed', input });
    expect(floats.data.map((d) => d.index)).toEqual([0, 1]);
    expect(floats.data[0]!.embedding).toHaveLength(256);
    expect(decoded.data.map((d) => d.embedding)).toEqual(floats.data.map((d) => d.embedding));
    const again = await openai.embeddings.create({ model: 'embed', input: 'first text', encoding_format: 'float' });
    expect(again.data[0]!.embedding).toEqual(floats.data[0]!.embedding);
    expect(floats.data[0]!.embedding).not.toEqual(floats.data[1]!.embedding);
    expect(Math.hypot(...floats.data[0]!.embedding)).toBeCloseTo(1, 5);
    expect(floats.usage.prompt_tokens).toBeGreaterThan(0);
  });

  test('dimensions asks for shorter vectors', async () => {
    const short = await openai.embeddings.create({ model: 'embed', input: 'x', dimensions: 8, encoding_format: 'float' });
    expect(short.data[0]!.embedding).toHaveLength(8);
    const raw = await call(coder.baseUrl, 'POST', '/v1/embeddings', { body: { model: 'embed', input: 'x', dimensions: 257 } });
    expect(raw.status).toBe(400);
    expect(raw.body.error.param).toBe('dimensions');
  });
});

describe('moderations', () => {
  test('listed words flag their category; other texts are clear', async () => {
    const result = await openai.moderations.create({ input: ['I will kill this process', 'Good morning'] });
    expect(result.results[0]).toMatchObject({ flagged: true, categories: { violence: true, hate: false }, category_scores: { violence: 0.9 } });
    expect(result.results[1]!.flagged).toBe(false);
    expect(Object.values(result.results[1]!.categories).some(Boolean)).toBe(false);
  });
});

describe('responses (stateful)', () => {
  test('previous_response_id gives the router the earlier turn; output_text works in the SDK', async () => {
    const first = await openai.responses.create({ model: 'test-fast', input: 'My name is Ada.' });
    expect(first.output_text).toBe('test-fast heard 1 messages: My name is Ada.');
    const second = await openai.responses.create({ model: 'test-fast', input: 'What is my name?', previous_response_id: first.id, instructions: 'Answer briefly.' });
    expect(second.previous_response_id).toBe(first.id);
    expect(coder.router.requests.at(-1)!.messages).toEqual([
      { role: 'system', content: 'Answer briefly.' },
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'test-fast heard 1 messages: My name is Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);
    expect(second.output_text).toBe('test-fast heard 4 messages: What is my name?');
    const retrieved = await openai.responses.retrieve(second.id);
    expect(retrieved.id).toBe(second.id);
    expect(retrieved.output_text).toBe(second.output_text);
  });

  test('max_output_tokens makes the response incomplete', async () => {
    const cut = await openai.responses.create({ model: 'test-fast', input: 'a long question indeed', max_output_tokens: 2 });
    expect(cut.status).toBe('incomplete');
    expect(cut.incomplete_details).toEqual({ reason: 'max_output_tokens' });
  });

  test('store: false keeps nothing to continue from', async () => {
    const unstored = await openai.responses.create({ model: 'test-fast', input: 'forget me', store: false });
    const error = await openai.responses.create({ model: 'test-fast', input: 'next', previous_response_id: unstored.id }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("another key owner's response is a 404, to continue and to retrieve", async () => {
    const mine = await openai.responses.create({ model: 'test-fast', input: 'private' });
    const other = sdk(KEY_2);
    const continued = await other.responses.create({ model: 'test-fast', input: 'x', previous_response_id: mine.id }).catch((e) => e);
    expect(continued).toBeInstanceOf(OpenAI.NotFoundError);
    expect(continued.error).toMatchObject({ type: 'not_found_error', code: 'response_not_found' });
    const retrieved = await call(coder.baseUrl, 'GET', `/v1/responses/${mine.id}`, { key: KEY_2 });
    expect(retrieved.status).toBe(404);
    expect(contractErrors('/v1/responses/{response_id}', 'get', retrieved)).toEqual([]);
  });
});

describe("a URL the OpenAI-style routes cannot serve answers in that family's body (G-2, DECISIONS coder-5)", () => {
  const openaiBody = (type: string) => ({ error: { message: expect.any(String), type, param: null, code: null } });

  test('a path that is not valid percent-encoding, under or on an OpenAI-style route: 404 {error: {message, type, param, code}}', async () => {
    for (const [method, path] of [
      ['POST', '/v1/chat/completions/%E0%A4%A'],
      ['GET', '/v1/chat/completions/%E0%A4%A'],
      ['POST', '/v1/embeddings/%E0%A4%A'],
      ['POST', '/v1/moderations/%E0%A4%A'],
      ['GET', '/v1/responses/%E0%A4%A'],
    ] as const) {
      const res = await call(coder.baseUrl, method, path, { body: method === 'POST' ? { model: 'test-fast', messages: [] } : undefined });
      expect({ method, path, status: res.status, body: res.body }).toEqual({ method, path, status: 404, body: openaiBody('not_found_error') });
    }
    // The declared body of the route: the getResponse 404's schema.
    const malformed = await call(coder.baseUrl, 'GET', '/v1/responses/%E0%A4%A');
    expect(malformed.body.error.message).toContain('not valid percent-encoding');
    expect(contractErrors('/v1/responses/{response_id}', 'get', malformed)).toEqual([]);
  });

  test('another method on an OpenAI-style path: 405 with Allow, in the same body', async () => {
    const res = await call(coder.baseUrl, 'POST', '/v1/responses/%E0%A4%A', { body: {} });
    expect({ status: res.status, allow: res.headers.get('allow'), body: res.body }).toEqual({ status: 405, allow: 'GET, HEAD, OPTIONS', body: openaiBody('invalid_request_error') });
  });

  test('the official SDK reads it as a NotFoundError with the message', async () => {
    // The SDK's own methods encode the id: its generic call sends the path as written.
    const missing: unknown = await openai.post('/chat/completions/%E0%A4%A', { body: { model: 'test-fast', messages: [] } }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect((missing as InstanceType<typeof OpenAI.NotFoundError>).error).toMatchObject({ type: 'not_found_error', param: null, code: null });
  });

  test('the other families keep theirs: {detail} on sessions, the messages body under /v1/messages, {detail} outside every route', async () => {
    expect((await call(coder.baseUrl, 'GET', '/sessions/%E0%A4%A')).body).toEqual({ detail: expect.stringContaining('not valid percent-encoding') });
    expect((await call(coder.baseUrl, 'POST', '/v1/messages/%E0%A4%A', { body: {} })).body).toEqual({ type: 'error', error: { type: 'not_found_error', message: expect.any(String) } });
    expect((await call(coder.baseUrl, 'GET', '/v1/%E0%A4%A')).body).toEqual({ detail: expect.any(String) });
  });
});

describe('models', () => {
  test('the SDK lists and retrieves the router models; the catalog has the metadata', async () => {
    const ids = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    expect(ids).toEqual(['test-fast', 'test-large']);
    expect(await openai.models.retrieve('test-large')).toMatchObject({ id: 'test-large', object: 'model', owned_by: 'gateway' });
    const missing = await openai.models.retrieve('nope').catch((e) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    const listed = await call(coder.baseUrl, 'GET', '/models');
    expect(listed.body).toEqual({ object: 'list', data: [expect.objectContaining({ id: 'test-fast', object: 'model' }), expect.objectContaining({ id: 'test-large' })] });
    const catalog = await call(coder.baseUrl, 'GET', '/models/catalog');
    expect(catalog.body.data[1]).toMatchObject({ id: 'test-large', context_window: 131072, max_output_tokens: 8192 });
    expect(contractErrors('/models/catalog', 'get', catalog)).toEqual([]);
  });

  test('models need the key ({detail} body)', async () => {
    const res = await call(coder.baseUrl, 'GET', '/models', { key: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Missing or invalid Authorization header' });
  });
});
