import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RpcErrorCode } from '../../clients/chain-rpc/codes.js';
import { schemaNames, validate, type ValidationResult } from '../../generated/schemas/chain-rpc/index.gen.js';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../schemas/chain-rpc');
const files = readdirSync(dir).filter((f) => f.endsWith('.json') && !f.endsWith('.openrpc.json')).sort();
const load = (file: string) => JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown>;

const PUBLISHED = [
  'RpcConfig', 'BlockHeader', 'Block', 'TransactionStatus', 'Transaction', 'GetBlockRequest', 'GetTransactionRequest',
  'SendTransactionRequest', 'SendTransactionResponse', 'FeeEstimate', 'EstimateFeeRequest', 'ChainInfo', 'MempoolInfo',
  'SubscriptionType', 'SubscribeRequest', 'Subscription', 'BlockNotification', 'TransactionNotification',
];
const DESIGNED = ['Hash', 'Amount', 'Priority', 'Address', 'Timestamp', 'ClientConfig'];

type Name = (typeof schemaNames)[number];
const check = (name: Name, value: unknown): ValidationResult<unknown> => (validate[name] as (x: unknown) => ValidationResult<unknown>)(value);

// ---- fixtures (values the stub node produces)
const H0 = '020f5687010ba3f04cd32366bcddb6a7cf99edaf5085078d6bf059d31c3db67f';
const H1 = 'e97ffd97ef18a734bf8dfefe18a9179e6e3af5930f462fe6e6ac4d2d6eb42cc0';
const TX = '24ceed98b0024142ba8c7752eaa5a8d9262ac7aa0bebee39206bf569dbe5cd6b';
const ZERO = '0'.repeat(64);
const header = { hash: H1, height: 1, previousHash: H0, merkleRoot: TX, timestamp: '2026-01-01T00:10:00Z' };
const block = { ...header, transactions: [TX], txCount: 1 };
const tx = { txid: TX, status: 'pending' };
const without = (o: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));

interface Row {
  given: string;
  value: unknown;
  /** JSON Pointer one of the errors must point at */
  path?: string;
  /** text one of the errors' messages must contain */
  message?: string;
}

/** Per type: values that must pass, and violations of each rule (published, or designed where marked). */
const table: Record<Name, { valid: unknown[]; invalid: Row[] }> = {
  Hash: {
    valid: [H0, ZERO],
    invalid: [
      { given: '63 characters', value: H0.slice(1), message: 'pattern' },
      { given: 'upper case', value: H0.toUpperCase(), message: 'pattern' },
      { given: 'a number', value: 1, message: 'must be string' },
    ],
  },
  Amount: {
    valid: ['0', '1', '2100000000000000', '123456789012345678901234567890'],
    invalid: [
      { given: 'negative', value: '-1', message: 'pattern' },
      { given: 'a fraction', value: '1.5', message: 'pattern' },
      { given: 'a leading zero', value: '01', message: 'pattern' },
      { given: 'a JSON number', value: 1, message: 'must be string' },
    ],
  },
  Priority: { valid: ['low', 'medium', 'high'], invalid: [{ given: 'unknown level', value: 'urgent', message: 'allowed values' }] },
  Address: {
    valid: ['alice', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'a'.repeat(128)],
    invalid: [
      { given: 'empty', value: '', message: 'pattern' },
      { given: 'a space', value: 'al ice', message: 'pattern' },
      { given: '129 characters', value: 'a'.repeat(129), message: 'pattern' },
    ],
  },
  Timestamp: {
    valid: ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.123Z'],
    invalid: [
      { given: 'not a date', value: 'yesterday', message: 'format' },
      { given: 'an offset instead of UTC', value: '2026-01-01T02:00:00+02:00', message: 'pattern' },
      { given: 'Unix seconds', value: 1767225600, message: 'must be string' },
    ],
  },
  ClientConfig: {
    valid: [{ endpoint: 'http://127.0.0.1:4000/chain-rpc' }, { endpoint: 'https://x.example/', apiKey: 'k', timeoutMs: 1, headers: { 'x-a': 'b' } }],
    invalid: [
      { given: 'no endpoint', value: {}, message: "required property 'endpoint'" },
      { given: 'endpoint not a URI', value: { endpoint: 'not a uri' }, path: '/endpoint', message: 'format' },
      { given: 'timeoutMs 0', value: { endpoint: 'http://x/', timeoutMs: 0 }, path: '/timeoutMs', message: '>= 1' },
      { given: 'a header that is not a string', value: { endpoint: 'http://x/', headers: { a: 1 } }, path: '/headers/a' },
    ],
  },
  RpcConfig: {
    valid: [
      { endpoint: 'http://127.0.0.1:4000/chain-rpc' },
      { endpoint: 'http://127.0.0.1:4000/chain-rpc', wsEndpoint: 'ws://127.0.0.1:4000/chain-rpc/ws', network: 'testnet' },
      { endpoint: 'http://127.0.0.1:4000/chain-rpc', network: 'mainnet', timeoutMs: 500 },
    ],
    invalid: [
      { given: 'network regtest', value: { endpoint: 'http://x/', network: 'regtest' }, path: '/network', message: 'allowed values' },
      { given: 'wsEndpoint not a URI', value: { endpoint: 'http://x/', wsEndpoint: 'nope' }, path: '/wsEndpoint', message: 'format' },
      { given: 'no base endpoint', value: { wsEndpoint: 'ws://x/' }, message: "required property 'endpoint'" },
      { given: 'an unknown field', value: { endpoint: 'http://x/', retries: 3 }, message: 'unevaluated properties: retries' },
    ],
  },
  BlockHeader: {
    valid: [header, { ...header, version: 1, difficulty: '1', nonce: 7 }, { ...header, height: 0, previousHash: ZERO }],
    invalid: [
      { given: 'height -1', value: { ...header, height: -1 }, path: '/height', message: '>= 0' },
      { given: 'height 1.5', value: { ...header, height: 1.5 }, path: '/height', message: 'integer' },
      ...['hash', 'height', 'previousHash', 'merkleRoot', 'timestamp'].map((k) => ({
        given: `no ${k}`,
        value: without(header, k),
        message: `required property '${k}'`,
      })),
      { given: 'difficulty as a number', value: { ...header, difficulty: 1 }, path: '/difficulty', message: 'string' },
      { given: 'nonce 1.5', value: { ...header, nonce: 1.5 }, path: '/nonce', message: 'integer' },
      { given: 'hash not hex', value: { ...header, hash: 'xyz' }, path: '/hash', message: 'pattern' },
    ],
  },
  Block: {
    valid: [block, { ...block, size: 130, weight: 520, version: 1 }, { ...header, transactions: [], txCount: 4 }],
    invalid: [
      { given: 'no transactions', value: without(block, 'transactions'), message: "required property 'transactions'" },
      { given: 'no txCount', value: without(block, 'txCount'), message: "required property 'txCount'" },
      { given: 'a header field missing', value: without(block, 'merkleRoot'), message: "required property 'merkleRoot'" },
      { given: 'height -1 (from BlockHeader)', value: { ...block, height: -1 }, path: '/height', message: '>= 0' },
      { given: 'size 1.5', value: { ...block, size: 1.5 }, path: '/size', message: 'integer' },
      { given: 'a transaction that is not a hash', value: { ...block, transactions: ['x'] }, path: '/transactions/0' },
      { given: 'an unknown field', value: { ...block, miner: 'me' }, message: 'unevaluated properties: miner' },
    ],
  },
  TransactionStatus: {
    valid: ['pending', 'confirmed', 'failed', 'replaced'],
    invalid: [{ given: 'dropped', value: 'dropped', message: 'allowed values' }],
  },
  Transaction: {
    valid: [
      tx,
      {
        ...tx,
        status: 'confirmed',
        blockHash: H1,
        blockHeight: 1,
        confirmations: 2,
        timestamp: '2026-01-01T00:10:00Z',
        raw: 'ABcd',
        size: 2,
        fee: '2',
        inputs: [{ txid: ZERO, vout: 1 }],
        outputs: [{ address: 'alice', amount: '5' }],
      },
    ],
    invalid: [
      { given: 'no txid', value: { status: 'pending' }, message: "required property 'txid'" },
      { given: 'no status', value: { txid: TX }, message: "required property 'status'" },
      { given: 'status dropped', value: { ...tx, status: 'dropped' }, path: '/status', message: 'allowed values' },
      { given: 'fee as a number', value: { ...tx, fee: 1.5 }, path: '/fee', message: 'string' },
      { given: 'raw odd length', value: { ...tx, raw: 'abc' }, path: '/raw', message: 'pattern' },
      { given: 'an output without amount', value: { ...tx, outputs: [{ address: 'a' }] }, path: '/outputs/0', message: "'amount'" },
      { given: 'an unknown field', value: { ...tx, memo: 'x' }, message: 'additional properties: memo' },
    ],
  },
  GetBlockRequest: {
    valid: [{ hash: H0 }, { height: 0 }, { height: 5, includeTransactions: false }, { hash: H0, includeTransactions: true }],
    invalid: [
      { given: 'height -1', value: { height: -1 }, path: '/height', message: '>= 0' },
      { given: 'both hash and height', value: { hash: H0, height: 0 }, message: 'exactly one schema in oneOf' },
      { given: 'neither hash nor height', value: {}, message: 'exactly one schema in oneOf' },
      { given: 'only includeTransactions', value: { includeTransactions: false }, message: 'exactly one schema in oneOf' },
      { given: 'includeTransactions a string', value: { height: 1, includeTransactions: 'yes' }, path: '/includeTransactions', message: 'boolean' },
      { given: 'hash not hex', value: { hash: 'abc' }, path: '/hash', message: 'pattern' },
    ],
  },
  GetTransactionRequest: {
    valid: [{ txid: TX }],
    invalid: [
      { given: 'no txid', value: {}, message: "required property 'txid'" },
      { given: 'txid not a hash', value: { txid: 'abc' }, path: '/txid', message: 'pattern' },
    ],
  },
  SendTransactionRequest: {
    valid: [{ raw: '00' }, { raw: 'DEADbeef' }],
    invalid: [
      { given: 'odd-length raw', value: { raw: 'abc' }, path: '/raw', message: 'pattern' },
      { given: 'non-hex raw', value: { raw: 'zz' }, path: '/raw', message: 'pattern' },
      { given: 'empty raw', value: { raw: '' }, path: '/raw', message: 'pattern' },
      { given: '0x prefix', value: { raw: '0x00' }, path: '/raw', message: 'pattern' },
      { given: 'no raw', value: {}, message: "required property 'raw'" },
    ],
  },
  SendTransactionResponse: {
    valid: [{ txid: TX, accepted: true }, { txid: TX, accepted: false }],
    invalid: [
      { given: 'no accepted', value: { txid: TX }, message: "required property 'accepted'" },
      { given: 'no txid', value: { accepted: true }, message: "required property 'txid'" },
      { given: 'accepted a string', value: { txid: TX, accepted: 'yes' }, path: '/accepted', message: 'boolean' },
    ],
  },
  FeeEstimate: {
    valid: [{ priority: 'medium', feeRate: '5', estimatedBlocks: 3 }],
    invalid: [
      ...['priority', 'feeRate', 'estimatedBlocks'].map((k) => ({
        given: `no ${k}`,
        value: without({ priority: 'medium', feeRate: '5', estimatedBlocks: 3 }, k),
        message: `required property '${k}'`,
      })),
      { given: 'estimatedBlocks 1.5', value: { priority: 'low', feeRate: '1', estimatedBlocks: 1.5 }, path: '/estimatedBlocks', message: 'integer' },
      { given: 'feeRate a number', value: { priority: 'low', feeRate: 1, estimatedBlocks: 1 }, path: '/feeRate', message: 'string' },
    ],
  },
  EstimateFeeRequest: {
    valid: [{}, { priority: 'high' }, { targetBlocks: 1 }, { targetBlocks: 100 }, { priority: 'low', targetBlocks: 50 }],
    invalid: [
      { given: 'targetBlocks 0', value: { targetBlocks: 0 }, path: '/targetBlocks', message: '>= 1' },
      { given: 'targetBlocks 101', value: { targetBlocks: 101 }, path: '/targetBlocks', message: '<= 100' },
      { given: 'targetBlocks 1.5', value: { targetBlocks: 1.5 }, path: '/targetBlocks', message: 'integer' },
      { given: 'priority urgent', value: { priority: 'urgent' }, path: '/priority', message: 'allowed values' },
    ],
  },
  ChainInfo: {
    valid: [
      { chain: 'stubchain', network: 'mainnet', height: 0, bestBlockHash: H0 },
      { chain: 'c', network: 'testnet', height: 9, bestBlockHash: H0, syncProgress: 0, syncing: true, difficulty: '1', chainWork: 'ff', medianTime: '2026-01-01T00:00:00Z' },
      { chain: 'c', network: 'testnet', height: 9, bestBlockHash: H0, syncProgress: 1 },
    ],
    invalid: [
      { given: 'syncProgress 1.5', value: { chain: 'c', network: 'mainnet', height: 0, bestBlockHash: H0, syncProgress: 1.5 }, path: '/syncProgress', message: '<= 1' },
      { given: 'syncProgress -0.1', value: { chain: 'c', network: 'mainnet', height: 0, bestBlockHash: H0, syncProgress: -0.1 }, path: '/syncProgress', message: '>= 0' },
      ...['chain', 'network', 'height', 'bestBlockHash'].map((k) => ({
        given: `no ${k}`,
        value: without({ chain: 'c', network: 'mainnet', height: 0, bestBlockHash: H0 }, k),
        message: `required property '${k}'`,
      })),
      { given: 'syncing a string', value: { chain: 'c', network: 'mainnet', height: 0, bestBlockHash: H0, syncing: 'no' }, path: '/syncing', message: 'boolean' },
    ],
  },
  MempoolInfo: {
    valid: [{ size: 0, bytes: 0 }, { size: 1, bytes: 64, usage: 164, maxMempool: 300000000, minFee: '1' }],
    invalid: [
      { given: 'no size', value: { bytes: 0 }, message: "required property 'size'" },
      { given: 'no bytes', value: { size: 0 }, message: "required property 'bytes'" },
      { given: 'usage 1.5', value: { size: 0, bytes: 0, usage: 1.5 }, path: '/usage', message: 'integer' },
      { given: 'minFee a number', value: { size: 0, bytes: 0, minFee: 1 }, path: '/minFee', message: 'string' },
    ],
  },
  SubscriptionType: {
    valid: ['blocks', 'transactions', 'address', 'mempool'],
    invalid: [{ given: 'logs', value: 'logs', message: 'allowed values' }],
  },
  SubscribeRequest: {
    valid: [{ type: 'blocks' }, { type: 'transactions' }, { type: 'mempool' }, { type: 'address', address: 'alice' }],
    invalid: [
      { given: 'address subscription without address', value: { type: 'address' }, message: "required property 'address'" },
      { given: 'no type', value: {}, message: "required property 'type'" },
      { given: 'type logs', value: { type: 'logs' }, path: '/type', message: 'allowed values' },
      { given: 'an invalid address', value: { type: 'address', address: 'a b' }, path: '/address', message: 'pattern' },
    ],
  },
  Subscription: {
    valid: [{ id: 'sub_1', type: 'blocks' }, { id: 'sub_2', type: 'address', createdAt: '2026-01-01T00:00:00Z' }],
    invalid: [
      { given: 'no id', value: { type: 'blocks' }, message: "required property 'id'" },
      { given: 'no type', value: { id: 'sub_1' }, message: "required property 'type'" },
      { given: 'createdAt not a time', value: { id: 'sub_1', type: 'blocks', createdAt: 'now' }, path: '/createdAt', message: 'format' },
    ],
  },
  BlockNotification: {
    valid: [{ type: 'block', block }],
    invalid: [
      { given: 'type transaction', value: { type: 'transaction', block }, path: '/type', message: 'constant' },
      { given: 'no block', value: { type: 'block' }, message: "required property 'block'" },
      { given: 'no type', value: { block }, message: "required property 'type'" },
      { given: 'a block with height -1', value: { type: 'block', block: { ...block, height: -1 } }, path: '/block/height', message: '>= 0' },
    ],
  },
  TransactionNotification: {
    valid: [{ type: 'transaction', transaction: tx }, { type: 'transaction', transaction: tx, address: 'alice' }],
    invalid: [
      { given: 'type block', value: { type: 'block', transaction: tx }, path: '/type', message: 'constant' },
      { given: 'no transaction', value: { type: 'transaction' }, message: "required property 'transaction'" },
      { given: 'no type', value: { transaction: tx }, message: "required property 'type'" },
      { given: 'an invalid address', value: { type: 'transaction', transaction: tx, address: '' }, path: '/address' },
    ],
  },
};

describe('chain-rpc schema files', () => {
  it('are the 18 published types plus the designed common ones, and nothing else', () => {
    expect(files.map((f) => f.replace(/\.json$/, '')).sort()).toEqual([...PUBLISHED, ...DESIGNED].sort());
    expect([...schemaNames].sort()).toEqual([...PUBLISHED, ...DESIGNED].sort());
  });

  it.each(files)('%s follows the conventions', (file) => {
    const s = load(file);
    const name = file.replace(/\.json$/, '');
    expect(s.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(s.$id).toBe(`https://contracts.platform.example/schemas/chain-rpc/${file}`);
    expect(s.title).toBe(name);
    expect(typeof s.description).toBe('string');
    expect(Array.isArray(s.examples) && s.examples.length).toBeGreaterThan(0);
    expect(s).not.toHaveProperty('$defs');
    expect(s).not.toHaveProperty('definitions');
    const text = JSON.stringify(s);
    for (const ref of text.matchAll(/"\$ref":"([^"]+)"/g)) {
      expect(ref[1]).toMatch(/^[A-Za-z]+\.json$/);
      expect(files).toContain(ref[1]);
    }
    if (DESIGNED.includes(name)) expect(typeof s['x-provisional']).toBe('string');
    else expect(s).not.toHaveProperty('x-provisional'); // published types: only designed parts are marked, inside
  });

  it('Block extends BlockHeader with allOf and closes with unevaluatedProperties', () => {
    const s = load('Block.json');
    expect(s.allOf).toEqual([{ $ref: 'BlockHeader.json' }]);
    expect(s.unevaluatedProperties).toBe(false);
    expect(load('BlockHeader.json')).not.toHaveProperty('additionalProperties');
  });

  it('publishes the stated defaults', () => {
    const rpc = load('RpcConfig.json') as { properties: Record<string, { default?: unknown }> };
    expect(rpc.properties.network?.default).toBe('mainnet');
    const gb = load('GetBlockRequest.json') as { oneOf: Array<{ properties: Record<string, { default?: unknown }> }> };
    for (const branch of gb.oneOf) expect(branch.properties.includeTransactions?.default).toBe(true);
  });
});

describe.each(Object.keys(table) as Name[])('validate.%s', (name) => {
  const { valid, invalid } = table[name];
  const examples = (load(`${name}.json`).examples as unknown[]).map((value, i) => ({ given: `schema example ${i}`, value }));
  it.each([...examples, ...valid.map((value, i) => ({ given: `valid value ${i}`, value }))])('accepts $given', ({ value }) => {
    const r = check(name, value);
    expect(r.ok ? [] : r.errors).toEqual([]);
  });
  it.each(invalid)('rejects $given', (row) => {
    const r = check(name, row.value);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toMatch(new RegExp(`^invalid ${name}: `));
    const hit = r.errors.some((e) => (row.path === undefined || e.path === row.path) && (row.message === undefined || e.message.includes(row.message)));
    expect(hit, `no error ${row.path ?? ''} ~ ${row.message ?? ''} in ${JSON.stringify(r.errors)}`).toBe(true);
  });
});

describe('chain-rpc.openrpc.json', () => {
  const doc = JSON.parse(readFileSync(path.join(dir, 'chain-rpc.openrpc.json'), 'utf8')) as {
    openrpc: string;
    'x-provisional'?: string;
    methods: Array<{ name: string; params: Array<{ name: string; schema: unknown }>; result?: { schema: unknown }; errors?: unknown[]; 'x-params-schema'?: { $ref: string } }>;
    components: { errors: Record<string, { code: number }> };
  };

  it('is an OpenRPC 1.3.2 document marked provisional, with every method of the binding', () => {
    expect(doc.openrpc).toBe('1.3.2');
    expect(typeof doc['x-provisional']).toBe('string');
    expect(doc.methods.map((m) => m.name)).toEqual([
      'chain_getBlock', 'chain_getTransaction', 'chain_sendTransaction', 'chain_estimateFee', 'chain_getChainInfo',
      'chain_getMempoolInfo', 'chain_subscribe', 'chain_unsubscribe', 'chain_subscription', 'chain_mine',
    ]);
    // The document and the shared codes (clients/chain-rpc/codes.ts) list the same codes.
    expect(Object.values(doc.components.errors).map((e) => e.code).sort((a, b) => a - b)).toEqual(Object.values(RpcErrorCode).sort((a, b) => a - b));
  });

  it('references only schema files that exist, and each params list matches its request type', () => {
    const text = JSON.stringify(doc);
    for (const ref of text.matchAll(/"\$ref":"\.\/([^"]+)"/g)) expect(files).toContain(ref[1]);
    for (const m of doc.methods) {
      const paramsSchema = m['x-params-schema']?.$ref;
      if (!paramsSchema) continue;
      const s = load(paramsSchema.replace('./', '')) as { properties?: Record<string, unknown>; oneOf?: Array<{ properties: Record<string, unknown> }> };
      const props = new Set([...Object.keys(s.properties ?? {}), ...(s.oneOf ?? []).flatMap((b) => Object.keys(b.properties))]);
      expect(new Set(m.params.map((p) => p.name)), m.name).toEqual(props);
    }
  });
});
