/**
 * `npm run contract -- --base-url URL [--service slug] [--junit FILE] [--stateless]
 * [--header 'Name: value']... [--seed N] [--runs N] [--bundles DIR]`: checks a running implementation of a contract
 * (the stubs, the mock, your own server) with the contract's examples, negative cases and the
 * fuzzer (scripts/lib/contract-runner.ts). Exit 0 when it keeps the contract, 1 on any violation,
 * 2 on bad usage.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { readOptions, writeReport } from './lib/command-line.js';
import { runContract, USAGE } from './lib/contract-runner.js';

export { runContract } from './lib/contract-runner.js';

function integer(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw.trim())) throw new Error(`--${name} must be an integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

async function main(): Promise<number> {
  const values = readOptions(
    {
      options: {
        'base-url': { type: 'string' },
        service: { type: 'string' },
        junit: { type: 'string' },
        stateless: { type: 'boolean', default: false },
        header: { type: 'string', multiple: true },
        seed: { type: 'string' },
        runs: { type: 'string' },
        bundles: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: false,
    },
    USAGE,
    ['base-url'],
  );
  if (typeof values === 'number') return values;
  let seed: number | undefined;
  let runs: number | undefined;
  try {
    seed = integer('seed', values.seed);
    runs = integer('runs', values.runs);
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const fromEnv = (process.env.CONTRACT_HEADERS ?? '').split(/\r?\n/).filter((line) => line.trim() !== '');
  const headers = values.header?.length ? values.header : fromEnv;
  let run;
  try {
    run = await runContract({ baseUrl: values['base-url']!, service: values.service, headers, stateless: values.stateless, seed, runs, bundlesDir: values.bundles });
  } catch (error) {
    // A fault of the runner, not of the server checked: said in one line, not as a stack trace.
    console.error(`npm run contract could not finish: ${(error as Error).message}`);
    return 2;
  }
  if (run.exitCode === 2) {
    console.error(run.report);
    return 2;
  }
  console.info(run.report);
  if (values.junit) writeReport(values.junit, run.junit, 'JUnit XML');
  return run.exitCode;
}

// Run only as the CLI, not when a test imports `runContract` from here.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = await main();
}
