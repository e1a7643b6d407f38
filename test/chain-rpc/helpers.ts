import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createChainRpcStub, type ChainRpcStubInstance, type ChainRpcStubOptions } from '../../server-stubs/chain-rpc/app.js';
import { valueAt } from '../../server-stubs/lib/openapi/document.js';

export interface RunningNode {
  instance: ChainRpcStubInstance;
  server: http.Server;
  endpoint: string;
  wsEndpoint: string;
  close(): Promise<void>;
}

/** Starts the chain node stub in-process on an ephemeral port, mounted as `npm start` mounts it. */
export async function startNode(options: ChainRpcStubOptions = {}): Promise<RunningNode> {
  const instance = createChainRpcStub({ mineIntervalMs: 0, clock: { now: () => Date.parse('2026-01-01T01:00:00Z') }, ...options });
  const app = express().use('/chain-rpc', instance.router);
  const server = http.createServer(app);
  server.on('upgrade', (req, socket, head) => instance.upgrade(req, socket, head) || socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    instance,
    server,
    endpoint: `http://127.0.0.1:${port}/chain-rpc`,
    wsEndpoint: `ws://127.0.0.1:${port}/chain-rpc/ws`,
    async close() {
      await instance.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What a pointer reaches in a JSON-RPC answer (`jsonAt(json, 'error', 'code')`), undefined where it has nothing there. */
export const jsonAt = (json: unknown, ...tokens: string[]) => valueAt(json, tokens);

/** Raw JSON-RPC over HTTP, bypassing the client (to see what the node itself answers). */
export async function rawCall(endpoint: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** Resolves with the first value `pick` returns (not undefined) among the items pushed to `list`. */
export function waitFor<T>(probe: () => T | undefined, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => {
      const value = probe();
      if (value !== undefined) return resolve(value);
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 5);
    };
    tick();
  });
}
