import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChainRpcError, createChainRpcClient, RpcErrorCode, type ChainRpcClient } from '../../clients/chain-rpc/client.js';
import { decodeStubTransaction, encodeStubTransaction } from '../../server-stubs/chain-rpc/app.js';
import { jsonAt, rawCall, startNode, type RunningNode } from './helpers.js';

const ZERO = '0'.repeat(64);
const COIN = 100_000_000n;
const sha256 = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

let node: RunningNode;
let client: ChainRpcClient;

beforeEach(async () => {
  node = await startNode();
  client = createChainRpcClient({ endpoint: node.endpoint, timeoutMs: 2000 });
});
afterEach(async () => {
  await client.close();
  await node.close();
});

async function rejection(promise: Promise<unknown>): Promise<ChainRpcError> {
  const err = await promise.then(() => expect.unreachable('expected a rejection'), (e: unknown) => e);
  expect(err).toBeInstanceOf(ChainRpcError);
  return err as ChainRpcError;
}

/** The seeded coinbase of block 1: output 0 pays alice 50 coins. */
async function aliceFunds(): Promise<string> {
  return (await client.getBlock({ height: 1 })).transactions[0]!;
}

const spend = (txid: string, vout: number, ...outputs: Array<[string, bigint]>) =>
  encodeStubTransaction({ spends: { txid, vout }, outputs: outputs.map(([address, amount]) => ({ address, amount: amount.toString() })) });

/** Bytes of a raw transaction: the minimum fee at 1 base unit per byte. */
const size = (raw: string) => BigInt(raw.length / 2);

describe('spending outputs the node does not know: -32006', () => {
  it('an unknown txid, an output index past the last, and the null outpoint of coinbases', async () => {
    const funding = await aliceFunds();
    const cases: Array<[string, number, RegExp]> = [
      ['ab'.repeat(32), 0, /knows no transaction/],
      [funding, 1, /has 1 output\(s\)/],
      [ZERO, 1, /knows no transaction/], // the coinbase of block 1 spends ZERO:1; callers cannot mint
    ];
    for (const [txid, vout, reason] of cases) {
      const err = await rejection(client.sendTransaction({ raw: spend(txid, vout, ['carol', 1n]) }));
      expect(err).toMatchObject({ kind: 'rpc', code: RpcErrorCode.UNKNOWN_OUTPUT, data: { txid, vout } });
      expect(err.message).toContain('Unknown output');
      expect((err.data as { reason: string }).reason).toMatch(reason);
    }
    expect((await client.getMempoolInfo()).size).toBe(0);
  });

  it('outputs of a replaced transaction are gone; its pending children leave with it', async () => {
    const funding = await aliceFunds();
    const parent = spend(funding, 0, ['carol', 10n * COIN]);
    const child = spend(sha256(parent), 0, ['dave', 1n * COIN]);
    await client.sendTransaction({ raw: parent });
    expect(await client.sendTransaction({ raw: child })).toEqual({ txid: sha256(child), accepted: true }); // unconfirmed outputs can be spent
    expect((await client.getMempoolInfo()).size).toBe(2);

    await client.sendTransaction({ raw: spend(funding, 0, ['erin', 20n * COIN]) }); // replaces parent
    expect((await client.getTransaction({ txid: sha256(parent) })).status).toBe('replaced');
    expect((await client.getTransaction({ txid: sha256(child) })).status).toBe('replaced');
    expect((await client.getMempoolInfo()).size).toBe(1);

    const err = await rejection(client.sendTransaction({ raw: spend(sha256(parent), 0, ['frank', 1n]) }));
    expect(err.code).toBe(RpcErrorCode.UNKNOWN_OUTPUT);
    expect((err.data as { reason: string }).reason).toMatch(/which is replaced/);
  });
});

describe('insufficient funds: -32005', () => {
  it('outputs beyond what the spent output holds', async () => {
    const funding = await aliceFunds();
    const raw = spend(funding, 0, ['carol', 40n * COIN], ['dave', 20n * COIN]);
    const err = await rejection(client.sendTransaction({ raw }));
    expect(err).toMatchObject({
      kind: 'rpc',
      code: RpcErrorCode.INSUFFICIENT_FUNDS,
      data: { available: '5000000000', outputs: '6000000000', minFee: size(raw).toString(), missing: (10n * COIN + size(raw)).toString() },
    });
    expect(err.message).toContain('Insufficient funds');
    // refused, not recorded: the txid is unknown and the output still spendable
    expect((await rejection(client.getTransaction({ txid: sha256(raw) }))).code).toBe(RpcErrorCode.TRANSACTION_NOT_FOUND);
    expect((await client.sendTransaction({ raw: spend(funding, 0, ['carol', 1n]) })).accepted).toBe(true);
  });

  it('the fee is part of the bill: everything but the minimum fee is accepted, the whole amount is not', async () => {
    const funding = await aliceFunds();
    const all = spend(funding, 0, ['carol', 50n * COIN]);
    const err = await rejection(client.sendTransaction({ raw: all }));
    expect(err).toMatchObject({ code: RpcErrorCode.INSUFFICIENT_FUNDS, data: { missing: size(all).toString() } });

    const exact = spend(funding, 0, ['carol', 50n * COIN - size(all)]); // same size: amounts are fixed-width
    const sent = await client.sendTransaction({ raw: exact });
    expect(sent.accepted).toBe(true);
    expect((await client.getTransaction({ txid: sent.txid })).fee).toBe(size(exact).toString());
  });

  it('chained spends are checked against the unconfirmed output they spend', async () => {
    const funding = await aliceFunds();
    const parent = spend(funding, 0, ['carol', 1000n], ['alice', 40n * COIN]);
    await client.sendTransaction({ raw: parent });
    const tooMuch = await rejection(client.sendTransaction({ raw: spend(sha256(parent), 0, ['dave', 1000n]) }));
    expect(tooMuch).toMatchObject({ code: RpcErrorCode.INSUFFICIENT_FUNDS, data: { available: '1000' } });
    expect((await client.sendTransaction({ raw: spend(sha256(parent), 1, ['dave', 39n * COIN]) })).accepted).toBe(true);
  });

  it('over raw JSON-RPC, with the documented data', async () => {
    const funding = await aliceFunds();
    const { json } = await rawCall(node.endpoint, { jsonrpc: '2.0', id: 5, method: 'chain_sendTransaction', params: { raw: spend(funding, 0, ['carol', 51n * COIN]) } });
    expect(json).toMatchObject({ id: 5, error: { code: -32005, message: 'Insufficient funds', data: { available: '5000000000', outputs: '5100000000' } } });
    expect(Object.keys(Object(jsonAt(json, 'error', 'data'))).sort()).toEqual(['available', 'minFee', 'missing', 'outputs', 'reason']);
  });
});

describe('valid transactions keep working, and report the fee they pay', () => {
  it('the fee is what the spent output holds minus the outputs; coinbases pay none', async () => {
    const funding = await aliceFunds();
    expect((await client.getTransaction({ txid: funding })).fee).toBe('0');
    const raw = spend(funding, 0, ['carol', 10n * COIN], ['alice', 39n * COIN]);
    const { txid } = await client.sendTransaction({ raw });
    expect((await client.getTransaction({ txid })).fee).toBe((1n * COIN).toString());
  });
});

describe('the raw transaction format as documented in chain-rpc.openrpc.json', () => {
  const doc = JSON.parse(readFileSync(new URL('../../schemas/chain-rpc/chain-rpc.openrpc.json', import.meta.url), 'utf8'));
  const format = doc.components.schemas.StubRawTransaction;
  const send = doc.methods.find((m: { name: string }) => m.name === 'chain_sendTransaction');

  it('is marked provisional, like the method rules, and the method lists the new errors', () => {
    expect(typeof format['x-provisional']).toBe('string');
    expect(typeof send['x-provisional']).toBe('string');
    const codes = send.errors.map((e: { $ref: string }) => doc.components.errors[e.$ref.split('/').pop()!].code);
    expect(codes).toEqual(expect.arrayContaining([RpcErrorCode.TRANSACTION_REJECTED, RpcErrorCode.UNKNOWN_OUTPUT, RpcErrorCode.INSUFFICIENT_FUNDS]));
    expect(doc.components.errors.insufficient_funds.code).toBe(RpcErrorCode.INSUFFICIENT_FUNDS);
    expect(doc.components.errors.unknown_output.code).toBe(RpcErrorCode.UNKNOWN_OUTPUT);
  });

  it('a transaction built by hand from the description is what the node reads', async () => {
    // Field by field, as the description lists them.
    const funding = await aliceFunds();
    const u32 = (n: number) => n.toString(16).padStart(8, '0');
    const u64 = (n: bigint) => n.toString(16).padStart(16, '0');
    const output = (address: string, amount: bigint) => u32(address.length).slice(6) + Buffer.from(address, 'ascii').toString('hex') + u64(amount);
    const raw = funding + u32(0) + output('carol', 1_000_000_000n) + output('alice', 3_999_990_000n);

    expect(raw).toBe(format.examples[0]);
    expect(raw.length / 2).toBe(36 + (9 + 5) * 2);
    expect(decodeStubTransaction(raw)).toEqual({ spends: { txid: funding, vout: 0 }, outputs: [{ address: 'carol', amount: '1000000000' }, { address: 'alice', amount: '3999990000' }] });
    const sent = await client.sendTransaction({ raw: raw.toUpperCase() });
    expect(sent).toEqual({ txid: '1328ec675c1e3b536852b476f9939959288c4a65a5d98e2246bcbc94b67d6895', accepted: true });
    expect(sent.txid).toBe(sha256(raw));
    expect(format.description).toContain(sent.txid);
    expect((await client.getTransaction({ txid: sent.txid })).fee).toBe('10000');
    expect(send.examples[0].params[0].value).toBe(raw);
    expect(send.examples[0].result.value).toEqual(sent);
    expect(new RegExp(format.pattern).test(raw)).toBe(true);
  });

  it('the second example is the seeded coinbase of block 1', async () => {
    const funding = await aliceFunds();
    expect((await client.getTransaction({ txid: funding })).raw).toBe(format.examples[1]);
    expect(decodeStubTransaction(format.examples[1])).toEqual({ spends: { txid: ZERO, vout: 1 }, outputs: [{ address: 'alice', amount: (50n * COIN).toString() }] });
  });
});
