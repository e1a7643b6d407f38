/**
 * The chain-rpc fuzz oracle (scripts/lib/fuzz/chain-rpc.ts) judges answers the node gives: each rule
 * is shown to fire on an answer that breaks it, and to stay quiet on the node's real answers.
 */
import { describe, expect, it } from 'vitest';
import { createChainRpcOracle, type RpcRequest } from '../../scripts/lib/fuzz/chain-rpc.js';
import type { Observed } from '../../scripts/lib/fuzz/wire.js';
import { startNode } from './helpers.js';

const oracle = createChainRpcOracle();

function call(id: unknown, method: string, params: unknown, verdict: 'valid' | 'invalid' | 'unknown'): RpcRequest {
  return {
    case: 'test',
    method: 'POST',
    path: '',
    query: [],
    headers: { 'content-type': 'application/json' },
    body: [JSON.stringify({ jsonrpc: '2.0', id, method, params })],
    expect: 'any',
    calls: [{ id, method, params: verdict }],
  };
}

const answer = (body: unknown): Observed => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ms: 1 });
const kinds = (request: RpcRequest, observed: Observed) => oracle(request, observed).map((v) => v.kind);

describe('chain-rpc fuzz oracle', () => {
  it('passes what the node answers over HTTP, and a valid call refused by it is flagged', async () => {
    const node = await startNode();
    try {
      const post = async (request: RpcRequest): Promise<Observed> => {
        const res = await fetch(node.endpoint, { method: 'POST', headers: request.headers, body: (request.body as string[]).join('') });
        return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text(), ms: 0 };
      };
      const info = call(1, 'chain_getChainInfo', {}, 'valid');
      expect(kinds(info, await post(info))).toEqual([]);
      const badBlock = call(2, 'chain_getBlock', { height: -1 }, 'invalid');
      expect(kinds(badBlock, await post(badBlock))).toEqual([]);
      const judgedValid = { ...badBlock, calls: [{ id: 2, method: 'chain_getBlock', params: 'valid' as const }] };
      expect(kinds(judgedValid, await post(judgedValid))).toEqual(['valid call refused']);
    } finally {
      await node.close();
    }
  });

  it('flags a broken envelope, a foreign id, an internal error, accepted invalid params and a result off its schema', () => {
    const info = call(1, 'chain_getChainInfo', {}, 'unknown');
    expect(kinds(info, answer({ jsonrpc: '1.0', id: 1, result: 1, error: [] }))).toContain('not a JSON-RPC 2.0 response');
    expect(kinds(info, answer({ jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 2 } }))).toEqual(['not a JSON-RPC 2.0 response']);
    expect(kinds(info, answer({ jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'x' } }))).toEqual(['response id does not match the request']);
    expect(kinds(info, answer({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } }))).toEqual(['internal error (-32603)']);
    expect(kinds(info, answer({ jsonrpc: '2.0', id: 1, result: { height: 'tall' } }))).toEqual(['result does not match the OpenRPC result schema']);
    const invalid = call(3, 'chain_getBlock', 5, 'invalid');
    expect(kinds(invalid, answer({ jsonrpc: '2.0', id: 3, result: null }))).toContain('invalid params accepted');
  });
});
