/**
 * The mock's answers have the stubs' content (issue 26): an event stream is streamed in its wire
 * format, chosen by the request's `stream: true` as the stubs choose it, so the official OpenAI and
 * Anthropic SDKs read it; declared response headers carry their example or a sample of their
 * schema, not Prism's placeholders. Everything through HTTP, against `npm run mock`'s server.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startMockServer, type MockServer } from '../../mock/server.js';
import { contractChecker } from '../../scripts/lib/contract-checker.js';
import { deref, operationAt, valueAt } from '../../server-stubs/lib/openapi/document.js';
import { responseHeaders } from '../../server-stubs/lib/contract-answers.js';
import { loadContract } from '../../server-stubs/lib/contract.js';
import { parseEventStream } from '../../server-stubs/lib/sse.js';
import { writeBundle } from '../helpers/imported-documents.js';

const KEY = 'coder_test_key';
const coder = contractChecker('coder');

let mock: MockServer;
let origin: string;

beforeAll(async () => {
  mock = await startMockServer(0, '127.0.0.1');
  origin = `http://127.0.0.1:${mock.port}`;
}, 120_000);

afterAll(() => mock?.close());

/** What a pointer reaches in the named example of a stream operation's 200 (one frame), from the published contract. */
function frameExample(path: string, name: string, ...at: string[]): unknown {
  const { document } = loadContract('coder');
  const response = deref(document, operationAt(document, path, 'post')?.responses?.['200']);
  const frame: unknown = deref(document, response?.content?.['text/event-stream']?.examples?.[name])?.value;
  return valueAt(frame, at);
}

describe('the official OpenAI SDK reads the mock', () => {
  const openai = () => new OpenAI({ baseURL: `${origin}/coder/v1`, apiKey: KEY, maxRetries: 0 });

  test('stream: true gives the example chunks, the last before [DONE] with its finish_reason', async () => {
    const stream = await openai().chat.completions.create({ model: 'gateway-fast', stream: true, messages: [{ role: 'user', content: 'What does the gateway do?' }] });
    const chunks = [];
    let text = '';
    for await (const chunk of stream) {
      chunks.push(chunk);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks[0]!.object).toBe('chat.completion.chunk');
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(text).toBe(frameExample('/v1/chat/completions', 'contentChunk', 'data', 'choices', '0', 'delta', 'content'));
    expect(chunks.some((c) => c.choices[0]?.finish_reason === 'stop')).toBe(true);
  });

  test('without stream the same operation answers the JSON completion', async () => {
    const completion = await openai().chat.completions.create({ model: 'gateway-fast', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]!.message.content).toBeTruthy();
  });

  test('a status asked for with Prefer still answers its JSON body, stream or not', async () => {
    const client = new OpenAI({ baseURL: `${origin}/coder/v1`, apiKey: KEY, maxRetries: 0, defaultHeaders: { prefer: 'code=503' } });
    const error = await client.chat.completions.create({ model: 'gateway-fast', stream: true, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
  });

  test('on the wire: text/event-stream without a length, data-only frames on the contract, then data: [DONE]', async () => {
    // The SDK's own Accept: the body, not Accept, asks for the stream.
    const response = await fetch(`${origin}/coder/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ model: 'gateway-fast', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    const text = await response.text();
    expect(text).toMatch(/^data: \{/);
    expect(text).not.toMatch(/^event:/m);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    const { frames, errors } = coder.streamErrors('/v1/chat/completions', 'post', text);
    expect(errors).toEqual([]);
    expect(frames.length).toBeGreaterThan(1);
  });
});

describe('the official Anthropic SDK reads the mock', () => {
  const anthropic = () => new Anthropic({ baseURL: `${origin}/coder`, authToken: KEY, apiKey: null, maxRetries: 0 });

  test('messages.stream gives text events and the final message', async () => {
    const stream = anthropic().messages.stream({ model: 'coder-pro', max_tokens: 1024, messages: [{ role: 'user', content: 'Say hello' }] });
    const texts: string[] = [];
    stream.on('text', (text) => texts.push(text));
    const message = await stream.finalMessage();
    expect(texts.length).toBeGreaterThan(0);
    const delta = frameExample('/v1/messages', 'contentBlockDelta', 'data', 'delta', 'text');
    expect(texts.join('')).toBe(delta);
    expect(message).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn', content: [{ type: 'text', text: delta }] });
  });

  test('create({ stream: true }) gives the events in order, message_start to message_stop', async () => {
    const stream = await anthropic().messages.create({ model: 'coder-pro', max_tokens: 1024, stream: true, messages: [{ role: 'user', content: 'Say hello' }] });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(types).toContain('content_block_delta');
  });

  test('on the wire: an event line per frame, each frame on the contract', async () => {
    const response = await fetch(`${origin}/coder/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ model: 'coder-pro', max_tokens: 1024, stream: true, messages: [{ role: 'user', content: 'Say hello' }] }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    expect(text.startsWith('event: message_start\ndata: {')).toBe(true);
    const { frames, errors } = coder.streamErrors('/v1/messages', 'post', text);
    expect(errors).toEqual([]);
    expect(frames.every((frame) => typeof (frame as { event?: unknown }).event === 'string')).toBe(true);
  });
});

describe('declared response headers', () => {
  test('carry their example or a sample of their schema, as the contract stub answers them, not a placeholder', async () => {
    const response = await fetch(`${origin}/blog/v1/series`, {
      method: 'POST',
      headers: { authorization: 'Bearer mbk_test_pro', 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Contracts in practice', description: 'From the first file to a stub.' }),
    });
    expect(response.status).toBe(201);
    const { document } = loadContract('blog');
    const declared = deref(document, operationAt(document, '/v1/series', 'post')?.responses?.['201']);
    const expected = responseHeaders(document, declared, { optional: true });
    expect(Object.keys(expected).length).toBeGreaterThan(0);
    for (const [name, value] of Object.entries(expected)) {
      expect(response.headers.get(name), name).toBe(value);
      expect(value, name).not.toBe('string');
    }
    expect(Number.isInteger(Number(response.headers.get('x-service-usage-used')))).toBe(true);
    expect(response.headers.get('x-service-usage-limit')).toMatch(/^(0|[1-9][0-9]*|unlimited)$/);
    expect(Number.isNaN(Date.parse(response.headers.get('x-service-usage-resets')!))).toBe(false);
  });
});

describe('an imported document', () => {
  /** Its stream on the wire: a comment, and a frame whose data is a JSON string (its quotes are part of it). */
  const WIRE = 'event: delta\ndata: {"text":"hello"}\n\n: keep-alive\n\nevent: delta\ndata: " there"\n\nevent: done\ndata: {}\n\n';
  /** A stream chosen by `stream: true`, frames with event names, headers with and without an example. */
  const document = {
    openapi: '3.1.0',
    info: { title: 'Completions', version: '1.0.0' },
    paths: {
      '/complete': {
        post: {
          operationId: 'complete',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { type: 'object', required: ['prompt'], properties: { prompt: { type: 'string' }, stream: { type: 'boolean' } } } } },
          },
          responses: {
            '200': {
              description: 'The completion, or its events',
              headers: {
                'X-Request-Id': { schema: { type: 'string' }, example: 'req_0001' },
                'X-Tokens-Left': { required: true, schema: { type: 'integer', minimum: 3, maximum: 3 } },
                'Content-Length': { schema: { type: 'integer' }, example: 2 },
              },
              content: {
                'application/json': { schema: { type: 'object', properties: { text: { type: 'string' } } }, example: { text: 'hello there' } },
                'text/event-stream': {
                  schema: { type: 'object', required: ['event', 'data'], properties: { event: { enum: ['delta', 'done'] }, data: {} } },
                  examples: {
                    delta: { value: { event: 'delta', data: { text: 'hello' } } },
                    done: { value: { event: 'done', data: {} } },
                  },
                  'x-wire-example': WIRE,
                },
              },
            },
          },
        },
      },
    },
  };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mock-streams-'));
  let imported: MockServer;
  const complete = (body: unknown) =>
    fetch(`http://127.0.0.1:${imported.port}/completions/complete`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    writeBundle(dir, 'completions', document);
    imported = await startMockServer(0, '127.0.0.1', { bundlesDir: dir });
  }, 120_000);
  afterAll(async () => {
    await imported?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('stream: true streams its wire example as it is written, event names and comments included; without it, the JSON example', async () => {
    const streamed = await complete({ prompt: 'hi', stream: true });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await streamed.text();
    expect(text).toBe(WIRE);
    expect(parseEventStream(text).frames.map((f) => f.event)).toEqual(['delta', 'delta', 'done']);
    const plain = await complete({ prompt: 'hi' });
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await plain.json()).toEqual({ text: 'hello there' });
  });

  test('declared headers: the example, else a sample of the schema; a declared Content-Length is left to HTTP', async () => {
    for (const stream of [false, true]) {
      const response = await complete({ prompt: 'hi', stream });
      expect(response.headers.get('x-request-id')).toBe('req_0001');
      expect(response.headers.get('x-tokens-left')).toBe('3');
      const body = await response.text();
      expect(body.length).toBeGreaterThan(2);
    }
  });
});
