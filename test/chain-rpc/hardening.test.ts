import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createChainRpcClient, RpcErrorCode, type ChainRpcError } from '../../clients/chain-rpc/client.js';
import { RpcErrorCode as nodeCodes } from '../../server-stubs/chain-rpc/app.js';
import { jsonAt, startNode, type RunningNode } from './helpers.js';

let node: RunningNode;
beforeAll(async () => {
  node = await startNode();
});
afterAll(async () => {
  await node.close();
});

/** POSTs exactly these bytes; the answer as text, so HTML would show. */
async function post(body: string | Buffer, headers: Record<string, string> = {}, url = node.endpoint, method = 'POST') {
  const bytes = typeof body === 'string' ? body : new Uint8Array(body);
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, ...(method === 'GET' ? {} : { body: bytes }) });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text };
}

/** An answer of the router: JSON-RPC, JSON, no HTML, no stack trace, no file path. */
function jsonRpc(answer: { contentType: string; text: string }): unknown {
  expect(answer.contentType).toMatch(/^application\/json/);
  expect(answer.text).not.toMatch(/<html|<pre|<!DOCTYPE|\bat \S+ \(|node_modules|\/work\/|\.ts:\d+/i);
  const json: unknown = JSON.parse(answer.text);
  expect(jsonAt(json, 'jsonrpc')).toBe('2.0');
  return json;
}

/** One request over a fresh WebSocket; resolves with the answer. */
function overWebSocket(text: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(node.wsEndpoint);
    ws.once('open', () => ws.send(text));
    ws.once('message', (data) => {
      resolve(JSON.parse(data.toString()));
      ws.close();
    });
    ws.once('error', reject);
  });
}

// Built as JSON text: in a JS object literal, `__proto__` would set the prototype instead of a key.
const request = (method: string, paramsJson: string) => `{"jsonrpc":"2.0","id":1,"method":"${method}","params":${paramsJson}}`;
const PROTO_KEYS = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'];
const METHODS = [
  'chain_getBlock', 'chain_getTransaction', 'chain_sendTransaction', 'chain_estimateFee', 'chain_getChainInfo',
  'chain_getMempoolInfo', 'chain_subscribe', 'chain_unsubscribe', 'chain_mine', 'rpc.discover',
];

describe('prototype keys in params are invalid params, never an internal error', () => {
  it('the reported case: chain_getChainInfo with {"__proto__":{}} is -32602 naming the key', async () => {
    const json = jsonRpc(await post(request('chain_getChainInfo', '{"__proto__":{}}')));
    expect(jsonAt(json, 'error')).toMatchObject({ code: -32602, data: { errors: [{ path: '', message: 'must NOT have additional properties: __proto__' }] } });
  });

  it.each(PROTO_KEYS)('every method, %s as a by-name param: -32602 with the key named', async (key) => {
    for (const method of METHODS) {
      for (const value of ['{}', '1', 'null', '"x"']) {
        const json = jsonRpc(await post(request(method, `{"${key}":${value}}`)));
        expect(jsonAt(json, 'error', 'code'), `${method} {${key}: ${value}}`).toBe(-32602);
        expect(jsonAt(json, 'error', 'data', 'errors'), method).toContainEqual({ path: '', message: `must NOT have additional properties: ${key}` });
      }
    }
  });

  it('beside valid params and nested inside them', async () => {
    const cases: Array<[string, string]> = [
      ['chain_getBlock', '{"height":0,"valueOf":1}'],
      ['chain_getBlock', '{"height":{"__proto__":{}}}'],
      ['chain_getBlock', '{"hash":{"toString":"x"}}'],
      ['chain_getTransaction', '{"txid":{"constructor":{}}}'],
      ['chain_sendTransaction', '{"raw":"00","__proto__":{"raw":"00"}}'],
      ['chain_estimateFee', '{"priority":{"hasOwnProperty":1}}'],
      ['chain_subscribe', '{"type":"address","address":{"__proto__":{}}}'],
      ['chain_subscribe', '{"type":"blocks","constructor":{"prototype":{}}}'],
      ['chain_unsubscribe', '{"id":"sub_1","hasOwnProperty":1}'],
      ['chain_unsubscribe', '{"id":{"toString":1}}'],
      ['chain_mine', '{"count":1,"constructor":1}'],
      ['chain_mine', '{"count":{"valueOf":1}}'],
    ];
    for (const [method, params] of cases) {
      const json = jsonRpc(await post(request(method, params)));
      expect(jsonAt(json, 'error', 'code'), `${method} ${params}`).toBe(-32602);
    }
  });

  it('over the WebSocket too', async () => {
    for (const key of PROTO_KEYS) {
      expect(jsonAt(await overWebSocket(request('chain_getMempoolInfo', `{"${key}":{}}`)), 'error', 'code')).toBe(-32602);
      expect(jsonAt(await overWebSocket(request('chain_unsubscribe', `{"${key}":{}}`)), 'error', 'code')).toBe(-32602);
    }
  });

  it('as method names they are unknown methods; as envelope members they change nothing', async () => {
    for (const key of PROTO_KEYS) {
      expect(jsonAt(jsonRpc(await post(`{"jsonrpc":"2.0","id":1,"method":"${key}"}`)), 'error', 'code')).toBe(-32601);
    }
    // JSON.parse makes `__proto__` an own member: it must not stand in for params, id or method.
    const json = jsonRpc(await post('{"jsonrpc":"2.0","id":3,"method":"chain_getChainInfo","__proto__":{"params":{"x":1},"id":9}}'));
    expect(jsonAt(json, 'id')).toBe(3);
    expect(jsonAt(json, 'result', 'chain')).toBe('stubchain');
    const noMethod = jsonRpc(await post('{"jsonrpc":"2.0","id":4,"__proto__":{"method":"chain_getChainInfo"}}'));
    expect(jsonAt(noMethod, 'error', 'code')).toBe(-32600);
  });

  it('property: any params object with any of these keys answers JSON-RPC, never -32603', async () => {
    const key = fc.constantFrom(...PROTO_KEYS, 'height', 'hash', 'includeTransactions', 'txid', 'raw', 'priority', 'targetBlocks', 'type', 'address', 'id', 'count');
    const params = fc.array(fc.tuple(key, fc.jsonValue({ maxDepth: 2 })), { maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...METHODS), params, async (method, entries) => {
        const body = request(method, `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`);
        const json = jsonRpc(await post(body));
        expect(jsonAt(json, 'error', 'code')).not.toBe(-32603);
      }),
      { numRuns: 200 },
    );
  });
});

describe('HTTP body failures answer JSON-RPC errors, never HTML', () => {
  it('a body over the default limit (1 MB) is HTTP 413 with -32600, id null, naming the limit', async () => {
    const answer = await post(' '.repeat(1024 * 1024 + 1));
    expect(answer.status).toBe(413);
    expect(jsonRpc(answer)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: the body exceeds 1048576 bytes', data: { reason: 'the body exceeds 1048576 bytes', limit: 1048576 } },
    });
    // exactly at the limit it is read (and is not JSON)
    expect(jsonAt(jsonRpc(await post(' '.repeat(1024 * 1024))), 'error', 'code')).toBe(-32700);
  });

  it('the limit follows bodyLimit, also for a body that only grows past it when inflated', async () => {
    const small = await startNode({ bodyLimit: 200 });
    try {
      const big = request('chain_getChainInfo', `{"pad":"${'x'.repeat(300)}"}`);
      const answer = await post(big, {}, small.endpoint);
      expect(answer.status).toBe(413);
      expect(jsonAt(jsonRpc(answer), 'error', 'message')).toContain('exceeds 200 bytes');
      const zipped = gzipSync(big);
      expect(zipped.length).toBeLessThan(200);
      expect((await post(zipped, { 'content-encoding': 'gzip' }, small.endpoint)).status).toBe(413);
    } finally {
      await small.close();
    }
  });

  it('a charset other than UTF-8 is 415; bytes that are not UTF-8 are a parse error', async () => {
    const latin = await post(request('chain_getChainInfo', '{}'), { 'content-type': 'application/json; charset=iso-8859-1' });
    expect(latin.status).toBe(415);
    expect(jsonAt(jsonRpc(latin), 'error')).toMatchObject({ code: -32600, data: { charset: 'iso-8859-1' } });
    expect(jsonAt(jsonRpc(await post(request('chain_getChainInfo', '{}'), { 'content-type': 'application/json; charset=UTF-8' })), 'result', 'chain')).toBe('stubchain');
    const notUtf8 = await post(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]));
    expect(notUtf8.status).toBe(200);
    expect(jsonAt(jsonRpc(notUtf8), 'error')).toMatchObject({ code: -32700, message: 'Parse error' });
  });

  it('Content-Encoding: gzip is read; an unknown encoding is 415; corrupt gzip is 400', async () => {
    const ok = await post(gzipSync(request('chain_getChainInfo', '{}')), { 'content-encoding': 'gzip' });
    expect(jsonAt(jsonRpc(ok), 'result', 'chain')).toBe('stubchain');
    const unknown = await post(request('chain_getChainInfo', '{}'), { 'content-encoding': 'compress' });
    expect(unknown.status).toBe(415);
    expect(jsonRpc(unknown)).toMatchObject({ id: null, error: { code: -32600, data: { encoding: 'compress' } } });
    const corrupt = await post(Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' });
    expect(corrupt.status).toBe(400);
    expect(jsonRpc(corrupt)).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('other methods and paths below the base path answer JSON-RPC too', async () => {
    const base = node.endpoint;
    const cases: Array<[string, string, number]> = [
      ['PUT', base, 405],
      ['DELETE', base, 405],
      ['GET', base, 405],
      ['GET', `${base}/nope`, 404],
      ['POST', `${base}/nope`, 404],
      ['GET', `${base}/ws`, 426],
    ];
    for (const [method, url, status] of cases) {
      const answer = await post('{}', {}, url, method);
      expect(answer.status, `${method} ${url}`).toBe(status);
      expect(jsonRpc(answer)).toMatchObject({ id: null, error: { code: -32600 } });
    }
    const tooBig = await post(' '.repeat(1024 * 1024 + 1), {}, `${base}/nope`);
    expect(tooBig.status).toBe(413);
    jsonRpc(tooBig);
  });

  it('the client reports an oversized call as an rpc error with the status, not as a bad answer', async () => {
    const client = createChainRpcClient({ endpoint: node.endpoint, timeoutMs: 5000 });
    try {
      const err: ChainRpcError = await client.sendTransaction({ raw: 'ab'.repeat(600_000) }).then(
        () => expect.unreachable(),
        (e: ChainRpcError) => e,
      );
      expect(err).toMatchObject({ kind: 'rpc', code: RpcErrorCode.INVALID_REQUEST, status: 413, data: { limit: 1048576 } });
    } finally {
      await client.close();
    }
  });
});

describe('one definition of the error codes', () => {
  it('the node answers with the codes the client exports, from the same object', async () => {
    expect(nodeCodes).toBe(RpcErrorCode);
    expect(jsonAt(jsonRpc(await post('{"jsonrpc":"2.0","id":1,"method":"chain_nope"}')), 'error', 'code')).toBe(RpcErrorCode.METHOD_NOT_FOUND);
    expect(jsonAt(jsonRpc(await post('{')), 'error', 'code')).toBe(RpcErrorCode.PARSE_ERROR);
    const unknownOutput = jsonRpc(await post(request('chain_sendTransaction', `{"raw":"${'11'.repeat(36)}0161${'00'.repeat(7)}01"}`)));
    expect(jsonAt(unknownOutput, 'error', 'code')).toBe(RpcErrorCode.UNKNOWN_OUTPUT);
  });
});
