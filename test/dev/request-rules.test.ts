/**
 * The request rules of POST /v1/search (seed "Grounded search", DECISIONS dev-1, dev-2, G-1), each
 * through HTTP: exactly one of query or messages, non-empty, a user turn, the last user turn is the
 * query, the two models and no other, and unknown fields ignored.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { expectCompletion, expectError, fixedSources, postSearch, recordingRetriever, startDev, type DevStub } from './support.js';

let dev: DevStub;
const retriever = recordingRetriever(fixedSources);

beforeAll(async () => {
  dev = await startDev({ retriever });
});
afterAll(() => dev.close());

describe('exactly one of query or messages (dev-2)', () => {
  test.each([
    ['neither', {}],
    ['neither, only a model', { model: 'dev-pro' }],
    ['both', { query: 'http caching', messages: [{ role: 'user', content: 'http caching' }] }],
  ])('%s is a 400 invalid_request', async (_name, body) => {
    const res = await postSearch(dev.baseUrl, body);
    expectError(res, 400, 'invalid_request_error', 'invalid_request');
    expect(res.body.error.message).toBe('Send exactly one of `query` or `messages`');
  });

  test.each([
    ['an empty query', { query: '' }, '`query` must not be empty'],
    ['a blank query', { query: ' \t\n ' }, '`query` must not be empty'],
    ['empty messages', { messages: [] }, '`messages` must not be empty'],
    ['messages without a user turn', { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'assistant', content: 'Sure.' }] }, '`messages` must contain a user turn'],
    ['a user turn with empty content', { messages: [{ role: 'user', content: '' }] }, '`messages[0].content` must not be empty'],
    ['a turn with an unknown role', { messages: [{ role: 'tool', content: 'x' }, { role: 'user', content: 'http' }] }, 'messages.0.role'],
    ['a query that is not a string', { query: 42 }, 'query must be string'],
  ])('%s is a 400 invalid_request', async (_name, body, message) => {
    const res = await postSearch(dev.baseUrl, body);
    expectError(res, 400, 'invalid_request_error', 'invalid_request');
    expect(res.body.error.message).toContain(message);
  });

  test('a body that is not JSON is a 400 invalid_json', async () => {
    const res = await postSearch(dev.baseUrl, '{"query": "http');
    expectError(res, 400, 'invalid_request_error', 'invalid_json');
  });

  test('a refused request never reaches retrieval', async () => {
    const before = retriever.calls.length;
    await postSearch(dev.baseUrl, { query: 'a', messages: [{ role: 'user', content: 'b' }] });
    await postSearch(dev.baseUrl, { query: '' });
    expect(retriever.calls.length).toBe(before);
  });
});

describe('the query', () => {
  test('query is searched as given', async () => {
    expectCompletion(await postSearch(dev.baseUrl, { query: 'How do ETags work?' }));
    expect(retriever.calls.at(-1)?.query).toBe('How do ETags work?');
  });

  test('with messages, the last user turn is the query; earlier turns only give context', async () => {
    const res = await postSearch(dev.baseUrl, {
      messages: [
        { role: 'system', content: 'Answer for a backend developer.' },
        { role: 'user', content: 'First question about caching' },
        { role: 'assistant', content: 'Caching answer.' },
        { role: 'user', content: 'Second question about SQL injection' },
        { role: 'assistant', content: 'A trailing assistant turn is not the query.' },
      ],
    });
    expectCompletion(res);
    expect(retriever.calls.at(-1)?.query).toBe('Second question about SQL injection');
  });
});

describe('models (dev-1)', () => {
  test('dev-pro is the default', async () => {
    expect(expectCompletion(await postSearch(dev.baseUrl, { query: 'caching' })).model).toBe('dev-pro');
  });

  test.each(['dev-pro', 'dev-flash'])('%s answers as itself', async (model) => {
    expect(expectCompletion(await postSearch(dev.baseUrl, { query: 'caching', model })).model).toBe(model);
  });

  test.each(['dev-ultra', 'gpt-4o', 'DEV-PRO', '', 7])('model %j is a 400 model_not_found', async (model) => {
    const res = await postSearch(dev.baseUrl, { query: 'caching', model });
    expectError(res, 400, 'invalid_request_error', 'model_not_found');
  });
});

describe('tolerant reader (G-1)', () => {
  test('unknown body fields, query parameters and headers are ignored', async () => {
    const res = await fetch(`${dev.baseUrl}/v1/search?_=123&debug=1`, {
      method: 'POST',
      headers: { Authorization: 'Bearer dev_test_key', 'Content-Type': 'application/json', 'X-Unknown': 'yes' },
      body: JSON.stringify({ query: 'caching', temperature: 0.2, stream: false, extra: { nested: true }, messages_hint: [] }),
    });
    expectCompletion({ status: res.status, body: await res.json() });
  });

  test('unknown fields inside a turn are ignored', async () => {
    const res = await postSearch(dev.baseUrl, { messages: [{ role: 'user', content: 'caching', name: 'ada', created_at: 1 }] });
    expectCompletion(res);
    expect(retriever.calls.at(-1)?.query).toBe('caching');
  });

  test('the typed client sends the published shape', async () => {
    const { data, response } = await dev.client().POST('/v1/search', { body: { query: 'caching', model: 'dev-flash' } });
    expect(response.status).toBe(200);
    expect(data?.object).toBe('search.completion');
  });
});
