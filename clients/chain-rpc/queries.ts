import { validate } from '../../generated/schemas/chain-rpc/index.gen.js';
import type { createHttpCaller } from './http-call.js';
import { checkParams } from './jsonrpc.js';
import type { ChainRpcClient } from './types.js';

type HttpCall = ReturnType<typeof createHttpCaller>;

export type QueryMethods = Pick<ChainRpcClient, 'getBlock' | 'getTransaction' | 'sendTransaction' | 'estimateFee' | 'getChainInfo' | 'getMempoolInfo'>;

/** The typed query methods: params checked against their published schema, then one HTTP call each. */
export function queryMethods(call: HttpCall): QueryMethods {
  return {
    // async: a bad request rejects like every other failure instead of throwing synchronously
    getBlock: async (request) => call('chain_getBlock', checkParams('chain_getBlock', request, validate.GetBlockRequest), validate.Block),
    getTransaction: async (request) =>
      call('chain_getTransaction', checkParams('chain_getTransaction', request, validate.GetTransactionRequest), validate.Transaction),
    sendTransaction: async (request) =>
      call('chain_sendTransaction', checkParams('chain_sendTransaction', request, validate.SendTransactionRequest), validate.SendTransactionResponse),
    estimateFee: async (request = {}) => call('chain_estimateFee', checkParams('chain_estimateFee', request, validate.EstimateFeeRequest), validate.FeeEstimate),
    getChainInfo: () => call('chain_getChainInfo', {}, validate.ChainInfo),
    getMempoolInfo: () => call('chain_getMempoolInfo', {}, validate.MempoolInfo),
  };
}
