/**
 * External tool servers (MCP): a Streamable HTTP server written with the MCP SDK on 127.0.0.1 and
 * stdio processes, connected, listed, called and removed through the gateway, per key owner.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { call, contractErrors, KEY_2, startCoder, type CoderStub } from './platform-support.js';

const SEEDED = { command: 'node', args: ['server-stubs/coder/tool-servers/notes.mjs'] };
const CALC = { command: process.execPath, args: ['test/coder/fixtures/calc-tool-server.mjs'] };

/** A stateless Streamable HTTP MCP server with one tool, `shout`. */
async function startHttpToolServer() {
  const serve = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const mcp = new McpServer({ name: 'shouter', version: '2.0.0' });
    mcp.registerTool('shout', { description: 'Upper-cases the text.', inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: 'text', text: text.toUpperCase() }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close().then(() => mcp.close()).catch((error: unknown) => console.error('shouter tool server close:', error)));
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  };
  // A failure inside the tool server would otherwise be an unhandled rejection that ends the test
  // run; the gateway must see it as what a client sees: a broken connection.
  const server = http.createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      console.error('shouter tool server:', error);
      res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

let coder: CoderStub;
let toolServer: Awaited<ReturnType<typeof startHttpToolServer>>;
const post = (path: string, body: unknown, key?: string) => call(coder.baseUrl, 'POST', path, { body, ...(key && { key }) });

beforeAll(async () => {
  toolServer = await startHttpToolServer();
  coder = await startCoder({ allowLoopback: true, platform: { mcpStdio: { mode: 'any' } } });
});
afterAll(async () => {
  await coder?.close();
  await toolServer?.close();
});

describe('tool servers over HTTP', () => {
  test('configured, listed with their tools, called and removed', async () => {
    const configured = await post('/mcp/configure', { name: 'web', transport: 'http', url: toolServer.url });
    expect(configured.status).toBe(201);
    expect(configured.body).toMatchObject({ name: 'web', transport: 'http', url: toolServer.url, status: 'connected', tool_count: 1, server_info: { name: 'shouter', version: '2.0.0' } });
    expect(contractErrors('/mcp/configure', 'post', configured)).toEqual([]);
    expect((await call(coder.baseUrl, 'GET', '/mcp/servers')).body.servers.map((s: { name: string }) => s.name)).toContain('web');
    const tools = await call(coder.baseUrl, 'GET', '/mcp/tools');
    expect(tools.body.tools).toContainEqual(expect.objectContaining({ server: 'web', name: 'shout', description: 'Upper-cases the text.' }));
    expect(contractErrors('/mcp/tools', 'get', tools)).toEqual([]);
    const called = await post('/mcp/call', { server: 'web', tool: 'shout', arguments: { text: 'quiet' } });
    expect(called.body).toEqual({ server: 'web', tool: 'shout', content: [{ type: 'text', text: 'QUIET' }], is_error: false });
    expect(await post('/mcp/call', { server: 'web', tool: 'whisper' })).toMatchObject({ status: 404, body: { detail: 'Tool server web has no tool whisper' } });
    expect((await post('/mcp/remove', { name: 'web' })).body).toEqual({ name: 'web', removed: true });
    expect((await post('/mcp/call', { server: 'web', tool: 'shout', arguments: { text: 'x' } })).status).toBe(404);
  });

  test('the SSRF guard refuses loopback unless allowed, and a host that does not resolve is a 422', async () => {
    const guarded = await startCoder({ allowLoopback: false });
    try {
      const refused = await call(guarded.baseUrl, 'POST', '/mcp/configure', { body: { name: 'web', transport: 'http', url: toolServer.url } });
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toMatch(/loopback, private or link-local/);
      const linkLocal = await call(guarded.baseUrl, 'POST', '/mcp/configure', { body: { name: 'meta', transport: 'http', url: 'http://169.254.169.254/mcp' } });
      expect(linkLocal.status).toBe(403);
    } finally {
      await guarded.close();
    }
    const gone = await post('/mcp/configure', { name: 'gone', transport: 'http', url: 'http://tools.invalid/mcp' });
    expect(gone.status).toBe(422);
    expect(gone.body.detail).toMatch(/tools\.invalid did not resolve/);
    expect(contractErrors('/mcp/configure', 'post', gone)).toEqual([]);
  });
});

describe('tool servers over stdio', () => {
  test('a process is started, its tools called with arguments and env, and it is ended on remove', async () => {
    const configured = await post('/mcp/configure', { name: 'calc', transport: 'stdio', ...CALC, env: { CALC_GREETING: 'hi' } });
    expect(configured.status).toBe(201);
    expect(configured.body).not.toHaveProperty('env');
    expect((await post('/mcp/call', { server: 'calc', tool: 'add', arguments: { a: 2, b: 3 } })).body.content).toEqual([{ type: 'text', text: '5' }]);
    expect((await post('/mcp/call', { server: 'calc', tool: 'env', arguments: { name: 'CALC_GREETING' } })).body.content).toEqual([{ type: 'text', text: 'hi' }]);
    const invalid = await post('/mcp/call', { server: 'calc', tool: 'add', arguments: { a: 'two' } });
    expect(invalid.body.is_error).toBe(true);
    expect(await post('/mcp/configure', { name: 'calc', transport: 'stdio', ...CALC })).toMatchObject({ status: 409 });
    expect((await post('/mcp/remove', { name: 'calc' })).status).toBe(200);
    expect(await post('/mcp/remove', { name: 'calc' })).toMatchObject({ status: 404 });
  });

  test('by default only the seeded command line runs, without env', async () => {
    const seededOnly = await startCoder();
    try {
      const configure = (body: Record<string, unknown>) => call(seededOnly.baseUrl, 'POST', '/mcp/configure', { body: { transport: 'stdio', ...body } });
      expect((await configure({ name: 'calc', ...CALC })).status).toBe(403);
      expect((await configure({ name: 'shell', command: 'sh', args: ['-c', 'id'] })).status).toBe(403);
      expect((await configure({ name: 'notes', ...SEEDED, env: { NODE_OPTIONS: '--require=/tmp/x.js' } })).status).toBe(403);
      const notes = await configure({ name: 'notes', ...SEEDED });
      expect(notes.body).toMatchObject({ status: 'connected', tool_count: 4, server_info: { name: 'notes' } });
      const added = await call(seededOnly.baseUrl, 'POST', '/mcp/call', { body: { server: 'notes', tool: 'add_note', arguments: { text: 'first' } } });
      expect(added.body).toMatchObject({ content: [{ type: 'text', text: '1 notes' }], structured_content: { count: 1 } });
      // A tool server that goes away mid-call is a 502, and stays unavailable in the tool list.
      const exited = await call(seededOnly.baseUrl, 'POST', '/mcp/call', { body: { server: 'notes', tool: 'exit' } });
      expect(exited.status).toBe(502);
      expect(contractErrors('/mcp/call', 'post', exited)).toEqual([]);
      const tools = await call(seededOnly.baseUrl, 'GET', '/mcp/tools');
      expect(tools.body.unavailable).toEqual([{ server: 'notes', reason: expect.stringMatching(/gone/) }]);
    } finally {
      await seededOnly.close();
    }
    const off = await startCoder({ platform: { mcpStdio: { mode: 'off' } } });
    try {
      expect((await call(off.baseUrl, 'POST', '/mcp/configure', { body: { name: 'notes', transport: 'stdio', ...SEEDED } })).status).toBe(403);
    } finally {
      await off.close();
    }
  });
});

describe('ownership', () => {
  test("another key owner neither sees nor calls nor removes your tool servers", async () => {
    expect((await post('/mcp/configure', { name: 'mine', transport: 'http', url: toolServer.url })).status).toBe(201);
    expect((await call(coder.baseUrl, 'GET', '/mcp/servers', { key: KEY_2 })).body).toEqual({ servers: [], count: 0 });
    expect((await call(coder.baseUrl, 'GET', '/mcp/tools', { key: KEY_2 })).body.tools).toEqual([]);
    const called = await post('/mcp/call', { server: 'mine', tool: 'shout', arguments: { text: 'x' } }, KEY_2);
    expect(called).toMatchObject({ status: 404, body: { detail: 'No tool server mine' } });
    expect((await post('/mcp/remove', { name: 'mine' }, KEY_2)).status).toBe(404);
    // The same name is free for the other owner.
    expect((await post('/mcp/configure', { name: 'mine', transport: 'http', url: toolServer.url }, KEY_2)).status).toBe(201);
  });

  test('close() ends every stdio process the stub started', async () => {
    const stub = await startCoder({ platform: { mcpStdio: { mode: 'any' } } });
    await call(stub.baseUrl, 'POST', '/mcp/configure', { body: { name: 'calc', transport: 'stdio', ...CALC } });
    const pid = Number((await call(stub.baseUrl, 'POST', '/mcp/call', { body: { server: 'calc', tool: 'pid' } })).body.content[0].text);
    expect(() => process.kill(pid, 0)).not.toThrow();
    await stub.close();
    // The SDK's close waits for the process to exit (it escalates to SIGKILL), so it is gone now.
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  });
});
