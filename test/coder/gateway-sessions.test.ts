import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHash } from 'node:crypto';
import { createManualClock } from '../../server-stubs/lib/clock.js';
import { agentStream, contractProblems, KEY, KEY_2, raw, startCoder, type CoderStub } from './support.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('sessions', () => {
  const clock = createManualClock();
  let coder: CoderStub;
  beforeAll(async () => {
    coder = await startCoder({ clock });
  });
  afterAll(() => coder.close());

  test('create with a generated id, then read it: record owned by the SHA-256 of the key, no messages yet', async () => {
    const created = await raw(coder.baseUrl, 'POST', '/sessions?workspace_root=/home/dev/project');
    expect(created.status).toBe(200);
    expect(contractProblems('/sessions', 'post', created)).toEqual([]);
    const id: string = created.body.session_id;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const read = await raw(coder.baseUrl, 'GET', `/sessions/${id}`);
    expect(contractProblems('/sessions/{session_id}', 'get', read)).toEqual([]);
    expect(read.body).toEqual({
      session: { id, created_at: new Date(clock.now()).toISOString(), workspace_root: '/home/dev/project', owner_hash: sha256(KEY) },
      messages: [],
      events: [],
    });
  });

  test('an id that exists is left unchanged and answered 200 all the same; a body is ignored', async () => {
    expect((await raw(coder.baseUrl, 'POST', '/sessions?session_id=same-id&workspace_root=/a')).body).toEqual({ session_id: 'same-id' });
    clock.advance(1000);
    const again = await raw(coder.baseUrl, 'POST', '/sessions?session_id=same-id&workspace_root=/b', { body: { session_id: 'other', workspace_root: '/c' } });
    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: { session_id: 'same-id' } });
    const read = await raw(coder.baseUrl, 'GET', '/sessions/same-id');
    expect(read.body.session.workspace_root).toBe('/a');
    expect((await raw(coder.baseUrl, 'GET', '/sessions/other')).status).toBe(404);
  });

  test('refused with 422 {detail: [{loc, msg, type}]}: the id `list`, a relative workspace_root, an id with a space', async () => {
    for (const path of ['/sessions?session_id=list', '/sessions?workspace_root=relative/path', '/sessions?session_id=a%20b', `/sessions?session_id=${'7'.repeat(129)}`]) {
      const res = await raw(coder.baseUrl, 'POST', path);
      expect(res.status, path).toBe(422);
      expect(contractProblems('/sessions', 'post', res)).toEqual([]);
      expect(res.body.detail[0].loc[0]).toBe('query');
    }
    const badPath = await raw(coder.baseUrl, 'GET', '/sessions/a%20b');
    expect(badPath.status).toBe(422);
    expect(badPath.body.detail[0].loc).toEqual(['path', 'session_id']);
  });

  test('another key: its own list, 404 (never 403) on read and on create of the same id', async () => {
    await raw(coder.baseUrl, 'POST', '/sessions?session_id=mine-only');
    const read = await raw(coder.baseUrl, 'GET', '/sessions/mine-only', { key: KEY_2 });
    expect({ status: read.status, body: read.body }).toEqual({ status: 404, body: { detail: 'Session not found' } });
    const create = await raw(coder.baseUrl, 'POST', '/sessions?session_id=mine-only', { key: KEY_2 });
    expect(create.status).toBe(404);
    const list = await raw(coder.baseUrl, 'GET', '/sessions/list', { key: KEY_2 });
    expect(list.body.sessions.map((s: { id: string }) => s.id)).not.toContain('mine-only');
    expect((await raw(coder.baseUrl, 'GET', '/sessions/never-created')).status).toBe(404);
  });

  test('401 with the published messages in {detail}', async () => {
    const missing = await raw(coder.baseUrl, 'GET', '/sessions/list', { key: null });
    expect({ status: missing.status, body: missing.body }).toEqual({ status: 401, body: { detail: 'Missing or invalid Authorization header' } });
    const invalid = await raw(coder.baseUrl, 'GET', '/sessions/list', { key: 'not-a-key' });
    expect({ status: invalid.status, body: invalid.body }).toEqual({ status: 401, body: { detail: 'Invalid API key' } });
  });
});

describe('session list', () => {
  const clock = createManualClock();
  let coder: CoderStub;
  beforeAll(async () => {
    coder = await startCoder({ clock, retriever: { search: async () => [] } });
  });
  afterAll(() => coder.close());

  test('newest first, count = summaries returned, limit 1-500 (422 outside), default 50', async () => {
    for (let i = 0; i < 55; i++) {
      await raw(coder.baseUrl, 'POST', `/sessions?session_id=s${i}`);
      if (i % 2 === 0) clock.advance(1000); // pairs share an instant: creation order still decides
    }
    const page = await raw(coder.baseUrl, 'GET', '/sessions/list');
    expect(contractProblems('/sessions/list', 'get', page)).toEqual([]);
    expect(page.body.count).toBe(50);
    expect(page.body.sessions.slice(0, 3).map((s: { id: string }) => s.id)).toEqual(['s54', 's53', 's52']);
    expect((await raw(coder.baseUrl, 'GET', '/sessions/list?limit=500')).body.count).toBe(55);
    expect((await raw(coder.baseUrl, 'GET', '/sessions/list?limit=1')).body.sessions.map((s: { id: string }) => s.id)).toEqual(['s54']);
    for (const limit of ['0', '501', 'x']) {
      const res = await raw(coder.baseUrl, 'GET', `/sessions/list?limit=${limit}`);
      expect(res.status, limit).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', 'limit']);
    }
  });

  test('summary: preview is the first user message cut to 120 characters (no ellipsis), counts and last activity', async () => {
    await raw(coder.baseUrl, 'POST', '/sessions?session_id=preview&workspace_root=/w');
    const long = `${'é'.repeat(100)}${'x'.repeat(50)}`;
    clock.advance(5000);
    const sent = await raw(coder.baseUrl, 'POST', '/v1/messages', { body: { model: 'coder-pro', max_tokens: 10, messages: [{ role: 'user', content: long }] }, headers: { 'X-Session-Id': 'preview' } });
    expect(sent.status).toBe(200);
    await raw(coder.baseUrl, 'POST', '/v1/messages', { body: { model: 'coder-pro', messages: [{ role: 'user', content: 'second' }] }, headers: { 'X-Session-Id': 'preview' } });
    const summary = (await raw(coder.baseUrl, 'GET', '/sessions/list?limit=1')).body.sessions[0];
    expect(summary).toEqual({
      id: 'preview',
      created_at: new Date(clock.now() - 5000).toISOString(),
      workspace_root: '/w',
      preview: `${'é'.repeat(100)}${'x'.repeat(20)}`,
      message_count: 4,
      last_activity: new Date(clock.now()).toISOString(),
    });
  });

  test('the 200 most recent events are returned, oldest first', async () => {
    // A chat run with a retriever that finds nothing emits 7 events; 30 runs make 210.
    for (let i = 0; i < 30; i++) {
      const run = await agentStream(coder.baseUrl, { query: `run ${i}`, mode: 'chat', sessionId: 'many-events' });
      expect(run.status).toBe(200);
    }
    const read = await raw(coder.baseUrl, 'GET', '/sessions/many-events');
    expect(contractProblems('/sessions/{session_id}', 'get', read)).toEqual([]);
    expect(read.body.session).toBeNull(); // events, but never created (DECISIONS coder-3)
    expect(read.body.events).toHaveLength(200);
    // Run 0's 7 events and the first 3 of run 1 fell off.
    expect(read.body.events.slice(0, 5).map((e: { type: string }) => e.type)).toEqual(['reflection', 'thinking', 'content', 'done', 'thinking']);
    expect(read.body.events[4].payload).toEqual({ stage: 'plan', content: 'chat run on "run 2": up to 1 search cycle(s)' });
    expect(read.body.events[199].type).toBe('done');
    expect(read.body.messages).toHaveLength(60);
  });
});

describe('switches', () => {
  test('store off: the list degrades to 200 empty, create and get answer 503', async () => {
    const coder = await startCoder({ sessionStore: false });
    try {
      const list = await raw(coder.baseUrl, 'GET', '/sessions/list');
      expect({ status: list.status, body: list.body }).toEqual({ status: 200, body: { sessions: [], count: 0 } });
      for (const [method, path, op] of [['POST', '/sessions', '/sessions'], ['GET', '/sessions/any', '/sessions/{session_id}']] as const) {
        const res = await raw(coder.baseUrl, method, path);
        expect({ status: res.status, body: res.body }).toEqual({ status: 503, body: { detail: 'Session manager not initialized' } });
        expect(contractProblems(op, method.toLowerCase(), res)).toEqual([]);
      }
      expect((await raw(coder.baseUrl, 'GET', '/health')).body).toMatchObject({ status: 'degraded', session_store: 'disabled' });
    } finally {
      await coder.close();
    }
  });

  test('no keys configured: any token passes and sessions are unowned, visible to everyone', async () => {
    const coder = await startCoder({ keys: [] });
    try {
      await raw(coder.baseUrl, 'POST', '/sessions?session_id=shared', { key: 'alice-token' });
      const read = await raw(coder.baseUrl, 'GET', '/sessions/shared', { key: 'bob-token' });
      expect(read.status).toBe(200);
      expect(read.body.session.owner_hash).toBeNull();
      expect((await raw(coder.baseUrl, 'GET', '/sessions/list', { key: 'carol-token' })).body.sessions.map((s: { id: string }) => s.id)).toEqual(['shared']);
      expect((await raw(coder.baseUrl, 'POST', '/sessions?session_id=shared', { key: 'carol-token' })).status).toBe(200);
    } finally {
      await coder.close();
    }
  });

  test('reset clears the sessions', async () => {
    const coder = await startCoder();
    try {
      await raw(coder.baseUrl, 'POST', '/sessions?session_id=before-reset');
      await coder.app.reset();
      expect((await raw(coder.baseUrl, 'GET', '/sessions/before-reset')).status).toBe(404);
    } finally {
      await coder.close();
    }
  });
});

describe('health', () => {
  test('needs the bearer key; says what is up', async () => {
    const coder = await startCoder({ upstreamUrl: 'http://127.0.0.1:9' });
    try {
      expect((await raw(coder.baseUrl, 'GET', '/health', { key: null })).status).toBe(401);
      const res = await raw(coder.baseUrl, 'GET', '/health');
      expect(contractProblems('/health', 'get', res)).toEqual([]);
      expect(res.body).toEqual({ status: 'ok', session_store: 'ok', router: 'ok', upstream: 'configured' });
    } finally {
      await coder.close();
    }
  });
});
