/**
 * The stub node's raw transaction format ("stubtx v1"). PROVISIONAL: the published document only
 * says `raw` is a hex-encoded signed transaction; a real chain has its own serialization. The stub
 * needs just enough structure to detect double spends and to know which addresses a transaction
 * touches, so it reads:
 *
 *   bytes [0, 32)   txid of the output being spent (hex, as in Transaction.inputs[0].txid)
 *   bytes [32, 36)  index of that output, uint32 big-endian (Transaction.inputs[0].vout)
 *   then 1 or more outputs, each:
 *     1 byte        L, the address length (1..128)
 *     L bytes       the address, ASCII letters and digits
 *     8 bytes       the amount in base units, uint64 big-endian
 *
 * Two transactions spending the same outpoint (the first 36 bytes) are a double spend.
 * There are no signatures: the node accepts any well-formed transaction that spends an output it
 * knows and leaves at least the minimum fee (store.ts, `send`). The format, with a worked example,
 * is documented for wallet teams in schemas/chain-rpc/chain-rpc.openrpc.json
 * (components.schemas.StubRawTransaction); keep the two in step.
 */

export interface Outpoint {
  txid: string;
  vout: number;
}

export interface TxOutput {
  address: string;
  /** base units, decimal string */
  amount: string;
}

export interface DecodedTx {
  spends: Outpoint;
  outputs: TxOutput[];
}

export class RawTxError extends Error {}

const ADDRESS = /^[0-9A-Za-z]{1,128}$/;
const HASH = /^[0-9a-f]{64}$/;

/** Hex of a transaction in the stub's format: handy for tests and demos. */
export function encodeStubTransaction(tx: DecodedTx): string {
  if (!HASH.test(tx.spends.txid)) throw new RawTxError('spends.txid must be 64 lowercase hex characters');
  if (!Number.isInteger(tx.spends.vout) || tx.spends.vout < 0 || tx.spends.vout > 0xffffffff) {
    throw new RawTxError('spends.vout must be a uint32');
  }
  if (tx.outputs.length === 0) throw new RawTxError('a transaction needs at least one output');
  const parts: Buffer[] = [Buffer.from(tx.spends.txid, 'hex')];
  const vout = Buffer.alloc(4);
  vout.writeUInt32BE(tx.spends.vout);
  parts.push(vout);
  for (const out of tx.outputs) {
    if (!ADDRESS.test(out.address)) throw new RawTxError(`bad address ${JSON.stringify(out.address)}`);
    const amount = BigInt(out.amount);
    if (amount < 0n || amount > 0xffffffffffffffffn) throw new RawTxError('amount out of range');
    const amountBytes = Buffer.alloc(8);
    amountBytes.writeBigUInt64BE(amount);
    parts.push(Buffer.from([out.address.length]), Buffer.from(out.address, 'ascii'), amountBytes);
  }
  return Buffer.concat(parts).toString('hex');
}

/** Reads hex in the stub's format; throws RawTxError with a reason a client can show. */
export function decodeStubTransaction(rawHex: string): DecodedTx {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(rawHex)) throw new RawTxError('raw is not hex-encoded');
  const bytes = Buffer.from(rawHex, 'hex');
  if (bytes.length < 36) throw new RawTxError(`too short: ${bytes.length} bytes, the spent outpoint alone takes 36`);
  const spends = { txid: bytes.subarray(0, 32).toString('hex'), vout: bytes.readUInt32BE(32) };
  const outputs: TxOutput[] = [];
  let at = 36;
  while (at < bytes.length) {
    const len = bytes[at]!;
    if (len < 1 || len > 128) throw new RawTxError(`output ${outputs.length}: address length ${len} is not 1..128`);
    if (at + 1 + len + 8 > bytes.length) throw new RawTxError(`output ${outputs.length}: truncated`);
    const address = bytes.subarray(at + 1, at + 1 + len).toString('latin1');
    if (!ADDRESS.test(address)) throw new RawTxError(`output ${outputs.length}: address is not letters and digits`);
    const amount = bytes.readBigUInt64BE(at + 1 + len).toString();
    outputs.push({ address, amount });
    at += 1 + len + 8;
  }
  if (outputs.length === 0) throw new RawTxError('a transaction needs at least one output');
  return { spends, outputs };
}
