/**
 * Agent-to-agent discovery and tasks through the official `@a2a-js/sdk` client, configured only
 * with a fetch that sends the gateway key (the card needs it too, DECISIONS coder-6).
 */
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { call, contractErrors, KEY, KEY_2, startCoder, type CoderStub } from './platform-support.js';
import { valueAt } from '../../server-stubs/lib/openapi/document.js';

let coder: CoderStub;
beforeAll(async () => {
  coder = await startCoder();
});
afterAll(() => coder?.close());

/** An A2A client factory whose every request carries `key`. */
function factoryFor(key: string) {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
}

const userMessage = (text: string) => ({
  message: { messageId: crypto.randomUUID(), role: 1 /* ROLE_USER */, parts: [{ content: { $case: 'text' as const, value: text } }] },
});

describe('A2A', () => {
  test('the SDK reads the well-known card and runs a task to completion; the task can be read back', async () => {
    const client = await factoryFor(KEY).createFromUrl(coder.stub.origin, '/coder/.well-known/a2a-agent-card');
    // Read as the JSON it is: the SDK types the answer as a message or a task.
    const sent: unknown = await client.sendMessage(userMessage('What does the gateway do?') as never);
    expect(valueAt(sent, ['id'])).toEqual(expect.any(String));
    expect(valueAt(sent, ['status', 'state'])).toBe(3); // TASK_STATE_COMPLETED
    const answer = valueAt(sent, ['artifacts', '0', 'parts', '0', 'content']);
    expect(answer).toEqual({ $case: 'text', value: expect.stringContaining('What does the gateway do?') });
    // The agent's instructions came first, then the caller's text.
    expect(coder.router.requests.at(-1)!.messages.map((m) => m.role)).toEqual(['system', 'user']);
    const read: unknown = await client.getTask({ id: valueAt(sent, ['id']) } as never);
    expect(valueAt(read, ['id'])).toBe(valueAt(sent, ['id']));
    expect(valueAt(read, ['artifacts', '0', 'parts', '0', 'content', 'value'])).toBe(valueAt(answer, ['value']));
  });

  test("another key owner cannot read the task (JSON-RPC task not found)", async () => {
    const mine = await factoryFor(KEY).createFromUrl(coder.stub.origin, '/coder/agents/coding');
    const task: unknown = await mine.sendMessage(userMessage('Reverse a string') as never);
    const theirs = await factoryFor(KEY_2).createFromUrl(coder.stub.origin, '/coder/agents/coding');
    await expect(theirs.getTask({ id: valueAt(task, ['id']) } as never)).rejects.toThrow(/not found/i);
  });

  test('the card names the JSON-RPC interface of its agent, at the host the caller used', async () => {
    const card = await call(coder.baseUrl, 'GET', '/.well-known/a2a-agent-card');
    expect(card.body.supportedInterfaces).toEqual([{ url: `${coder.baseUrl}/agents/research/tasks`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
    const list = await call(coder.baseUrl, 'GET', '/agents');
    expect(list.body.agents.map((a: { id: string }) => a.id)).toEqual(['research', 'coding']);
    expect(contractErrors('/agents', 'get', list)).toEqual([]);
  });

  test('protocol failures are JSON-RPC errors; HTTP failures are {detail}', async () => {
    const rpc = (body: unknown, agent = 'research') => call(coder.baseUrl, 'POST', `/agents/${agent}/tasks`, { body });
    expect((await rpc({ jsonrpc: '2.0', id: 7, method: 'CancelTask', params: {} })).body).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32601, message: expect.any(String) } });
    expect((await rpc({ jsonrpc: '2.0', id: 8, method: 'SendMessage', params: { message: { parts: [] } } })).body.error.code).toBe(-32602);
    expect((await rpc({ jsonrpc: '2.0', id: 9, method: 'GetTask', params: { id: 'nope' } })).body.error).toEqual({ code: -32001, message: 'Task not found' });
    const unknownAgent = await rpc({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }, 'nobody');
    expect(unknownAgent).toMatchObject({ status: 404, body: { detail: 'No agent nobody' } });
    const notRpc = await rpc({ method: 'GetTask' });
    expect(notRpc.status).toBe(422);
    expect(notRpc.body.detail[0]).toMatchObject({ loc: ['body', 'jsonrpc'] });
    expect(contractErrors('/agents/{id}/tasks', 'post', notRpc)).toEqual([]);
    expect((await call(coder.baseUrl, 'GET', '/.well-known/a2a-agent-card', { key: null })).status).toBe(401);
  });

  test('with the router off a task fails, saying why', async () => {
    const off = await startCoder({ router: false });
    try {
      const res = await call(off.baseUrl, 'POST', '/agents/research/tasks', {
        body: { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } } },
      });
      expect(res.body.result.task.status).toMatchObject({ state: 'TASK_STATE_FAILED', message: { role: 'ROLE_AGENT' } });
      expect(contractErrors('/agents/{id}/tasks', 'post', res)).toEqual([]);
    } finally {
      await off.close();
    }
  });
});
