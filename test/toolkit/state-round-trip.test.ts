/**
 * Every service's state goes through its one state store (CONVENTIONS §5): what a client made
 * through HTTP is in the snapshot, a snapshot taken through JSON restores into a fresh app, and the
 * fresh app answers it through HTTP as the first did (lists, reads, allowances already used). A
 * snapshot that does not fit is refused with StateRejected before anything changes.
 */
import { afterEach, describe, expect, test } from 'vitest';
import blog from '../../server-stubs/blog/app.js';
import chainRpc, { encodeStubTransaction } from '../../server-stubs/chain-rpc/app.js';
import coder from '../../server-stubs/coder/app.js';
import reach from '../../server-stubs/reach/app.js';
import social from '../../server-stubs/social/app.js';
import { createManualClock, type StubClock } from '../../server-stubs/lib/clock.js';
import type { AnswerBody } from '../helpers/answer-body.js';
import type { StubInstance, StubService } from '../../server-stubs/lib/service.js';
import { StateRejected, type StateSnapshot } from '../../server-stubs/lib/store.js';
import { bearerRaw, type RawOptions, type RawResponse } from '../helpers/raw.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';

/** A request to the running app: method, path below the base path, options as `raw` takes them. */
type Call = (method: string, path: string, options?: RawOptions) => Promise<RawResponse>;

interface Case {
  service: StubService<{ clock: StubClock; mineIntervalMs?: number }>;
  /** the key requests carry unless they name another (null: none) */
  key: string | null;
  /** makes something through HTTP; answers what the reads need to find it */
  make(call: Call, clock: StubClock): Promise<AnswerBody>;
  /** shows through HTTP, without changing anything, that what was made is there */
  present(call: Call, made: AnswerBody): Promise<void>;
  /** shows through HTTP that it behaves: rules that depend on it apply */
  behaves(call: Call, made: AnswerBody): Promise<void>;
}

const ok = (res: RawResponse, status = 200) => {
  expect(res.status, res.text).toBe(status);
  return res.body;
};

/** One JSON-RPC call over HTTP POST; answers `result`, failing on an `error`. */
async function rpc(call: Call, method: string, params: AnswerBody = {}): Promise<AnswerBody> {
  const body = ok(await call('POST', '/', { body: { jsonrpc: '2.0', id: 1, method, params } }));
  expect(body.error, JSON.stringify(body.error)).toBeUndefined();
  return body.result;
}

const cases: Record<string, Case> = {
  blog: {
    service: blog,
    key: 'mbk_test_free',
    async make(call) {
      const draft = ok(await call('POST', '/v1/drafts', { body: { title: 'Kept', body_markdown: '# Kept\n\nAcross a restore.' } }), 201);
      return { draftId: draft.id };
    },
    async present(call) {
      const plan = ok(await call('GET', '/v1/plan'));
      expect(plan.usage.find((u: AnswerBody) => u.feature === 'mcp_write_actions').used).toBe(1);
    },
    async behaves(call, made) {
      const published = await call('POST', `/v1/drafts/${made.draftId}/publish`);
      expect(ok(published, 201).title).toBe('Kept');
      // The allowance counts on from what was restored: this write is the month's second.
      expect(published.headers.get('x-service-usage-used')).toBe('2');
      expect((await call('POST', `/v1/drafts/${made.draftId}/publish`)).status).toBe(404);
    },
  },

  social: {
    service: social,
    key: 'social_test_key',
    async make(call, clock) {
      const scheduledAt = new Date(clock.now() + 3 * 3_600_000).toISOString();
      const { post } = ok(await call('POST', '/api/schedule', { body: { contentText: 'Kept across a restore', platform: 'linkedin', scheduledAt } }), 201);
      return { id: post.id, scheduledAt };
    },
    async present(call, made) {
      const { posts } = ok(await call('GET', '/api/posts'));
      expect(posts.map((p: AnswerBody) => [p.id, p.status])).toEqual([[made.id, 'pending']]);
      expect(ok(await call('GET', '/api/posts', { key: 'social_test_free' })).posts).toEqual([]);
    },
    async behaves(call, made) {
      // The safety check sees the restored post: the same slot on the same account is taken.
      const again = await call('POST', '/api/schedule', { body: { contentText: 'Something else', platform: 'linkedin', scheduledAt: made.scheduledAt } });
      expect(again.status, again.text).toBe(409);
    },
  },

  reach: {
    service: reach,
    key: 'msr_test_key',
    async make(call) {
      const { deal } = ok(await call('POST', '/api/deals', { body: { name: 'Kept deal', value: 1200 } }), 201);
      const job = ok(await call('POST', '/api/lead-finder/search', { body: { query: 'software' } }), 202);
      return { dealId: deal.id, jobId: job.jobId };
    },
    async present(call, made) {
      expect(ok(await call('GET', '/api/deals')).deals.map((d: AnswerBody) => d.id)).toEqual([made.dealId]);
      expect(ok(await call('GET', `/api/lead-finder/jobs/${made.jobId}`)).job.query).toBe('software');
      expect(ok(await call('GET', '/billing/usage')).leadsUsed).toBe(1);
    },
    async behaves(call, made) {
      const moved = ok(await call('PATCH', `/api/deals/${made.dealId}`, { body: { status: 'closed' } }));
      expect(moved.deal).toMatchObject({ id: made.dealId, name: 'Kept deal', status: 'closed' });
      // Another account's key does not see the restored rows.
      expect((await call('GET', `/api/lead-finder/jobs/${made.jobId}`, { key: 'mrk_test_key' })).status).toBe(404);
    },
  },

  coder: {
    service: coder,
    key: 'coder_test_key',
    async make(call) {
      const session = ok(await call('POST', '/sessions?workspace_root=/home/dev/kept'));
      const response = ok(await call('POST', '/v1/responses', { body: { model: 'test-fast', input: 'Remember the word teal.' } }));
      return { sessionId: session.session_id, responseId: response.id };
    },
    async present(call, made) {
      expect(ok(await call('GET', `/sessions/${made.sessionId}`)).session.workspace_root).toBe('/home/dev/kept');
      expect(ok(await call('GET', '/sessions/list')).sessions.map((s: AnswerBody) => s.id)).toEqual([made.sessionId]);
      expect(ok(await call('GET', `/v1/responses/${made.responseId}`)).id).toBe(made.responseId);
    },
    async behaves(call, made) {
      // The owner came through: another key's owner is refused both.
      expect((await call('GET', `/sessions/${made.sessionId}`, { key: 'coder_test_key_2' })).status).toBe(404);
      expect((await call('GET', `/v1/responses/${made.responseId}`, { key: 'coder_test_key_2' })).status).toBe(404);
      const next = ok(await call('POST', '/v1/responses', { body: { model: 'test-fast', input: 'Which word?', previous_response_id: made.responseId } }));
      expect(next.previous_response_id).toBe(made.responseId);
    },
  },

  'chain-rpc': {
    service: chainRpc,
    key: null,
    async make(call) {
      const coinbase = (await rpc(call, 'chain_getBlock', { height: 1 })).transactions[0];
      const raw = encodeStubTransaction({ spends: { txid: coinbase, vout: 0 }, outputs: [{ address: 'carol', amount: '4900000000' }] });
      const sent = await rpc(call, 'chain_sendTransaction', { raw });
      expect(sent.accepted).toBe(true);
      return { txid: sent.txid, raw };
    },
    async present(call, made) {
      expect((await rpc(call, 'chain_getTransaction', { txid: made.txid })).status).toBe('pending');
      expect((await rpc(call, 'chain_getMempoolInfo')).size).toBe(1);
    },
    async behaves(call, made) {
      const [block] = (await rpc(call, 'chain_mine', { count: 1 })) as AnswerBody[];
      expect(block).toMatchObject({ height: 3, transactions: [made.txid] });
      expect(await rpc(call, 'chain_getTransaction', { txid: made.txid })).toMatchObject({ status: 'confirmed', blockHeight: 3, confirmations: 1 });
      // The restored mempool was taken whole: it is empty again.
      expect((await rpc(call, 'chain_getMempoolInfo')).size).toBe(0);
    },
  },
};

const running: RunningStub[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function start(service: Case['service'], clock: StubClock, key: string | null) {
  const instance: StubInstance = await service.create({ clock, mineIntervalMs: 0 });
  const stub = await serveStub(instance, service.basePath, service.errors);
  running.push(stub);
  const raw = bearerRaw(key ?? '');
  const call: Call = (method, path, options = {}) => raw(stub.baseUrl, method, path, { key, ...options });
  return { state: instance.state!, call };
}

describe.each(Object.entries(cases))('%s', (_slug, c) => {
  test('what a client made comes back in a fresh app restored from a JSON snapshot, and behaves', async () => {
    const clock = createManualClock();
    const first = await start(c.service, clock, c.key);
    const made = await c.make(first.call, clock);
    await c.present(first.call, made);
    const snapshot: unknown = JSON.parse(JSON.stringify(first.state.snapshot()));

    const fresh = await start(c.service, clock, c.key);
    fresh.state.restore(snapshot);
    await c.present(fresh.call, made);
    await c.behaves(fresh.call, made);
    // The restored app keeps its own copy: the snapshot given is not what it changed.
    expect(snapshot).toEqual(JSON.parse(JSON.stringify(first.state.snapshot())));
  });

  test('a snapshot with an unknown collection is refused before anything changes', async () => {
    const clock = createManualClock();
    const app = await start(c.service, clock, c.key);
    const made = await c.make(app.call, clock);
    const before = JSON.stringify(app.state.snapshot());
    const emptied: StateSnapshot = { collections: { ...Object.fromEntries(Object.keys(app.state.snapshot().collections).map((name) => [name, []])), nonsense: [] }, cells: {} };
    expect(() => app.state.restore(emptied)).toThrow(StateRejected);
    expect(() => app.state.restore(emptied)).toThrow(/unknown collection "nonsense"/);
    expect(JSON.stringify(app.state.snapshot())).toBe(before);
    await c.present(app.call, made);
  });
});
