/**
 * The CPU coverage counting adds to one request, measured in this process on Node's own request
 * and response objects: the same work with and without the counting step (its `close` listener
 * and the count), alternated in blocks so drift in the machine's speed falls on both alike.
 * Server-level on/off comparisons move by more than the cost itself on a shared machine; this
 * isolates it, to be set against a stub's CPU per request from the same run.
 */
import http from 'node:http';
import { Socket } from 'node:net';
import { loadContract } from '../../server-stubs/lib/contract.js';
import { countAnswers, CoverageBook } from '../../server-stubs/lib/coverage.js';

/** µs of CPU per request with the counting step, without it, and the difference. */
export function countingCostMicros(blocks = 40, perBlock = 5_000): { counted: number; uncounted: number; cost: number } {
  const contract = loadContract('seo');
  const operation = contract.operations.get('getProject')!;
  const count = countAnswers(new CoverageBook().service(contract), () => operation);
  const socket = new Socket();
  const next = () => {};
  const exchange = (counting: boolean) => {
    const req = new http.IncomingMessage(socket);
    req.method = 'GET';
    req.url = '/seo/projects/x';
    const res = new http.ServerResponse(req);
    if (counting) count(req, res, next);
    res.statusCode = 200;
    // Headers gone out, as when a real answer closes.
    (res as unknown as { _header: string })._header = 'HTTP/1.1 200 OK\r\n\r\n';
    res.emit('close');
  };
  const cpu = { counted: 0, uncounted: 0 };
  for (let block = 0; block < blocks + 2; block++) {
    for (const counting of block % 2 === 0 ? [true, false] : [false, true]) {
      const start = process.cpuUsage();
      for (let i = 0; i < perBlock; i++) exchange(counting);
      const used = process.cpuUsage(start);
      // The first two blocks warm the JIT up and are not counted.
      if (block >= 2) cpu[counting ? 'counted' : 'uncounted'] += used.user + used.system;
    }
  }
  const requests = blocks * perBlock;
  const counted = cpu.counted / requests;
  const uncounted = cpu.uncounted / requests;
  return { counted: round(counted), uncounted: round(uncounted), cost: round(Math.max(0, counted - uncounted)) };
}

const round = (micros: number) => Math.round(micros * 1000) / 1000;
