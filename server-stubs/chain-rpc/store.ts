import { systemClock, type Clock } from '../lib/clock.js';
import { StateStore, type Cell, type Collection } from '../lib/store.js';
import { createHash } from 'node:crypto';
import type {
  Block,
  ChainInfo,
  EstimateFeeRequest,
  FeeEstimate,
  MempoolInfo,
  Priority,
  SendTransactionResponse,
  Transaction,
  TransactionStatus,
} from '../../generated/schemas/chain-rpc/index.gen.js';
import { decodeStubTransaction, encodeStubTransaction, RawTxError, type TxOutput } from './rawtx.js';

/** The time source of the stub; tests pass a fixed or stepping clock. */

export interface ChainStoreOptions {
  clock?: Clock;
  /** ChainInfo.chain; default `stubchain`. */
  chain?: string;
  /** ChainInfo.network; default `mainnet` (the client's default too). */
  network?: 'mainnet' | 'testnet';
  /**
   * Blocks above genesis at start (default 2). Block h pays 50 coins to `seedAddresses[h-1]`
   * (cycling), so tests have confirmed outputs to spend.
   */
  initialBlocks?: number;
  /** Who the seeded blocks pay; default `['alice', 'bob']`. */
  seedAddresses?: string[];
  /** Time of the genesis block; seeded blocks follow every 10 minutes. Default 2026-01-01T00:00:00Z. */
  genesisTime?: Date;
  /** MempoolInfo.maxMempool in bytes; default 300 MB. */
  maxMempool?: number;
}

/** A transaction changed state: what subscriptions are told about. */
export interface TxEvent {
  kind: 'tx';
  change: 'accepted' | 'confirmed' | 'replaced' | 'failed';
  transaction: Transaction;
  /** Every address the transaction pays or spends from (when the spent output is known). */
  addresses: string[];
}

export interface BlockEvent {
  kind: 'block';
  block: Block;
}

export type ChainEvent = TxEvent | BlockEvent;

/** Why the node refuses a transaction; each has its own JSON-RPC code (see node.ts). */
export type RejectionKind = 'undecodable' | 'unknown_output' | 'insufficient_funds';

/** Thrown for a well-formed request the node refuses; `data` goes to the JSON-RPC error's data. */
export class TxRejectedError extends Error {
  constructor(
    readonly kind: RejectionKind,
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

interface TxRecord {
  txid: string;
  raw: string;
  size: number;
  fee: string;
  spends: { txid: string; vout: number };
  outpointKey: string;
  outputs: TxOutput[];
  status: TransactionStatus;
  seenAt: string;
  blockHash?: string;
  blockHeight?: number;
  blockTime?: string;
}

interface StoredBlock {
  hash: string;
  height: number;
  version: number;
  previousHash: string;
  merkleRoot: string;
  timestamp: string;
  difficulty: string;
  nonce: number;
  transactions: string[];
  size: number;
  weight: number;
}

const ZERO_HASH = '0'.repeat(64);
const HEADER_BYTES = 80;
const COIN = 100_000_000n;
/** Fee rates in base units per byte, and the blocks each priority expects to wait (PROVISIONAL). */
const FEE_RATE: Record<Priority, number> = { low: 1, medium: 5, high: 10 };
const TARGET_BLOCKS: Record<Priority, number> = { high: 1, medium: 3, low: 6 };
/**
 * Lowest fee rate the node accepts, in base units per byte (MempoolInfo.minFee). PROVISIONAL: as on
 * UTXO chains there is no fee field; the fee is what the spent output holds minus what the outputs pay.
 */
const MIN_FEE_RATE = 1n;

function sha256hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function iso(date: Date): string {
  return date.toISOString();
}

/**
 * The chain: blocks from genesis, every transaction the node has seen, and the mempool, kept in
 * the node's state store. Hashes are deterministic: txid = sha256(raw bytes); merkleRoot = sha256
 * of the concatenated txid bytes; block hash = sha256 of the header fields joined with '|'.
 */
export class ChainStore {
  readonly chain: string;
  readonly network: 'mainnet' | 'testnet';
  readonly maxMempool: number;
  readonly state: StateStore;
  private readonly clock: Clock;
  /** by height (as text), genesis first */
  private readonly blocks: Collection<StoredBlock>;
  private readonly txs: Collection<TxRecord>;
  /** txids in arrival order */
  private readonly mempool: Cell<string[]>;
  /** outpoint key -> the pending or confirmed transaction spending it */
  private readonly spentBy: Collection<{ txid: string }>;
  private readonly listeners = new Set<(event: ChainEvent) => void>();
  private readonly options: ChainStoreOptions;

  constructor(options: ChainStoreOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.chain = options.chain ?? 'stubchain';
    this.network = options.network ?? 'mainnet';
    this.maxMempool = options.maxMempool ?? 300_000_000;
    this.options = options;
    this.state = new StateStore(this.clock);
    this.blocks = this.state.collection<StoredBlock>('blocks');
    this.txs = this.state.collection<TxRecord>('transactions');
    this.mempool = this.state.cell<string[]>('mempool', () => []);
    this.spentBy = this.state.collection<{ txid: string }>('spentOutputs');
    this.state.seed(() => this.seed());
  }

  /** Back to the seeded chain (`POST /_stub/reset`); subscribers stay subscribed. */
  reset(): void {
    this.state.reset();
  }

  private seed(): void {
    const options = this.options;
    const genesisTime = options.genesisTime ?? new Date('2026-01-01T00:00:00Z');
    const seeds = options.seedAddresses ?? ['alice', 'bob'];
    this.appendBlock([], iso(genesisTime));
    for (let h = 1; h <= (options.initialBlocks ?? 2); h++) {
      // A coinbase-like payment: spends the null outpoint with vout = height, so each one is unique.
      const raw = encodeStubTransaction({
        spends: { txid: ZERO_HASH, vout: h },
        outputs: [{ address: seeds[(h - 1) % seeds.length] ?? 'alice', amount: (50n * COIN).toString() }],
      });
      const time = iso(new Date(genesisTime.getTime() + h * 600_000));
      const record = this.recordFor(raw, time);
      this.txs.set(record.txid, record);
      this.appendBlock([record], time);
    }
  }

  // ---- reads

  get height(): number {
    return this.blocks.size - 1;
  }

  tip(): Block {
    return this.view(this.tipBlock(), true);
  }

  blockByHeight(height: number, includeTransactions = true): Block | undefined {
    const b = this.blocks.get(String(height));
    return b && this.view(b, includeTransactions);
  }

  blockByHash(hash: string, includeTransactions = true): Block | undefined {
    const wanted = hash.toLowerCase();
    const b = this.blocks.find((block) => block.hash === wanted);
    return b && this.view(b, includeTransactions);
  }

  transaction(txid: string): Transaction | undefined {
    const r = this.txs.get(txid.toLowerCase());
    return r && this.txView(r);
  }

  chainInfo(): ChainInfo {
    const last = this.blocks.values().slice(-11).map((b) => b.timestamp).sort();
    const median = last[Math.floor(last.length / 2)]!;
    const tip = this.tipBlock();
    return {
      chain: this.chain,
      network: this.network,
      height: tip.height,
      bestBlockHash: tip.hash,
      difficulty: tip.difficulty,
      medianTime: median,
      chainWork: BigInt(this.blocks.size).toString(16).padStart(64, '0'),
      syncing: false,
      syncProgress: 1,
    };
  }

  mempoolInfo(): MempoolInfo {
    const mempool = this.mempool.get();
    const bytes = mempool.reduce((sum, id) => sum + (this.txs.get(id)?.size ?? 0), 0);
    return {
      size: mempool.length,
      bytes,
      // PROVISIONAL: a fixed 100-byte bookkeeping overhead per entry.
      usage: bytes + 100 * mempool.length,
      maxMempool: this.maxMempool,
      minFee: MIN_FEE_RATE.toString(),
    };
  }

  /**
   * PROVISIONAL estimator. Priority maps to a base rate (low 1, medium 5, high 10 units/byte) and a
   * wait (high 1, medium 3, low 6 blocks). A targetBlocks picks the priority when none is given
   * (1 high, 2-3 medium, more low) and is echoed as estimatedBlocks. The rate rises by the base rate
   * for every full 10 000 bytes waiting in the mempool.
   */
  estimateFee(req: EstimateFeeRequest): FeeEstimate {
    const priority: Priority =
      req.priority ?? (req.targetBlocks === undefined ? 'medium' : req.targetBlocks <= 1 ? 'high' : req.targetBlocks <= 3 ? 'medium' : 'low');
    const congestion = 1 + Math.floor(this.mempoolInfo().bytes / 10_000);
    return {
      priority,
      feeRate: String(FEE_RATE[priority] * congestion),
      estimatedBlocks: req.targetBlocks ?? TARGET_BLOCKS[priority],
    };
  }

  // ---- writes

  /**
   * Accepts a transaction into the mempool (PROVISIONAL rules, in this order):
   * - undecodable raw: TxRejectedError `undecodable` (-32003);
   * - already known: answered again with the same txid, accepted unless it was replaced or failed;
   * - spends an output that no pending or confirmed transaction created: `unknown_output` (-32006);
   * - its outputs plus the minimum fee (size x MIN_FEE_RATE) exceed what the spent output holds:
   *   `insufficient_funds` (-32005); otherwise the fee is the difference between the two;
   * - spends an outpoint a pending transaction spends: the earlier one and the pending transactions
   *   built on its outputs become `replaced` and leave the mempool, the new one is accepted
   *   (replace-by-arrival; fees are not compared);
   * - spends an outpoint a confirmed transaction spent: recorded as `failed`, `accepted: false`.
   */
  send(raw: string): SendTransactionResponse {
    let record: TxRecord;
    try {
      record = this.recordFor(raw.toLowerCase(), iso(new Date(this.clock.now())));
    } catch (err) {
      if (err instanceof RawTxError) throw new TxRejectedError('undecodable', err.message);
      throw err;
    }
    const known = this.txs.get(record.txid);
    if (known) return { txid: known.txid, accepted: known.status === 'pending' || known.status === 'confirmed' };

    const available = BigInt(this.fundingOutput(record.spends).amount);
    const paid = record.outputs.reduce((sum, o) => sum + BigInt(o.amount), 0n);
    const minFee = BigInt(record.size) * MIN_FEE_RATE;
    if (paid + minFee > available) {
      throw new TxRejectedError(
        'insufficient_funds',
        `the outputs (${paid}) plus the minimum fee (${minFee}) exceed the ${available} the spent output holds`,
        { available: available.toString(), outputs: paid.toString(), minFee: minFee.toString(), missing: (paid + minFee - available).toString() },
      );
    }
    record.fee = (available - paid).toString();

    const conflictId = this.spentBy.get(record.outpointKey)?.txid;
    const conflict = conflictId === undefined ? undefined : this.txs.get(conflictId);
    if (conflict?.status === 'confirmed') {
      record.status = 'failed';
      this.txs.set(record.txid, record);
      this.emitTx('failed', record);
      return { txid: record.txid, accepted: false };
    }
    if (conflict?.status === 'pending') this.evict(conflict);
    this.txs.set(record.txid, record);
    this.mempool.get().push(record.txid);
    this.spentBy.set(record.outpointKey, { txid: record.txid });
    this.emitTx('accepted', record);
    return { txid: record.txid, accepted: true };
  }

  /** Mines `count` blocks; the first takes the whole mempool. Returns the new blocks. */
  mine(count = 1): Block[] {
    const mined: Block[] = [];
    for (let i = 0; i < count; i++) {
      const prev = this.tipBlock();
      const now = iso(new Date(this.clock.now()));
      const time = now < prev.timestamp ? prev.timestamp : now;
      const records = this.mempool.get().splice(0).map((id) => this.txs.get(id)!);
      const block = this.appendBlock(records, time);
      const view = this.view(block, true);
      mined.push(view);
      this.emit({ kind: 'block', block: view });
      for (const r of records) this.emitTx('confirmed', r);
    }
    return mined;
  }

  /** Listens to block and transaction events; returns the function that stops listening. */
  subscribe(listener: (event: ChainEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- internals

  private tipBlock(): StoredBlock {
    return this.blocks.get(String(this.height))!;
  }

  /** The output an outpoint names, if a pending or confirmed transaction created it. */
  private fundingOutput(spends: { txid: string; vout: number }): TxOutput {
    const where = { txid: spends.txid, vout: spends.vout };
    const parent = this.txs.get(spends.txid);
    if (!parent) throw new TxRejectedError('unknown_output', `spends ${spends.txid}:${spends.vout}, but the node knows no transaction ${spends.txid}`, where);
    if (parent.status !== 'pending' && parent.status !== 'confirmed') {
      throw new TxRejectedError('unknown_output', `spends an output of ${spends.txid}, which is ${parent.status}: its outputs do not exist`, where);
    }
    const output = parent.outputs[spends.vout];
    if (!output) {
      throw new TxRejectedError('unknown_output', `spends ${spends.txid}:${spends.vout}, but that transaction has ${parent.outputs.length} output(s), numbered from 0`, where);
    }
    return output;
  }

  /** Takes a pending transaction out of the mempool as `replaced`, with every pending one spending its outputs. */
  private evict(r: TxRecord): void {
    r.status = 'replaced';
    const mempool = this.mempool.get();
    mempool.splice(mempool.indexOf(r.txid), 1);
    if (this.spentBy.get(r.outpointKey)?.txid === r.txid) this.spentBy.delete(r.outpointKey);
    this.emitTx('replaced', r);
    for (const id of [...mempool]) {
      const child = this.txs.get(id)!;
      if (child.status === 'pending' && child.spends.txid === r.txid) this.evict(child);
    }
  }

  private recordFor(raw: string, seenAt: string): TxRecord {
    const decoded = decodeStubTransaction(raw);
    const bytes = Buffer.from(raw, 'hex');
    return {
      txid: sha256hex(bytes),
      raw,
      size: bytes.length,
      fee: '0', // coinbase; send() sets what a spend pays
      spends: decoded.spends,
      outpointKey: raw.slice(0, 72),
      outputs: decoded.outputs,
      status: 'pending',
      seenAt,
    };
  }

  private appendBlock(records: TxRecord[], timestamp: string): StoredBlock {
    const prev = this.blocks.size === 0 ? undefined : this.tipBlock();
    const height = prev ? prev.height + 1 : 0;
    const txids = records.map((r) => r.txid);
    const merkleRoot = sha256hex(Buffer.from(txids.join(''), 'hex'));
    const header = {
      version: 1,
      height,
      previousHash: prev ? prev.hash : ZERO_HASH,
      merkleRoot,
      timestamp,
      difficulty: '1',
      nonce: height,
    };
    const hash = sha256hex(Object.values(header).join('|'));
    const size = HEADER_BYTES + records.reduce((s, r) => s + r.size, 0);
    const block: StoredBlock = { hash, ...header, transactions: txids, size, weight: size * 4 };
    this.blocks.set(String(height), block);
    for (const r of records) {
      r.status = 'confirmed';
      r.blockHash = hash;
      r.blockHeight = height;
      r.blockTime = timestamp;
      this.spentBy.set(r.outpointKey, { txid: r.txid });
    }
    return block;
  }

  private view(b: StoredBlock, includeTransactions: boolean): Block {
    return {
      hash: b.hash,
      height: b.height,
      version: b.version,
      previousHash: b.previousHash,
      merkleRoot: b.merkleRoot,
      timestamp: b.timestamp,
      difficulty: b.difficulty,
      nonce: b.nonce,
      transactions: includeTransactions ? [...b.transactions] : [],
      size: b.size,
      weight: b.weight,
      txCount: b.transactions.length,
    };
  }

  private spentOutput(r: TxRecord): TxOutput | undefined {
    return this.txs.get(r.spends.txid)?.outputs[r.spends.vout];
  }

  private txView(r: TxRecord): Transaction {
    const spent = this.spentOutput(r);
    const input = { txid: r.spends.txid, vout: r.spends.vout, ...(spent ? { address: spent.address, amount: spent.amount } : {}) };
    const tx: Transaction = {
      txid: r.txid,
      status: r.status,
      timestamp: r.blockTime ?? r.seenAt,
      raw: r.raw,
      size: r.size,
      fee: r.fee,
      inputs: [input],
      outputs: r.outputs.map((o) => ({ ...o })),
    };
    if (r.status === 'confirmed' && r.blockHash !== undefined && r.blockHeight !== undefined) {
      tx.blockHash = r.blockHash;
      tx.blockHeight = r.blockHeight;
      tx.confirmations = this.height - r.blockHeight + 1;
    } else {
      tx.confirmations = 0;
    }
    return tx;
  }

  private emitTx(change: TxEvent['change'], r: TxRecord): void {
    const addresses = new Set(r.outputs.map((o) => o.address));
    const spent = this.spentOutput(r);
    if (spent) addresses.add(spent.address);
    this.emit({ kind: 'tx', change, transaction: this.txView(r), addresses: [...addresses] });
  }

  private emit(event: ChainEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }
}
