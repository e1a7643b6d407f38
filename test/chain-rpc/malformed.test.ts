import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { ChainRpcError, createChainRpcClient, type ChainRpcClient } from '../../clients/chain-rpc/client.js';
import { waitFor } from './helpers.js';

/**
 * A fake node whose answers each test chooses: `answer(request)` returns the HTTP status and raw body,
 * or undefined to never answer. WebSocket messages go to `onWsMessage`.
 */
type HttpAnswer = { status?: number; body: string; contentType?: string } | undefined;
let answer: (request: { id: unknown; method: string; params: unknown }) => HttpAnswer = () => undefined;
let onWsMessage: (ws: WebSocket, msg: { id: number; method: string; params: unknown }) => void = () => undefined;

let server: http.Server;
let wss: WebSocketServer;
let endpoint: string;
let wsEndpoint: string;
const clients: ChainRpcClient[] = [];
const sockets = new Set<WebSocket>();

const H = 'ab'.repeat(32);
const validBlock = { hash: H, height: 1, previousHash: H, merkleRoot: H, timestamp: '2026-01-01T00:00:00Z', transactions: [], txCount: 0 };

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const request = JSON.parse(body) as { id: unknown; method: string; params: unknown };
      const a = answer(request);
      if (!a) return; // hang: the client times out
      res.writeHead(a.status ?? 200, { 'content-type': a.contentType ?? 'application/json' });
      res.end(a.body);
    });
  });
  wss = new WebSocketServer({ server, path: '/ws' });
  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('message', (data) => onWsMessage(ws, JSON.parse(data.toString())));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  endpoint = `http://127.0.0.1:${port}/`;
  wsEndpoint = `ws://127.0.0.1:${port}/ws`;
});

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const ws of sockets) ws.terminate();
});

afterAll(async () => {
  await new Promise<void>((resolve) => wss.close(() => resolve()));
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function client(extra: { timeoutMs?: number; onError?: (e: ChainRpcError) => void } = {}): ChainRpcClient {
  const c = createChainRpcClient({ endpoint, wsEndpoint, timeoutMs: extra.timeoutMs ?? 1000, reconnect: false, ...(extra.onError ? { onError: extra.onError } : {}) });
  clients.push(c);
  return c;
}

async function rejection(promise: Promise<unknown>): Promise<ChainRpcError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ChainRpcError);
    return err as ChainRpcError;
  }
  throw new Error('expected a rejection');
}

const ok = (id: unknown, result: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result });

interface Case {
  given: string;
  call: (c: ChainRpcClient) => Promise<unknown>;
  reply: (id: unknown) => HttpAnswer;
  kind: ChainRpcError['kind'];
  /** a path one of the issues must carry */
  issuePath?: string;
  message?: RegExp;
  code?: number;
  status?: number;
}

const getBlock = (c: ChainRpcClient) => c.getBlock({ height: 1 });
const cases: Case[] = [
  { given: 'a body that is not JSON', call: getBlock, reply: () => ({ body: '<html>oops' }), kind: 'invalid_response', message: /not JSON/ },
  { given: 'jsonrpc 1.0', call: getBlock, reply: (id) => ({ body: JSON.stringify({ jsonrpc: '1.0', id, result: validBlock }) }), kind: 'invalid_response', issuePath: '/jsonrpc' },
  { given: 'both result and error', call: getBlock, reply: (id) => ({ body: JSON.stringify({ jsonrpc: '2.0', id, result: validBlock, error: { code: 1, message: 'x' } }) }), kind: 'invalid_response', message: /exactly one of result and error/ },
  { given: 'neither result nor error', call: getBlock, reply: (id) => ({ body: JSON.stringify({ jsonrpc: '2.0', id }) }), kind: 'invalid_response' },
  { given: 'another id', call: getBlock, reply: () => ({ body: ok(999, validBlock) }), kind: 'invalid_response', issuePath: '/id' },
  { given: 'an error without a code', call: getBlock, reply: (id) => ({ body: JSON.stringify({ jsonrpc: '2.0', id, error: { message: 'x' } }) }), kind: 'invalid_response', issuePath: '/error/code' },
  { given: 'a JSON array', call: getBlock, reply: () => ({ body: '[]' }), kind: 'invalid_response' },
  { given: 'a Block with height -1', call: getBlock, reply: (id) => ({ body: ok(id, { ...validBlock, height: -1 }) }), kind: 'invalid_response', issuePath: '/height' },
  { given: 'a Block without txCount', call: getBlock, reply: (id) => ({ body: ok(id, { ...validBlock, txCount: undefined }) }), kind: 'invalid_response', message: /txCount/ },
  { given: 'a Block with an extra field', call: getBlock, reply: (id) => ({ body: ok(id, { ...validBlock, miner: 'x' }) }), kind: 'invalid_response', message: /unevaluated properties: miner/ },
  { given: 'a Transaction with status lost', call: (c) => c.getTransaction({ txid: H }), reply: (id) => ({ body: ok(id, { txid: H, status: 'lost' }) }), kind: 'invalid_response', issuePath: '/status' },
  { given: 'ChainInfo with syncProgress 1.5', call: (c) => c.getChainInfo(), reply: (id) => ({ body: ok(id, { chain: 'c', network: 'mainnet', height: 1, bestBlockHash: H, syncProgress: 1.5 }) }), kind: 'invalid_response', issuePath: '/syncProgress' },
  { given: 'SendTransactionResponse without accepted', call: (c) => c.sendTransaction({ raw: '00' }), reply: (id) => ({ body: ok(id, { txid: H }) }), kind: 'invalid_response', message: /accepted/ },
  { given: 'FeeEstimate with a numeric feeRate', call: (c) => c.estimateFee({}), reply: (id) => ({ body: ok(id, { priority: 'low', feeRate: 1, estimatedBlocks: 1 }) }), kind: 'invalid_response', issuePath: '/feeRate' },
  { given: 'MempoolInfo as null', call: (c) => c.getMempoolInfo(), reply: (id) => ({ body: ok(id, null) }), kind: 'invalid_response' },
  { given: 'a JSON-RPC error', call: getBlock, reply: (id) => ({ body: JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32001, message: 'Block not found', data: { height: 1 } } }) }), kind: 'rpc', code: -32001 },
  { given: 'HTTP 502 with an HTML page', call: getBlock, reply: () => ({ status: 502, body: '<h1>Bad gateway</h1>', contentType: 'text/html' }), kind: 'transport', status: 502 },
  { given: 'HTTP 500 with a JSON-RPC error', call: getBlock, reply: (id) => ({ status: 500, body: JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal error' } }) }), kind: 'rpc', code: -32603, status: 500 },
];

describe('malformed node answers give ChainRpcError', () => {
  it.each(cases)('$given -> $kind', async (row) => {
    answer = (req) => row.reply(req.id);
    const err = await rejection(row.call(client()));
    expect(err.kind).toBe(row.kind);
    if (row.issuePath) expect(err.issues?.map((i) => i.path)).toContain(row.issuePath);
    if (row.kind === 'invalid_response') expect(err.issues?.length).toBeGreaterThan(0);
    if (row.message) expect(err.message).toMatch(row.message);
    if (row.code !== undefined) expect(err.code).toBe(row.code);
    if (row.status !== undefined) expect(err.status).toBe(row.status);
  });

  it('no answer -> timeout', async () => {
    answer = () => undefined;
    const err = await rejection(client({ timeoutMs: 100 }).getChainInfo());
    expect(err.kind).toBe('timeout');
  });

  it('nobody listening -> transport', async () => {
    const c = createChainRpcClient({ endpoint: 'http://127.0.0.1:1/', timeoutMs: 1000 });
    clients.push(c);
    expect((await rejection(c.getChainInfo())).kind).toBe('transport');
  });
});

describe('malformed WebSocket answers', () => {
  it('an invalid Subscription answer rejects subscribe with invalid_response', async () => {
    onWsMessage = (ws, msg) => ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { id: 'sub_1' } }));
    const err = await rejection(client().subscribe({ type: 'blocks' }, () => undefined));
    expect(err.kind).toBe('invalid_response');
    expect(err.message).toMatch(/required property 'type'/);
  });

  it('a subscription of another type than asked rejects with invalid_response', async () => {
    onWsMessage = (ws, msg) => ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { id: 'sub_1', type: 'mempool' } }));
    const err = await rejection(client().subscribe({ type: 'blocks' }, () => undefined));
    expect(err).toMatchObject({ kind: 'invalid_response', issues: [{ path: '/type' }] });
  });

  it('an invalid notification goes to onError, a valid one to the handler', async () => {
    onWsMessage = (ws, msg) => {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { id: 'sub_9', type: 'blocks' } }));
      const note = (result: unknown) => ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'chain_subscription', params: { subscription: 'sub_9', result } }));
      note({ type: 'block', block: { ...validBlock, height: -1 } });
      note({ type: 'transaction', transaction: { txid: H, status: 'pending' } });
      note({ type: 'block', block: validBlock });
      ws.send('not json');
    };
    const subErrors: ChainRpcError[] = [];
    const clientErrors: ChainRpcError[] = [];
    const got: unknown[] = [];
    await client({ onError: (e) => clientErrors.push(e) }).subscribe({ type: 'blocks' }, (n) => got.push(n), { onError: (e) => subErrors.push(e) });
    await waitFor(() => (got.length === 1 && subErrors.length === 2 && clientErrors.length === 1 ? true : undefined), 2000, 'notifications');
    expect(got).toEqual([{ type: 'block', block: validBlock }]);
    expect(subErrors.map((e) => e.kind)).toEqual(['invalid_response', 'invalid_response']);
    expect(subErrors[0]!.issues?.map((i) => i.path)).toContain('/block/height');
    expect(clientErrors[0]).toMatchObject({ kind: 'invalid_response', message: expect.stringMatching(/not JSON/) });
  });

  it('a JSON-RPC error to subscribe rejects with kind rpc', async () => {
    onWsMessage = (ws, msg) => ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32602, message: 'Invalid params', data: { errors: [] } } }));
    const err = await rejection(client().subscribe({ type: 'blocks' }, () => undefined));
    expect(err).toMatchObject({ kind: 'rpc', code: -32602, method: 'chain_subscribe' });
  });
});
