/**
 * Schema-driven, property-based fuzzing of every stub on `npm start`'s server: about 1,000
 * requests per HTTP service (half valid, built from the contract; half bad input of every kind)
 * and 1,000 JSON-RPC calls to the chain node, each answer judged against the contract and
 * DECISIONS G-1 to G-3 (scripts/lib/fuzz/oracle.ts, chain-rpc.ts). All violations are collected,
 * then each kind is shrunk by fast-check to a minimal request and reported with the seed. A resource
 * a stub created from an oversized body is deleted once an answer has served it back
 * (scripts/lib/fuzz/oversized-stored.ts), so it is not judged again in every later list.
 *
 * Knobs (environment variables): FUZZ_SEED (default fixed), FUZZ_RUNS (per service, default 1000),
 * FUZZ_CONCURRENCY (default 8), FUZZ_SHRINK_MS (shrinking budget per service, default 8000).
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { findApiServices } from '../../scripts/lib/project.js';
import { loadContract } from '../../server-stubs/lib/contract.js';
import { startPlatformServer, type PlatformServer } from '../../server-stubs/server.js';
import { chainRpcTarget } from '../../scripts/lib/fuzz/chain-rpc.js';
import { fuzzConfig, replayCommand } from '../../scripts/lib/fuzz/config.js';
import { httpServiceTarget } from '../../scripts/lib/fuzz/http-target.js';
import { formatCases, formatReport } from '../../scripts/lib/fuzz/report.js';
import { runFuzz, type FuzzTarget } from '../../scripts/lib/fuzz/runner.js';
import { createSender, type FuzzRequest, type Sender } from '../../scripts/lib/fuzz/wire.js';

const config = fuzzConfig();
// The development controls (a contract served at /_stub) move the one clock every stub reads, and
// never back: fuzzing them first could age the other services' data. They go last.
const isControls = (slug: string) => loadContract(slug).basePath.startsWith('/_stub');
const slugs = findApiServices(defaultRoot).map((s) => s.slug);
const services = slugs.filter((slug) => !isControls(slug));
const controls = slugs.filter(isControls);

let stubs: PlatformServer;
let sender: Sender;

beforeAll(async () => {
  stubs = await startPlatformServer(0, '127.0.0.1');
  // The server shares this process: a request waits while another holds the event loop (a
  // tokenizer or a validator loaded on first use), for seconds on a busy machine. A slow answer is
  // not a violation; one that never comes still is, after two minutes.
  sender = createSender(stubs.port, { concurrency: config.concurrency, timeoutMs: 120_000 });
}, 120_000);

afterAll(async () => {
  sender?.close();
  await stubs?.close();
});

async function fuzz<T extends FuzzRequest>(name: string, target: FuzzTarget<T>): Promise<void> {
  // The stubs log every internal error; thousands of bad requests would bury the report.
  const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  let result;
  try {
    result = await runFuzz(target, config);
  } finally {
    logged.mockRestore();
  }
  console.info(`${name}: ${result.runs} requests in ${(result.ms / 1000).toFixed(1)} s (seed ${result.seed}); cases: ${formatCases(result)}`);
  if (result.kinds.length > 0) throw new Error(formatReport(name, result, replayCommand(config)));
  // The server is still alive after all of it: a plain request still gets an answer.
  const alive = await sender.send('', { case: 'alive', method: 'GET', path: '/', query: [], headers: {}, expect: 'any' });
  if (alive.error || alive.status !== 200) throw new Error(`${name}: after the run, GET / on the server answered ${alive.error ?? alive.status}`);
}

// Generous: the default run takes seconds on a quiet machine, minutes on a busy one, and FUZZ_RUNS
// may ask for far more.
const timeout = 300_000 + config.numRuns * 300;

describe('fuzz', () => {
  test.each(services)('%s: every answer keeps the contract under fuzzing', async (slug) => {
    await fuzz(slug, httpServiceTarget(slug, stubs.services, sender, { removeOversized: true }));
  }, timeout);

  test('chain-rpc: every answer is JSON-RPC 2.0 under fuzzing', async () => {
    await fuzz('chain-rpc', chainRpcTarget(sender));
  }, timeout);

  test.each(controls)('%s: every answer keeps the contract under fuzzing', async (slug) => {
    await fuzz(slug, httpServiceTarget(slug, stubs.services, sender, { removeOversized: true }));
  }, timeout);
});

describe('fuzz: the oracle catches a tenant leak', () => {
  test('ids one tenant created, reached with a credential the server takes for the same tenant, are reported', async () => {
    // The fuzzer is told the second credential is another tenant's, but the server sees the same key:
    // exactly what a server that forgets to scope by tenant looks like from outside.
    const seo = stubs.services.find((s) => s.slug === 'seo')!;
    const key = seo.credentials[0]!;
    const lying = [{ slug: 'seo', credentials: [{ ...key, tenant: 'a' }, { ...key, label: 'same key, claimed as another tenant', tenant: 'b' }] }];
    // Seeds and empty rate windows, whatever the fuzz before it left: its creates must be taken.
    const reset = await sender.send('', { case: 'reset', method: 'POST', path: '/_stub/reset', query: [], headers: {}, expect: 'any' });
    expect(reset.status).toBe(200);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const result = await runFuzz(httpServiceTarget('seo', lying, sender, { removeOversized: true }), { ...config, numRuns: 400, shrinkBudgetMs: 0 });
      const leak = result.kinds.find((k) => k.kind === 'cross-tenant access');
      expect(leak, formatReport('seo', result, replayCommand(config))).toBeDefined();
      expect(leak!.first.request).toContain(key.value);
    } finally {
      logged.mockRestore();
    }
  }, timeout);
});
