import { asWireRequest } from '../../scripts/lib/contract-checks/checked-request.js';
import type { Observed, Sender } from '../../scripts/lib/fuzz/wire.js';

/** A request below a service's base path: `path` may carry a query. */
export interface KeepAliveCall {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * Sends one request on the contract runner's keep-alive `node:http` sender (`createSender`), for the
 * tests that send hundreds (to fill a rate window, to spend an allowance): fetch cost several times
 * as much a call. It follows no redirect, as a `redirect: 'manual'` fetch. No answer at all fails the test.
 */
export async function sendOnKeepAlive(sender: Sender, basePath: string, path: string, call: KeepAliveCall = {}, kind = 'test request'): Promise<Observed> {
  const observed = await sender.send(basePath, asWireRequest({ url: path, init: call }, kind));
  if (observed.error) throw new Error(`${call.method ?? 'GET'} ${path}: no answer (${observed.error})`);
  return observed;
}
