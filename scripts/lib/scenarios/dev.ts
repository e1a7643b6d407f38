/**
 * The dev scenario: a grounded search by query and one by conversation, each answer held to the
 * published rules (citations slice `answer` and cite listed sources only, usage adds up), and the
 * documented refusals a default server can answer. The 503 needs retrieval switched off.
 */
import assert from 'node:assert/strict';
import { createDevClient, type DevClient } from '../../../generated/dev/client.gen.js';
import { outcomeOf, patiently, type ServiceScenario, transportOf } from './scenario.js';
import type { operations } from '../../../generated/dev/types.gen.js';

export interface DevFixture {
  client: DevClient;
  /** the same server with the seeded revoked key */
  revoked: DevClient;
  send: <R extends { response: Response }>(call: () => Promise<R>) => Promise<R>;
}

interface Completion {
  object: string;
  grounded: boolean;
  answer: string;
  annotations: Array<{ type: string; url_citation: { start_index: number; end_index: number; url: string; title: string } }>;
  sources: Array<{ url: string; title: string; snippet: string }>;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** What every grounded answer must say beyond its schema. */
export function checkGroundedAnswer(body: Completion): void {
  assert.equal(body.object, 'search.completion');
  assert.equal(body.grounded, true);
  assert.ok(body.sources.length > 0, 'a developer question about HTTP caching finds sources');
  const listed = new Map(body.sources.map((s) => [s.url, s]));
  for (const { url_citation: cite } of body.annotations) {
    assert.ok(cite.start_index < cite.end_index && cite.end_index <= body.answer.length, `citation ${cite.start_index}..${cite.end_index} lies inside the answer`);
    const source = listed.get(cite.url);
    assert.ok(source, `cited ${cite.url} is one of the sources`);
    assert.equal(cite.title, source.title);
    assert.equal(body.answer.slice(cite.start_index, cite.end_index), source.snippet, 'the citation slices exactly the cited text');
  }
  assert.equal(body.usage.total_tokens, body.usage.prompt_tokens + body.usage.completion_tokens);
  assert.ok(body.usage.completion_tokens > 0);
}

export const devScenario: ServiceScenario<DevFixture, operations> = {
  async setup(ctx) {
    const client = createDevClient({ baseUrl: ctx.baseUrl, headers: ctx.headers, fetch: transportOf(ctx) });
    const revoked = createDevClient({ baseUrl: ctx.baseUrl, headers: { Authorization: 'Bearer dev_test_revoked' }, fetch: transportOf(ctx) });
    return { client, revoked, send: (call) => patiently(ctx, call) };
  },

  calls: {
    createSearch: async ({ client, send }) =>
      outcomeOf(await send(() => client.POST('/v1/search', { body: { query: 'How do ETags make HTTP caching cheaper?' } }))),
  },

  expectations: {
    createSearch: (b) => {
      const body = b as Completion;
      checkGroundedAnswer(body);
      assert.equal((body as Completion & { model: string }).model, 'dev-pro', 'dev-pro is the default model');
    },
  },

  refusals: [
    {
      id: 'createSearch',
      status: 400,
      why: 'an unknown model is a 400 (DECISIONS dev-1)',
      call: async ({ client, send }) =>
        outcomeOf(await send(() => client.POST('/v1/search', { body: { query: 'http caching', model: 'dev-ultra' as 'dev-pro' } }))),
    },
    {
      id: 'createSearch',
      status: 400,
      why: 'both query and messages is a 400 (DECISIONS dev-2)',
      call: async ({ client, send }) =>
        outcomeOf(await send(() => client.POST('/v1/search', { body: { query: 'http caching', messages: [{ role: 'user', content: 'http caching' }] } }))),
    },
    {
      id: 'createSearch',
      status: 401,
      why: 'the seeded revoked key is refused (DECISIONS dev-3)',
      call: async ({ revoked }) => outcomeOf(await revoked.POST('/v1/search', { body: { query: 'http caching' } })),
    },
  ],

  underSwitch: [{ id: 'createSearch', status: 503, switch: 'DEV_RETRIEVAL=off' }],
};

/** The service's scenario, found by its file name (index.ts). */
export default devScenario;
