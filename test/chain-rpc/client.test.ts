import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ChainRpcError,
  createChainRpcClient,
  RpcErrorCode,
  type ChainRpcClient,
  type ChainRpcClientConfig,
  type ConnectionState,
} from '../../clients/chain-rpc/client.js';
import { encodeStubTransaction } from '../../server-stubs/chain-rpc/app.js';
import { validate, type BlockNotification, type TransactionNotification } from '../../generated/schemas/chain-rpc/index.gen.js';
import { jsonAt, rawCall, startNode, waitFor, type RunningNode } from './helpers.js';

const ZERO = '0'.repeat(64);
const sha256 = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

async function rejection(promise: Promise<unknown>): Promise<ChainRpcError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ChainRpcError);
    return err as ChainRpcError;
  }
  throw new Error('expected a rejection');
}

let node: RunningNode;
let client: ChainRpcClient;
const clients: ChainRpcClient[] = [];

function newClient(extra: Partial<ChainRpcClientConfig> = {}): ChainRpcClient {
  const c = createChainRpcClient({
    endpoint: node.endpoint,
    wsEndpoint: node.wsEndpoint,
    timeoutMs: 2000,
    reconnect: { initialDelayMs: 10, maxDelayMs: 40 },
    ...extra,
  });
  clients.push(c);
  return c;
}

/** The seeded chain: genesis, then blocks 1 and 2 paying 50 coins to alice and bob. */
async function seededOutput(height: 1 | 2) {
  const block = await client.getBlock({ height });
  return client.getTransaction({ txid: block.transactions[0]! });
}

beforeEach(async () => {
  node = await startNode();
  client = newClient();
});

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await node.close();
});

describe('queries', () => {
  it('getBlock by height, by hash, and without transactions', async () => {
    const genesis = await client.getBlock({ height: 0 });
    expect(genesis).toMatchObject({ height: 0, previousHash: ZERO, txCount: 0, transactions: [] });
    const one = await client.getBlock({ height: 1 });
    expect(one.previousHash).toBe(genesis.hash);
    expect(one.txCount).toBe(1);
    expect(await client.getBlock({ hash: one.hash })).toEqual(one);
    const bare = await client.getBlock({ hash: one.hash, includeTransactions: false });
    expect(bare).toEqual({ ...one, transactions: [] });
  });

  it('getBlock of a missing block is an rpc error -32001', async () => {
    const err = await rejection(client.getBlock({ height: 99 }));
    expect(err).toMatchObject({ kind: 'rpc', code: RpcErrorCode.BLOCK_NOT_FOUND, method: 'chain_getBlock' });
    const byHash = await rejection(client.getBlock({ hash: 'ab'.repeat(32) }));
    expect(byHash.code).toBe(-32001);
  });

  it('checks params before sending: height -1, both hash and height', async () => {
    const err = await rejection(client.getBlock({ height: -1 }));
    expect(err.kind).toBe('invalid_request');
    expect(err.issues).toContainEqual({ path: '/height', message: 'must be >= 0' });
    const both = await rejection(client.getBlock({ hash: ZERO, height: 1 } as never));
    expect(both.kind).toBe('invalid_request');
    expect(both.message).toContain('oneOf');
  });

  it('getTransaction of a seeded, confirmed transaction', async () => {
    const tx = await seededOutput(1);
    expect(tx).toMatchObject({ status: 'confirmed', blockHeight: 1, confirmations: 2, outputs: [{ address: 'alice', amount: '5000000000' }] });
    expect(tx.txid).toBe(sha256(tx.raw!));
    const err = await rejection(client.getTransaction({ txid: 'cd'.repeat(32) }));
    expect(err).toMatchObject({ kind: 'rpc', code: RpcErrorCode.TRANSACTION_NOT_FOUND });
  });

  it('sendTransaction puts a transaction in the mempool as pending; mining confirms it', async () => {
    const funding = await seededOutput(1);
    const raw = encodeStubTransaction({ spends: { txid: funding.txid, vout: 0 }, outputs: [{ address: 'carol', amount: '1000' }] });
    const sent = await client.sendTransaction({ raw });
    expect(sent).toEqual({ txid: sha256(raw), accepted: true });
    expect(await client.sendTransaction({ raw: raw.toUpperCase() })).toEqual(sent); // same bytes: same txid, idempotent

    const pending = await client.getTransaction({ txid: sent.txid });
    expect(pending).toMatchObject({ status: 'pending', confirmations: 0, inputs: [{ txid: funding.txid, vout: 0, address: 'alice' }] });
    expect(pending.blockHash).toBeUndefined();
    expect(await client.getMempoolInfo()).toMatchObject({ size: 1, bytes: raw.length / 2 });

    const [block] = node.instance.node.store.mine();
    const confirmed = await client.getTransaction({ txid: sent.txid });
    expect(confirmed).toMatchObject({ status: 'confirmed', blockHash: block!.hash, blockHeight: 3, confirmations: 1 });
    expect((await client.getBlock({ height: 3 })).transactions).toEqual([sent.txid]);
    expect(await client.getMempoolInfo()).toMatchObject({ size: 0, bytes: 0 });
  });

  it('a double spend of a pending transaction marks it replaced; of a confirmed one, failed', async () => {
    const funding = await seededOutput(2);
    const spend = (to: string) => encodeStubTransaction({ spends: { txid: funding.txid, vout: 0 }, outputs: [{ address: to, amount: '7' }] });
    const first = await client.sendTransaction({ raw: spend('carol') });
    const second = await client.sendTransaction({ raw: spend('dave') });
    expect(second.accepted).toBe(true);
    expect((await client.getTransaction({ txid: first.txid })).status).toBe('replaced');
    expect((await client.getMempoolInfo()).size).toBe(1);
    node.instance.node.store.mine();
    expect((await client.getTransaction({ txid: second.txid })).status).toBe('confirmed');
    const third = await client.sendTransaction({ raw: spend('erin') });
    expect(third.accepted).toBe(false);
    expect((await client.getTransaction({ txid: third.txid })).status).toBe('failed');
    expect(await client.sendTransaction({ raw: spend('carol') })).toEqual({ txid: first.txid, accepted: false });
  });

  it('sendTransaction: raw the node cannot decode is -32003 with a reason; non-hex raw never leaves the client', async () => {
    const err = await rejection(client.sendTransaction({ raw: '00ff' }));
    expect(err).toMatchObject({ kind: 'rpc', code: RpcErrorCode.TRANSACTION_REJECTED });
    expect((err.data as { reason: string }).reason).toMatch(/too short/);
    for (const raw of ['abc', 'zz', '']) {
      const bad = await rejection(client.sendTransaction({ raw }));
      expect(bad.kind).toBe('invalid_request');
      expect(bad.issues?.[0]?.path).toBe('/raw');
    }
  });

  it('estimateFee by priority and by target', async () => {
    expect(await client.estimateFee()).toEqual({ priority: 'medium', feeRate: '5', estimatedBlocks: 3 });
    expect(await client.estimateFee({ priority: 'high' })).toEqual({ priority: 'high', feeRate: '10', estimatedBlocks: 1 });
    expect(await client.estimateFee({ targetBlocks: 1 })).toMatchObject({ priority: 'high', estimatedBlocks: 1 });
    expect(await client.estimateFee({ targetBlocks: 100 })).toEqual({ priority: 'low', feeRate: '1', estimatedBlocks: 100 });
    for (const targetBlocks of [0, 101]) {
      const err = await rejection(client.estimateFee({ targetBlocks }));
      expect(err.kind).toBe('invalid_request');
      expect(err.issues?.[0]?.path).toBe('/targetBlocks');
    }
  });

  it('getChainInfo and getMempoolInfo', async () => {
    const info = await client.getChainInfo();
    const tip = await client.getBlock({ height: 2 });
    expect(info).toMatchObject({ chain: 'stubchain', network: 'mainnet', height: 2, bestBlockHash: tip.hash, syncing: false, syncProgress: 1 });
    node.instance.node.store.mine(2);
    expect((await client.getChainInfo()).height).toBe(4);
    expect(await client.getMempoolInfo()).toEqual({ size: 0, bytes: 0, usage: 0, maxMempool: 300000000, minFee: '1' });
  });

  it('config is checked against RpcConfig', () => {
    expect(() => createChainRpcClient({ endpoint: 'not a uri' })).toThrow(ChainRpcError);
    expect(() => createChainRpcClient({ endpoint: 'http://x/', network: 'regtest' as never })).toThrow(/network/);
    expect(createChainRpcClient({ endpoint: 'http://x/' }).config).toMatchObject({ network: 'mainnet', timeoutMs: 30000 });
  });

  it('a closed client rejects with kind closed', async () => {
    await client.close();
    expect((await rejection(client.getChainInfo())).kind).toBe('closed');
  });
});

describe('the node binding (raw JSON-RPC)', () => {
  it('answers -32602 with the readable validation errors in data', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['chain_getBlock', { hash: ZERO, height: 0 }, 'oneOf'],
      ['chain_getBlock', {}, 'oneOf'],
      ['chain_getBlock', { height: -1 }, '/height'],
      ['chain_estimateFee', { targetBlocks: 101 }, '/targetBlocks'],
      ['chain_sendTransaction', { raw: 'abc' }, '/raw'],
      ['chain_getTransaction', {}, "required property 'txid'"],
      ['chain_getChainInfo', { extra: 1 }, 'additional properties: extra'],
      ['chain_getBlock', [0], 'by-name'],
    ];
    for (const [method, params, want] of cases) {
      const { json } = await rawCall(node.endpoint, { jsonrpc: '2.0', id: 7, method, params });
      expect(jsonAt(json, 'id')).toBe(7);
      expect(jsonAt(json, 'error', 'code'), `${method} ${JSON.stringify(params)}`).toBe(-32602);
      expect(jsonAt(json, 'error', 'message'), `${method} ${JSON.stringify(params)}`).toContain(want.startsWith('/') ? '' : want);
      expect(Array.isArray(jsonAt(json, 'error', 'data', 'errors'))).toBe(true);
      if (want.startsWith('/')) expect(jsonAt(json, 'error', 'data', 'errors')).toContainEqual(expect.objectContaining({ path: want }));
    }
  });

  it('speaks JSON-RPC 2.0: parse error, invalid request, unknown method, notifications, batches', async () => {
    expect((await rawCall(node.endpoint, '{not json')).json).toMatchObject({ id: null, error: { code: -32700 } });
    expect((await rawCall(node.endpoint, { foo: 1 })).json).toMatchObject({ id: null, error: { code: -32600 } });
    expect((await rawCall(node.endpoint, [])).json).toMatchObject({ error: { code: -32600 } });
    expect((await rawCall(node.endpoint, { jsonrpc: '2.0', id: 'a', method: 'chain_nope' })).json).toMatchObject({ id: 'a', error: { code: -32601 } });
    const notification = await rawCall(node.endpoint, { jsonrpc: '2.0', method: 'chain_getChainInfo' });
    expect(notification.status).toBe(204);
    const batch = await rawCall(node.endpoint, [
      { jsonrpc: '2.0', id: 1, method: 'chain_getChainInfo' },
      { jsonrpc: '2.0', method: 'chain_getMempoolInfo' },
      { jsonrpc: '2.0', id: 2, method: 'chain_getBlock', params: { height: 0 } },
    ]);
    expect(batch.json).toMatchObject([{ id: 1 }, { id: 2 }]);
    expect(validate.ChainInfo(jsonAt(batch.json, '0', 'result')).ok).toBe(true);
    expect(validate.Block(jsonAt(batch.json, '1', 'result')).ok).toBe(true);
  });

  it('chain_subscribe over HTTP is -32004; chain_mine mines on demand; rpc.discover serves the OpenRPC document', async () => {
    const overHttp = (await rawCall(node.endpoint, { jsonrpc: '2.0', id: 1, method: 'chain_subscribe', params: { type: 'blocks' } })).json;
    expect(jsonAt(overHttp, 'error', 'code')).toBe(-32004);
    // The error names where subscriptions are served: the WebSocket path the client connects to.
    expect(jsonAt(overHttp, 'error', 'data', 'path')).toBe(new URL(node.wsEndpoint).pathname);
    const mined = jsonAt((await rawCall(node.endpoint, { jsonrpc: '2.0', id: 2, method: 'chain_mine', params: { count: 2 } })).json, 'result');
    expect(mined).toMatchObject([{ height: 3 }, { height: 4 }]);
    for (const b of Array.isArray(mined) ? mined : []) expect(validate.Block(b).ok).toBe(true);
    expect(jsonAt((await rawCall(node.endpoint, { jsonrpc: '2.0', id: 3, method: 'chain_mine', params: { count: 0 } })).json, 'error', 'code')).toBe(-32602);
    const doc = jsonAt((await rawCall(node.endpoint, { jsonrpc: '2.0', id: 4, method: 'rpc.discover' })).json, 'result');
    expect(jsonAt(doc, 'openrpc')).toBe('1.3.2');
  });

  it('every answer the node gives validates against the published types', async () => {
    const funding = await seededOutput(1);
    const raw = encodeStubTransaction({ spends: { txid: funding.txid, vout: 0 }, outputs: [{ address: 'carol', amount: '1' }] });
    const checks: Array<[string, unknown, (x: unknown) => { ok: boolean }]> = [
      ['chain_getBlock', { height: 1 }, validate.Block],
      ['chain_getTransaction', { txid: funding.txid }, validate.Transaction],
      ['chain_sendTransaction', { raw }, validate.SendTransactionResponse],
      ['chain_getTransaction', { txid: sha256(raw) }, validate.Transaction],
      ['chain_estimateFee', { priority: 'low' }, validate.FeeEstimate],
      ['chain_getChainInfo', undefined, validate.ChainInfo],
      ['chain_getMempoolInfo', [], validate.MempoolInfo],
    ];
    for (const [method, params, check] of checks) {
      const { json } = await rawCall(node.endpoint, { jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) });
      expect(jsonAt(json, 'error'), method).toBeUndefined();
      expect(check(jsonAt(json, 'result')).ok, method).toBe(true);
    }
  });
});

describe('subscriptions', () => {
  it('a blocks subscription receives a BlockNotification after a block is mined', async () => {
    const got: BlockNotification[] = [];
    const sub = await client.subscribe({ type: 'blocks' }, (n) => got.push(n));
    expect(sub.active).toBe(true);
    expect(validate.Subscription(sub.subscription).ok).toBe(true);
    expect(sub.subscription.type).toBe('blocks');
    const [mined] = node.instance.node.store.mine();
    const n = await waitFor(() => got[0], undefined, 'block notification');
    expect(n).toEqual({ type: 'block', block: mined });
    expect(n.block.height).toBe(3);
  });

  it('an address subscription receives the transactions paying or spending from that address', async () => {
    const carol: TransactionNotification[] = [];
    const alice: TransactionNotification[] = [];
    const bob: TransactionNotification[] = [];
    await client.subscribe({ type: 'address', address: 'carol' }, (n) => carol.push(n));
    await client.subscribe({ type: 'address', address: 'alice' }, (n) => alice.push(n));
    await client.subscribe({ type: 'address', address: 'bob' }, (n) => bob.push(n));
    const funding = await seededOutput(1); // pays alice
    const raw = encodeStubTransaction({ spends: { txid: funding.txid, vout: 0 }, outputs: [{ address: 'carol', amount: '1000' }] });
    const { txid } = await client.sendTransaction({ raw });
    await waitFor(() => (carol.length >= 1 && alice.length >= 1 ? true : undefined), undefined, 'pending notifications');
    node.instance.node.store.mine();
    await waitFor(() => (carol.length >= 2 && alice.length >= 2 ? true : undefined), undefined, 'confirmed notifications');
    expect(carol.map((n) => [n.type, n.address, n.transaction.txid, n.transaction.status])).toEqual([
      ['transaction', 'carol', txid, 'pending'],
      ['transaction', 'carol', txid, 'confirmed'],
    ]);
    expect(alice.map((n) => [n.address, n.transaction.status])).toEqual([
      ['alice', 'pending'],
      ['alice', 'confirmed'],
    ]);
    expect(bob).toEqual([]);
  });

  it('transactions and mempool subscriptions see every status change (mempool: entering and leaving only)', async () => {
    const all: string[] = [];
    const pool: string[] = [];
    await client.subscribe({ type: 'transactions' }, (n) => all.push(n.transaction.status));
    await client.subscribe({ type: 'mempool' }, (n) => pool.push(n.transaction.status));
    const funding = await seededOutput(2);
    const spend = (to: string) => encodeStubTransaction({ spends: { txid: funding.txid, vout: 0 }, outputs: [{ address: to, amount: '1' }] });
    await client.sendTransaction({ raw: spend('carol') });
    await client.sendTransaction({ raw: spend('dave') }); // replaces the first
    node.instance.node.store.mine();
    await client.sendTransaction({ raw: spend('erin') }); // conflicts with a confirmed one: failed
    await waitFor(() => (all.length >= 5 ? true : undefined), undefined, 'transaction notifications');
    expect(all).toEqual(['pending', 'replaced', 'pending', 'confirmed', 'failed']);
    expect(pool).toEqual(['pending', 'replaced', 'pending', 'confirmed']);
  });

  it('unsubscribe stops notifications, on the client and on the node', async () => {
    const got: unknown[] = [];
    const sub = await client.subscribe({ type: 'blocks' }, (n) => got.push(n));
    expect(node.instance.node.subscriptionCount).toBe(1);
    await client.unsubscribe(sub);
    expect(sub.active).toBe(false);
    expect(node.instance.node.subscriptionCount).toBe(0);
    const other: unknown[] = [];
    await client.subscribe({ type: 'blocks' }, (n) => other.push(n));
    node.instance.node.store.mine();
    await waitFor(() => other[0], undefined, 'the other subscription');
    expect(got).toEqual([]);
  });

  it('subscribe checks its request and needs wsEndpoint', async () => {
    const err = await rejection(client.subscribe({ type: 'address' } as never, () => undefined));
    expect(err.kind).toBe('invalid_request');
    expect(err.issues?.some((i) => i.message.includes("'address'"))).toBe(true);
    const noWs = createChainRpcClient({ endpoint: node.endpoint });
    clients.push(noWs);
    expect((await rejection(noWs.subscribe({ type: 'blocks' }, () => undefined))).kind).toBe('invalid_request');
  });

  it('a dropped socket is reconnected and every subscription resumes on the same handle', async () => {
    const states: ConnectionState[] = [];
    const reconnects: number[] = [];
    const c = newClient({ onConnectionChange: (s) => states.push(s), onReconnect: (i) => reconnects.push(i.subscriptions) });
    const blocks: BlockNotification[] = [];
    const carol: TransactionNotification[] = [];
    const blockSub = await c.subscribe({ type: 'blocks' }, (n) => blocks.push(n));
    const carolSub = await c.subscribe({ type: 'address', address: 'carol' }, (n) => carol.push(n));
    const firstNodeId = blockSub.subscription.id;

    node.instance.dropConnections();
    await waitFor(() => reconnects[0], undefined, 'reconnect');
    expect(reconnects).toEqual([2]);
    expect(states).toEqual(['connecting', 'open', 'reconnecting', 'open']);
    expect(blockSub.active && carolSub.active).toBe(true);
    expect(blockSub.subscription.id).not.toBe(firstNodeId);
    expect(node.instance.node.subscriptionCount).toBe(2);

    const funding = await seededOutput(1);
    const raw = encodeStubTransaction({ spends: { txid: funding.txid, vout: 0 }, outputs: [{ address: 'carol', amount: '5' }] });
    await c.sendTransaction({ raw });
    node.instance.node.store.mine();
    await waitFor(() => (blocks.length >= 1 && carol.length >= 2 ? true : undefined), undefined, 'notifications after reconnect');
    expect(blocks.map((b) => b.block.height)).toEqual([3]);
    expect(carol.map((n) => n.transaction.status)).toEqual(['pending', 'confirmed']);

    // and again: a second drop is survived too
    node.instance.dropConnections();
    await waitFor(() => reconnects[1], undefined, 'second reconnect');
    node.instance.node.store.mine();
    await waitFor(() => blocks[1], undefined, 'block after the second reconnect');
    expect(blocks[1]!.block.height).toBe(4);
  });

  it('when reconnecting gives up, each subscription gets a closed error and ends', async () => {
    const errors: ChainRpcError[] = [];
    const c = newClient({ reconnect: { initialDelayMs: 5, maxDelayMs: 10, maxAttempts: 2 } });
    const sub = await c.subscribe({ type: 'blocks' }, () => undefined, { onError: (e) => errors.push(e) });
    await node.close(); // the whole node goes away
    const err = await waitFor(() => errors[0], undefined, 'give-up error');
    expect(err.kind).toBe('closed');
    expect(err.message).toMatch(/gave up reconnecting after 2 attempts/);
    expect(sub.active).toBe(false);
    expect(c.connectionState).toBe('idle');
    node = await startNode(); // for afterEach
  });

  it('mines on an interval when mineIntervalMs is set', async () => {
    const fast = await startNode({ mineIntervalMs: 20 });
    try {
      const c = createChainRpcClient({ endpoint: fast.endpoint, wsEndpoint: fast.wsEndpoint });
      clients.push(c);
      const heights: number[] = [];
      await c.subscribe({ type: 'blocks' }, (n) => heights.push(n.block.height));
      await waitFor(() => (heights.length >= 2 ? true : undefined), undefined, 'two interval blocks');
      expect(heights[1]).toBe(heights[0]! + 1);
    } finally {
      await fast.close();
    }
  });
});
