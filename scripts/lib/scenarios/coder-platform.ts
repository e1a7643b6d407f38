/**
 * The platform's part of the coder scenario: the OpenAI-style routes, models, A2A agents and tool
 * servers. The tool server is the stub's seeded stdio one (`node
 * server-stubs/coder/tool-servers/notes.mjs`, the command line a default deployment may start), so
 * the running stub needs no loopback switch; a server seeded differently names its own command line
 * in CODER_TOOL_SERVER (JSON of `{command, args}`). Another owner's response (for the 404 that
 * protects it) is made with `coder_test_key_2` (CODER_OTHER_KEY).
 */
import assert from 'node:assert/strict';
import { ScenarioSetupError } from './scenario.js';
import { otherKey, send, type CoderFixture, type CoderScenarioPart } from './coder-fixture.js';
import { valueAt } from '../../../server-stubs/lib/openapi/document.js';

/** The stdio command line the target lets run. */
const toolServer = (): { command: string; args: string[] } =>
  process.env.CODER_TOOL_SERVER ? JSON.parse(process.env.CODER_TOOL_SERVER) : { command: 'node', args: ['server-stubs/coder/tool-servers/notes.mjs'] };

/** Tool-server names unique to this run: a target checked moments ago still holds the last run's. */
const unique = (label: string) => `scn-${label}-${Math.random().toString(36).slice(2, 10)}`;
const configure = (fixture: CoderFixture, name: string) => send(fixture, 'POST', '/mcp/configure', { body: { name, transport: 'stdio', ...toolServer() } });

/** A setup call's body, read member by member (`valueAt`): a target's answer may not hold what it should. */
async function made(step: string, result: { status: number; body?: unknown }, status: number): Promise<unknown> {
  if (result.status !== status) throw new ScenarioSetupError(`${step}: expected ${status}, got ${result.status} ${JSON.stringify(result.body ?? null).slice(0, 200)}`);
  return result.body;
}

const UNKNOWN_RESPONSE = 'resp_00000000000000000000000000000000';
const question = 'What does the gateway do?';

export const platformPart: CoderScenarioPart = {
  async setup(fixture) {
    const models = await made('list the models', await send(fixture, 'GET', '/models'), 200);
    const model = valueAt(models, ['data', '0', 'id']);
    if (typeof model !== 'string') throw new ScenarioSetupError('list the models: the router serves none');
    const response = await made('create a response', await send(fixture, 'POST', '/v1/responses', { body: { model, input: 'My name is Ada.' } }), 200);
    const foreign = await made(
      "create another owner's response",
      await send(fixture, 'POST', '/v1/responses', { body: { model, input: 'private' }, headers: { authorization: `Bearer ${otherKey()}` } }),
      200,
    );
    const task = await made(
      'send the research agent a message',
      await send(fixture, 'POST', '/agents/research/tasks', { body: { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'scenario-1', role: 'ROLE_USER', parts: [{ text: question }] } } } }),
      200,
    );
    const toolServerName = unique('notes');
    await made('connect the seeded tool server', await configure(fixture, toolServerName), 201);
    const toRemove = unique('remove');
    await made('connect a tool server to remove', await configure(fixture, toRemove), 201);
    Object.assign(fixture.made, { model, responseId: valueAt(response, ['id']), foreignResponseId: valueAt(foreign, ['id']), taskId: valueAt(task, ['result', 'task', 'id']), toolServerName, toolServerToRemove: toRemove });
  },

  calls: {
    createChatCompletion: (f) => send(f, 'POST', '/v1/chat/completions', { body: { model: f.made.model, messages: [{ role: 'user', content: question }] } }),
    createEmbedding: (f) => send(f, 'POST', '/v1/embeddings', { body: { model: 'embed', input: ['one', 'two'], dimensions: 16 } }),
    createModeration: (f) => send(f, 'POST', '/v1/moderations', { body: { input: ['Good morning', 'I will kill this process'] } }),
    createResponse: (f) => send(f, 'POST', '/v1/responses', { body: { model: f.made.model, input: 'What is my name?', previous_response_id: f.made.responseId } }),
    getResponse: (f) => send(f, 'GET', `/v1/responses/${f.made.responseId}`),
    listModels: (f) => send(f, 'GET', '/models'),
    listModelCatalog: (f) => send(f, 'GET', '/models/catalog'),
    listOpenAIModels: (f) => send(f, 'GET', '/v1/models'),
    getOpenAIModel: (f) => send(f, 'GET', `/v1/models/${encodeURIComponent(f.made.model!)}`),
    getAgentCard: (f) => send(f, 'GET', '/.well-known/a2a-agent-card'),
    listAgents: (f) => send(f, 'GET', '/agents'),
    getAgent: (f) => send(f, 'GET', '/agents/coding'),
    sendAgentTask: (f) => send(f, 'POST', '/agents/research/tasks', { body: { jsonrpc: '2.0', id: 'get-1', method: 'GetTask', params: { id: f.made.taskId } } }),
    configureToolServer: (f) => configure(f, unique('configured')),
    listToolServers: (f) => send(f, 'GET', '/mcp/servers'),
    listTools: (f) => send(f, 'GET', '/mcp/tools'),
    callTool: (f) => send(f, 'POST', '/mcp/call', { body: { server: f.made.toolServerName, tool: 'echo', arguments: { text: 'hello' } } }),
    removeToolServer: (f) => send(f, 'POST', '/mcp/remove', { body: { name: f.made.toolServerToRemove } }),
  },

  expectations: {
    createChatCompletion: (b, f) => {
      assert.equal(b.object, 'chat.completion');
      assert.equal(b.model, f.made.model);
      assert.equal(b.choices[0]?.message.role, 'assistant');
    },
    createEmbedding: (b) => {
      assert.deepEqual(b.data.map((d) => [d.index, d.embedding.length]), [[0, 16], [1, 16]]);
      assert.notDeepEqual(b.data[0]?.embedding, b.data[1]?.embedding, 'different texts embed differently');
    },
    createModeration: (b) => assert.deepEqual(b.results.map((r) => [r.flagged, r.categories.violence]), [[false, false], [true, true]]),
    createResponse: (b, f) => {
      assert.equal(b.previous_response_id, f.made.responseId);
      assert.equal(b.output[0]?.content[0]?.type, 'output_text');
    },
    getResponse: (b, f) => assert.equal(b.id, f.made.responseId),
    listModels: (b, f) => assert.ok(b.data.some((m) => m.id === f.made.model), 'the list holds the model used'),
    listModelCatalog: (b, f) => assert.ok(b.data.some((m) => m.id === f.made.model && m.context_window > 0), 'the catalog has the model with its context window'),
    listOpenAIModels: (b, f) => assert.ok(b.data.some((m) => m.id === f.made.model), 'the alias lists the same models'),
    getOpenAIModel: (b, f) => assert.equal(b.id, f.made.model),
    getAgentCard: (b) => assert.match(b.supportedInterfaces[0]?.url ?? '', /\/agents\/research\/tasks$/),
    listAgents: (b) => assert.deepEqual(b.agents.map((a) => a.id), ['research', 'coding']),
    getAgent: (b) => assert.match(b.supportedInterfaces[0]?.url ?? '', /\/agents\/coding\/tasks$/),
    sendAgentTask: (b, f) => {
      assert.equal(b.id, 'get-1');
      assert.ok('result' in b && 'id' in b.result, 'GetTask answers the task, not an error');
      assert.equal(b.result.id, f.made.taskId);
      assert.equal(b.result.status.state, 'TASK_STATE_COMPLETED');
    },
    configureToolServer: (b) => assert.deepEqual([b.status, b.transport, b.tool_count > 0], ['connected', 'stdio', true]),
    listToolServers: (b, f) => assert.ok(b.servers.some((s) => s.name === f.made.toolServerName), 'the list holds the server connected'),
    listTools: (b, f) => assert.ok(b.tools.some((t) => t.server === f.made.toolServerName && t.name === 'echo'), 'the seeded server lists echo'),
    callTool: (b) => assert.deepEqual({ content: b.content, is_error: b.is_error }, { content: [{ type: 'text', text: 'hello' }], is_error: false }),
    removeToolServer: (b, f) => assert.deepEqual(b, { name: f.made.toolServerToRemove, removed: true }),
  },

  refusals: [
    {
      id: 'createResponse',
      status: 404,
      why: "another owner's response cannot be continued",
      call: (f) => send(f, 'POST', '/v1/responses', { body: { model: f.made.model, input: 'x', previous_response_id: f.made.foreignResponseId } }),
    },
    { id: 'getResponse', status: 404, why: 'an unknown response id', call: (f) => send(f, 'GET', `/v1/responses/${UNKNOWN_RESPONSE}`) },
    { id: 'getOpenAIModel', status: 404, why: 'a model the router does not serve', call: (f) => send(f, 'GET', '/v1/models/no-such-model') },
    { id: 'getOpenAIModel', status: 422, why: 'a model id over 128 characters', call: (f) => send(f, 'GET', `/v1/models/${'m'.repeat(129)}`) },
    { id: 'getAgent', status: 404, why: 'an unknown agent', call: (f) => send(f, 'GET', '/agents/nobody') },
    {
      id: 'sendAgentTask',
      status: 404,
      why: 'a task for an unknown agent',
      call: (f) => send(f, 'POST', '/agents/nobody/tasks', { body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: f.made.taskId } } }),
    },
    {
      id: 'configureToolServer',
      status: 403,
      why: 'a stdio command line the deployment does not allow',
      call: (f) => send(f, 'POST', '/mcp/configure', { body: { name: unique('shell'), transport: 'stdio', command: 'sh', args: ['-c', 'id'] } }),
    },
    { id: 'configureToolServer', status: 409, why: 'a name the owner already uses', call: (f) => configure(f, f.made.toolServerName!) },
    {
      id: 'configureToolServer',
      status: 422,
      why: 'a tool server whose host does not resolve cannot be registered',
      call: (f) => send(f, 'POST', '/mcp/configure', { body: { name: unique('gone'), transport: 'http', url: 'http://tools.invalid/mcp' } }),
    },
    { id: 'callTool', status: 404, why: 'an unknown tool server', call: (f) => send(f, 'POST', '/mcp/call', { body: { server: unique('none'), tool: 'echo' } }) },
    {
      id: 'callTool',
      status: 502,
      why: 'a tool server that went away during the call',
      call: (f) => send(f, 'POST', '/mcp/call', { body: { server: f.made.toolServerName, tool: 'exit' } }),
    },
    { id: 'removeToolServer', status: 404, why: 'an unknown tool server', call: (f) => send(f, 'POST', '/mcp/remove', { body: { name: unique('none') } }) },
  ],

  underSwitch: [
    { id: 'createChatCompletion', status: 503, switch: 'CODER_ROUTER=off' },
    { id: 'createResponse', status: 503, switch: 'CODER_ROUTER=off' },
  ],
};
