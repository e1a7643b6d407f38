/**
 * The gateway's part of the coder scenario: a session with an exchange in it, then one call per
 * operation (sessions, messages, count_tokens, the agent stream, health) and the documented
 * refusals. Another owner's session (for the 404s that protect it) is made with the second seeded
 * key, `coder_test_key_2` (CODER_OTHER_KEY names another on a server seeded differently).
 */
import assert from 'node:assert/strict';
import { ScenarioSetupError } from './scenario.js';
import { otherKey, send, type CoderFixture, type CoderScenarioPart } from './coder-fixture.js';

/** As another owner: only the credential differs. */
const asOtherOwner = { authorization: `Bearer ${otherKey()}` };

const question = 'How do I read a file line by line in Python?';

export const gatewayPart: CoderScenarioPart = {
  async setup(fixture) {
    const created = await send(fixture, 'POST', '/sessions?workspace_root=/home/dev/project');
    const sessionId = (created.body as { session_id?: string } | undefined)?.session_id;
    if (created.status !== 200 || !sessionId) throw new ScenarioSetupError(`create a session: expected 200, got ${created.status}`);
    const exchange = await send(fixture, 'POST', '/v1/messages', { headers: { 'X-Session-Id': sessionId }, body: { model: 'coder-pro', max_tokens: 64, messages: [{ role: 'user', content: question }] } });
    if (exchange.status !== 200) throw new ScenarioSetupError(`send a message in the session: expected 200, got ${exchange.status}`);
    const foreign = await send(fixture, 'POST', '/sessions', { headers: asOtherOwner });
    const foreignId = (foreign.body as { session_id?: string } | undefined)?.session_id;
    if (foreign.status !== 200 || !foreignId) throw new ScenarioSetupError(`create a session with another owner's key: expected 200, got ${foreign.status}`);
    Object.assign(fixture.made, { sessionId, foreignSessionId: foreignId });
  },

  calls: {
    listSessions: (f) => send(f, 'GET', '/sessions/list?limit=10'),
    createSession: (f) => send(f, 'POST', `/sessions?session_id=${encodeURIComponent(f.made.sessionId!)}&workspace_root=/elsewhere`),
    getSession: (f) => send(f, 'GET', `/sessions/${encodeURIComponent(f.made.sessionId!)}`),
    createMessage: (f) => send(f, 'POST', '/v1/messages', { body: { model: 'coder-mini', max_tokens: 32, system: 'Be brief.', messages: [{ role: 'user', content: 'Say hello' }] } }),
    countMessageTokens: (f) => send(f, 'POST', '/v1/messages/count_tokens', { body: { model: 'coder-pro', messages: [{ role: 'user', content: question }] } }),
    streamAgent: (f) => send(f, 'GET', `/api/v1/agent/stream?query=${encodeURIComponent('python file reading')}&mode=chat`),
    getHealth: (f) => send(f, 'GET', '/health'),
  },

  expectations: {
    listSessions: (b, f) => {
      assert.equal(b.count, b.sessions.length, 'count is the number of summaries');
      const mine = b.sessions.find((s: { id: string }) => s.id === f.made.sessionId);
      assert.ok(mine, 'the list holds the session created');
      assert.deepEqual({ preview: mine.preview, message_count: mine.message_count }, { preview: question, message_count: 2 });
      assert.ok(!b.sessions.some((s: { id: string }) => s.id === f.made.foreignSessionId), "another owner's session is not listed");
    },
    createSession: (b, f) => assert.deepEqual(b, { session_id: f.made.sessionId }),
    getSession: (b, f) => {
      assert.deepEqual({ id: b.session?.id, workspace_root: b.session?.workspace_root }, { id: f.made.sessionId, workspace_root: '/home/dev/project' }, 'an existing session is left unchanged');
      assert.deepEqual(b.messages.map((m: { role: string }) => m.role), ['user', 'assistant']);
      assert.equal(b.messages[0]?.content, question);
    },
    createMessage: (b) => {
      assert.deepEqual({ type: b.type, role: b.role, model: b.model, stop_reason: b.stop_reason }, { type: 'message', role: 'assistant', model: 'coder-mini', stop_reason: 'end_turn' });
      assert.ok((b.content[0]?.text.length ?? 0) > 0, 'the answer has text');
    },
    countMessageTokens: (b) => assert.ok(b.input_tokens > 10, 'a question of a dozen words counts more than 10 tokens'),
    getHealth: (b) => assert.equal(b.status, 'ok'),
  },

  refusals: [
    { id: 'listSessions', status: 422, why: 'limit above 500', call: (f) => send(f, 'GET', '/sessions/list?limit=501') },
    { id: 'createSession', status: 422, why: 'the id `list` is refused (DECISIONS coder-5)', call: (f) => send(f, 'POST', '/sessions?session_id=list') },
    { id: 'createSession', status: 404, why: "another owner's session id", call: (f) => send(f, 'POST', `/sessions?session_id=${f.made.foreignSessionId}`) },
    { id: 'getSession', status: 404, why: "another owner's session", call: (f) => send(f, 'GET', `/sessions/${f.made.foreignSessionId}`) },
    { id: 'getSession', status: 422, why: 'a session id with a space', call: (f) => send(f, 'GET', '/sessions/not%20an%20id') },
    {
      id: 'createMessage',
      status: 404,
      why: "X-Session-Id of another owner's session",
      call: (f) => send(f, 'POST', '/v1/messages', { headers: { 'X-Session-Id': f.made.foreignSessionId! }, body: { model: 'coder-pro', messages: [{ role: 'user', content: 'x' }] } }),
    },
    {
      id: 'createMessage',
      status: 502,
      why: 'a claude-* model with no upstream configured (DECISIONS coder-1)',
      call: (f) => send(f, 'POST', '/v1/messages', { body: { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] } }),
    },
    { id: 'streamAgent', status: 404, why: "sessionId of another owner's session", call: (f) => send(f, 'GET', `/api/v1/agent/stream?query=x&sessionId=${f.made.foreignSessionId}`) },
  ],

  underSwitch: [
    { id: 'createSession', status: 503, switch: 'CODER_SESSION_STORE=off' },
    { id: 'getSession', status: 503, switch: 'CODER_SESSION_STORE=off' },
    { id: 'createMessage', status: 503, switch: 'CODER_ROUTER=off' },
    { id: 'createMessage', status: 504, switch: 'CODER_UPSTREAM_URL of a slow upstream, CODER_UPSTREAM_TIMEOUT_MS' },
    // DECISIONS coder-9: the upstream's own answers, passed through (test/coder/gateway-upstream.test.ts).
    ...([403, 413, 429, 529] as const).map((status) => ({ id: 'createMessage', status, switch: `CODER_UPSTREAM_URL of an upstream answering ${status}` })),
  ],
};
