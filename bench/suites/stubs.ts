/**
 * The request path: throughput, latency and server CPU of the stubs (seo read and write, mail's
 * contact list, coder's chat completion) against Prism on the same operation and bundle, and against
 * a bare Express app answering the same bodies (the floor: express.json and a route, nothing else),
 * and the cost of counting coverage (`GET /_stub/coverage`) as seo with counting on against off.
 * Every comparison is a ratio within one run on one machine.
 */
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { countingCostMicros } from '../lib/counting-cost.js';
import { npmStartNodeFlags } from '../lib/npm-start.js';
import { processCpuMicros, startNode, timeCommand } from '../lib/processes.js';
import type { Suite, Target } from '../suite.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const tsxLoader = ['--import', 'tsx'];
const durationSeconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const connections = 10;
/** Where a server answers any project id (the bare app, Prism), the one its URLs carry. */
const anyProjectId = '0b6f5c9e-3c1a-4e5b-9a7d-2f1e8c4d6a01';

/** One operation measured on every server. */
interface Operation {
  key: string;
  label: string;
  slug: 'seo' | 'mail' | 'coder';
  method: 'GET' | 'PATCH' | 'POST';
  /** path after the base path; `{id}` is the seo project's id */
  path: string;
  /** the same route in Express syntax, for the bare app */
  expressPath: string;
  body?: string;
  headers: Record<string, string>;
}

const json = { 'content-type': 'application/json' };
const operations: Operation[] = [
  { key: 'seo read', label: '`GET /seo/projects/{projectId}`', slug: 'seo', method: 'GET', path: '/projects/{id}', expressPath: '/seo/projects/:projectId', headers: { authorization: 'Bearer seo_test_key' } },
  {
    key: 'seo write',
    label: '`PATCH /seo/projects/{projectId}` `{"name": …}`',
    slug: 'seo',
    method: 'PATCH',
    path: '/projects/{id}',
    expressPath: '/seo/projects/:projectId',
    body: JSON.stringify({ name: 'Benchmark project' }),
    headers: { authorization: 'Bearer seo_test_key', ...json },
  },
  { key: 'mail list', label: '`GET /mail/v1/contacts` (Max user, the seeded list)', slug: 'mail', method: 'GET', path: '/v1/contacts', expressPath: '/mail/v1/contacts', headers: { authorization: 'Bearer msk_test_max' } },
  {
    key: 'coder chat',
    label: '`POST /coder/v1/chat/completions` (the contract\'s `plain` example, not streamed)',
    slug: 'coder',
    method: 'POST',
    path: '/v1/chat/completions',
    expressPath: '/coder/v1/chat/completions',
    body: JSON.stringify({ model: 'gateway-fast', messages: [{ role: 'system', content: 'You answer briefly.' }, { role: 'user', content: 'What does the gateway do?' }] }),
    headers: { authorization: 'Bearer coder_test_key', ...json },
  },
];

/** Starts `node <args>` in the repository until its output matches `ready`. */
const startProcess = (args: string[], ready: RegExp) => startNode(args, { cwd: root, ready, limitMs: 120_000 });

/** A server under test: where each operation's URL is. */
interface Server {
  child: ChildProcess;
  url(operation: Operation): string;
}

async function startStub(slug: string, validation: boolean, counting = true): Promise<Server & { origin: string }> {
  const switches = [...(validation ? [] : ['--no-validation']), ...(counting ? [] : ['--no-coverage'])];
  const { child, match } = await startProcess([...npmStartNodeFlags(), ...tsxLoader, 'bench/lib/serve-stub.ts', slug, ...switches], /listening (\d+)/);
  const origin = `http://127.0.0.1:${match[1]}`;
  return { child, origin, url: (op) => `${origin}/${slug}${op.path}` };
}

/**
 * The bare app as Express apps are served (`app.listen`), or (`asNpmStart`) on the server `npm start`
 * gives the stubs, with its Node flags: the second shows what the framework itself costs.
 */
async function startBare(routesFile: string, asNpmStart = false): Promise<Server> {
  const args = asNpmStart ? [...npmStartNodeFlags(), ...tsxLoader, 'bench/lib/serve-bare.ts', routesFile, '--app-prototypes'] : [...tsxLoader, 'bench/lib/serve-bare.ts', routesFile];
  const { child, match } = await startProcess(args, /listening (\d+)/);
  const origin = `http://127.0.0.1:${match[1]}`;
  return { child, url: (op) => `${origin}/${op.slug}${op.path.replace('{id}', anyProjectId)}` };
}

async function startPrism(slug: string): Promise<Server> {
  const cli = require.resolve('@stoplight/prism-cli/dist/index.js');
  const port = 4900 + Math.floor(Math.random() * 90);
  const { child } = await startProcess([cli, 'mock', `generated/${slug}/openapi.json`, '-p', String(port), '-h', '127.0.0.1'], /Prism is listening/);
  return { child, url: (op) => `http://127.0.0.1:${port}${op.path.replace('{id}', anyProjectId)}` };
}

interface Load {
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** the server process's CPU time per request, microseconds */
  cpuPerRequest?: number;
  /** the run's requests and the server's CPU time over it, µs: pooled over rounds and processes where a median moves too much */
  requests?: number;
  cpuMicros?: number;
}

async function load(server: Server, op: Operation, seconds = durationSeconds): Promise<Load> {
  const url = server.url(op);
  const before = processCpuMicros(server.child.pid!);
  const result = await autocannon({ url, method: op.method, headers: op.headers, body: op.body, connections, duration: seconds });
  const after = processCpuMicros(server.child.pid!);
  const requests = result.requests.total;
  return {
    rps: Math.round(result.requests.average),
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    ...(requests > 0 && { cpuPerRequest: Math.round((after - before) / requests), requests, cpuMicros: after - before }),
  };
}

/** Median of several rounds, field by field: one slow or fast round says little on a shared machine. */
function median(runs: Load[]): Load {
  const mid = <T>(values: T[], by: (v: T) => number) => [...values].sort((a, b) => by(a) - by(b))[Math.floor(values.length / 2)]!;
  const cpu = runs.map((r) => r.cpuPerRequest).filter((v): v is number => v !== undefined);
  return { ...mid(runs, (r) => r.rps), ...(cpu.length > 0 && { cpuPerRequest: mid(cpu, (v) => v) }) };
}

/** The bare app answers what the stub answers: its status and body, captured from the stub itself. */
async function bareRoutes(stubs: Record<string, Server[]>): Promise<unknown[]> {
  const routes = [];
  for (const op of operations) {
    const answer = await fetch(stubs[`${op.slug} on`]![0]!.url(op), { method: op.method, headers: op.headers, body: op.body });
    if (!answer.ok) throw new Error(`${op.key}: the stub answered ${answer.status} ${await answer.text()}`);
    routes.push({ method: op.method.toLowerCase(), path: op.expressPath, status: answer.status, body: await answer.json() });
  }
  return routes;
}

/** A seo stub addressed through its own first project: every stub process has its own store. */
async function withOwnProject(stub: Server & { origin: string }): Promise<Server> {
  const answer = await fetch(`${stub.origin}/seo/projects`, { headers: operations[0]!.headers });
  const id = ((await answer.json()) as { projects: Array<{ id: string }> }).projects[0]!.id;
  return { child: stub.child, url: (op) => `${stub.origin}/seo${op.path.replace('{id}', id)}` };
}

async function measure() {
  // Two processes of each seo configuration: processes of one build under one load differed by up
  // to a fifth here, which alone could swing the validation on/off ratio; their figures are pooled.
  const seo = async (validation: boolean, counting = true) => [await withOwnProject(await startStub('seo', validation, counting)), await withOwnProject(await startStub('seo', validation, counting))];
  const stubs: Record<string, Server[]> = {
    'seo on': await seo(true),
    'seo off': await seo(false),
    'seo uncounted': await seo(true, false),
    'mail on': [await startStub('mail', true)],
    'coder on': [await startStub('coder', true)],
  };

  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-bare-'));
  const routesFile = path.join(dir, 'routes.json');
  writeFileSync(routesFile, JSON.stringify(await bareRoutes(stubs)));
  const bare = await startBare(routesFile);
  const bareAsNpmStart = await startBare(routesFile, true);

  const samples: Record<string, Load[]> = {};
  const contenders = (op: Operation): Array<[string, Server]> => [
    ...stubs[`${op.slug} on`]!.map((server): [string, Server] => ['stub, validation on', server]),
    ...(op.slug === 'seo' ? stubs['seo off']!.map((server): [string, Server] => ['stub, validation off', server]) : []),
    ...(op.slug === 'seo' ? stubs['seo uncounted']!.map((server): [string, Server] => [countingOff, server]) : []),
    ['bare Express', bare],
    [bareOnStubServer, bareAsNpmStart],
  ];
  // Warm-up: JIT, validator compilation.
  for (const op of operations) for (const [, server] of contenders(op)) await load(server, op, 2);
  // Every server runs at once and the rounds alternate between them, so drift in the machine's
  // speed during the run falls on both sides of each ratio alike.
  for (let round = 0; round < rounds; round++) {
    for (const op of operations) {
      for (const [who, server] of contenders(op)) (samples[`${op.key} · ${who}`] ??= []).push(await load(server, op));
    }
  }
  for (const server of [...Object.values(stubs).flat(), bare, bareAsNpmStart]) server.child.kill();
  rmSync(dir, { recursive: true, force: true });

  const results: Record<string, Load> = {};
  for (const [label, runs] of Object.entries(samples)) results[label] = median(runs);
  // CPU per request over every round of every process of a configuration: what the counting on/off ratio reads.
  for (const [label, runs] of Object.entries(samples)) {
    const requests = runs.reduce((sum, r) => sum + (r.requests ?? 0), 0);
    if (requests > 0) pooledCpu[label] = runs.reduce((sum, r) => sum + (r.cpuMicros ?? 0), 0) / requests;
  }
  for (const slug of ['seo', 'mail', 'coder'] as const) {
    const prism = await startPrism(slug);
    const ops = operations.filter((op) => op.slug === slug);
    for (const op of ops) await load(prism, op, 2);
    for (const op of ops) results[`${op.key} · Prism`] = await load(prism, op);
    prism.child.kill();
  }
  return results;
}

const bareOnStubServer = "bare Express on npm start's server";
/** server CPU µs per request by `<operation> · <server>`, pooled over every round and process */
const pooledCpu: Record<string, number> = {};
const countingOff = 'stub, coverage counting off';
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/** What the profiles said, before and after the request-path work (issue 17): why the figures are what they are. */
const profileNotes = [
  "### Where a request's CPU goes (profiles)",
  '',
  'Steady-state CPU profiles under autocannon: `node --no-allocation-site-pretenuring --import tsx bench/lib/serve-stub.ts seo --profile=<file>` (SIGUSR2 starts it, SIGTERM writes it), read with `npx tsx bench/lib/profile-summary.ts <file> 40 <requests>` (self time by function and package, per request). The profiler adds its own cost; compare within a profile.',
  '',
  '- **Before** (about 265 µs per seo request under the profiler): after the kernel\'s `writev` (17%) and GC (11%), express-openapi-validator was the largest item (12% self, plus 5% in path-to-regexp it calls). Its route lookup compiled a path-to-regexp for *every* path of the contract on *every* request (about 110 per request on mail); each of its five middlewares waited on a settled promise; per request it built a parameter mutator, parsed the content type for a cache key, wrapped `res.json`, and parsed every declared media type again to pick the response validator. Next: ten `router.use` layers (6%), the `cors` package\'s per-request header lists, and tsx\'s `__name` wrapper on every named closure made per request (esbuild keepNames).',
  '- **After** (server-stubs/lib/contract-validation.ts, security-check.ts, middleware-chain.ts): the router\'s own match finds the operation; the library\'s validators, ajv instances and error objects are built once per operation (per request content type, as the library keys them) and run synchronously; the mutator runs only where it can change something; security handlers are called in the library\'s order and with its errors, without promises when they answer synchronously; the response validator is chosen once per (status, content type, Accept); the steps run as one middleware; CORS headers of ordinary answers are written directly. The seo read then costs about 130 µs under the profiler against 116 µs for the bare app; GC (24 µs) and `writev` (23 µs) lead, express-openapi-validator is gone from the profile but for its compiled ajv functions (about 1 µs), and our own code is about 15 µs, spread over matching, cookies, auth, the handler context and the CORS headers.',
  '- **Second pass** (the service is one middleware instead of an Express Router around one; no cookie object without a `Cookie` header; CORS headers only when the request has an `Origin`; coder counts tokens with gpt-tokenizer, whose `encode` compiles nothing per call): measured side by side with `process.cpuUsage()` over 5 s of autocannon, seo read went from about 131 to 124 µs of server CPU per request, the bare app 88–93 µs (0.71–0.75 of it). Profiled side by side (`node --cpu-prof`), the stub spends 126 µs per request and the bare app 89: `writev` is the same (23 and 25 µs), GC is not (22.5 against 12.4 µs), and the stub\'s own code is about 15 µs. A sampling heap profile that keeps collected objects (`HeapProfiler.startSampling` with `includeObjectsCollectedByMinorGC`) shows 38 kB allocated per seo read: Express\'s router about 7 kB, node\'s HTTP about 6 kB, the framework about 11 kB (the handler context and its promise 2.5 kB, operation matching 2 kB, the validator\'s request metadata 2 kB, the security check 1.6 kB, and properties added to `req`, which grow its property store).',
  '- **Third pass: the cause of the gap was garbage kept alive.** V8\'s collector trace (`node --trace-gc --trace-gc-nvp`) showed 26–40% of the young generation surviving each scavenge, in the stub and in the bare app alike, against 0.1% in a plain Node server answering the same JSON; a heap snapshot under load held two live requests, so the survivors were dead requests kept alive by other dead objects, promoted, and collected again by a mark-compact every few hundred ms. Two causes, each found by taking a plain Node server and adding one thing at a time:',
  '  - Express gives every request and response its prototype with `Object.setPrototypeOf` as they enter the app. That call alone took a plain Node server from 0.1% to 30% survival and cost it three quarters of its throughput. The stubs\' server makes its requests and responses with the app\'s prototypes already (Node\'s `IncomingMessage` and `ServerResponse` options; server-stubs/lib/http-server.ts), so Express\'s call changes nothing. The same bare app answers in about 30 µs instead of about 100 on such a server (the table\'s "on npm start\'s server" rows).',
  '  - Allocation-site pretenuring (`--trace-pretenuring`): requests that waited together on an operation\'s first validator build survived one scavenge, and V8 decided to allocate those sites\' objects (the matched operation, the handler context, the router\'s closures) directly in the old generation, where the dead ones kept young objects alive; survival then stayed at 25–30% for the life of the process, in some runs and not others. `npm start` runs the server with `--no-allocation-site-pretenuring`: with it, 7 of 7 runs of the seo stub stayed at 0% survival; without it, none of 8 did. `--optimize-for-size`, which `npm start` had used to keep RSS flat, brought the same survival back (150 µs per seo read); `--heap-growing-percent=50` keeps RSS flat instead (memory suite).',
  '- Then: the platform server hands a running service its requests directly, set up as `app.use(basePath, router)` would (`runMounted`), instead of through the app\'s layers (issuer discovery, lazy loading, a nested router of eight base paths): 28 → 22 µs per seo read side by side. Answers are written straight to Node\'s response without Express\'s ETag and charset handling: about 2 µs. This suite now runs the stub on `npm start`\'s own server (startPlatformServer with the one service, npm start\'s Node flags read from package.json) and reads server CPU from /proc/<pid>/stat.',
  '- **What is left** against the bare app on the same server: the handlers\' own work. Profiled now, a seo read costs 20 µs under the profiler: `writev` 13 µs, the collector 0.6 µs, contract validation (security, request and response checks) about 1.5 µs, the rest of the framework about 3 µs. seo read costs less than that bare app (it answers without ETag hashing); coder chat counts tokens (gpt-tokenizer, about 4 µs per completion) and builds its answer; mail list pages and validates every contact of the answer. `writev` (the kernel\'s send on loopback, 20–30 µs) is the largest single item in every profile, for every server. Prism is one run per operation and moves by up to 3x between runs on this machine, so the Prism ratios move with it.',
];

export const suite: Suite = {
  description: 'the stubs (seo, mail, coder) against Prism and a bare Express app: requests/s, p99, server CPU per request',
  async run() {
    // The stubs run as `npm start` runs them: the compiled JavaScript of .cache/js/ (bench/lib/serve-stub.ts).
    await timeCommand(process.execPath, ['scripts/launch.mjs', 'build']);
    const results = await measure();
    const counting = countingCostMicros();
    const cpuRatio = (stub: Load, floor: Load) => (stub.cpuPerRequest && floor.cpuPerRequest ? ratio(floor.cpuPerRequest, stub.cpuPerRequest) : 0);
    const targets: Target[] = [];
    for (const op of operations) {
      const on = results[`${op.key} · stub, validation on`]!;
      const bare = results[`${op.key} · bare Express`]!;
      const prism = results[`${op.key} · Prism`]!;
      const vsPrism = ratio(on.rps, prism.rps);
      const vsBareCpu = cpuRatio(on, bare);
      const vsBareRps = ratio(on.rps, bare.rps);
      targets.push(
        { name: `${op.key}: stub (validation on) / Prism, requests/s (≥ 6)`, measured: vsPrism, met: vsPrism >= 6 },
        { name: `${op.key}: stub (validation on) / bare Express, by server CPU per request (≥ 0.85)`, measured: vsBareCpu, met: vsBareCpu >= 0.85 },
        { name: `${op.key}: stub (validation on) / bare Express, requests/s (≥ 0.85)`, measured: vsBareRps, met: vsBareRps >= 0.85 },
      );
      const off = results[`${op.key} · stub, validation off`];
      if (off) {
        const onOff = cpuRatio(on, off);
        targets.push({ name: `${op.key}: stub, validation on / off, by server CPU per request (≥ 0.85)`, measured: onOff, met: onOff >= 0.85 });
      }
      const uncounted = results[`${op.key} · ${countingOff}`];
      if (uncounted) {
        // Counting costs under 3% of the stubs' throughput (issue 28): CPU per request with it off over
        // with it on, pooled over rounds and processes; and the counting step's own CPU, measured in
        // this process, over the stub's CPU per request.
        const countedCpu = ratio(pooledCpu[`${op.key} · ${countingOff}`]!, pooledCpu[`${op.key} · stub, validation on`]!);
        const share = on.cpuPerRequest ? Math.round((counting.cost / on.cpuPerRequest) * 10000) / 10000 : 1;
        targets.push(
          { name: `${op.key}: stub, coverage counting on / off, by server CPU per request pooled (≥ 0.97)`, measured: countedCpu, met: countedCpu >= 0.97 },
          { name: `${op.key}: coverage counting's own CPU (${counting.cost} µs, in process) / the stub's CPU per request (< 0.03)`, measured: share, met: share < 0.03 },
        );
      }
    }
    const markdown = [
      '## Request path (`npm run bench -- stubs`)',
      '',
      `autocannon, ${connections} connections, ${durationSeconds} s per run after a warm-up; each server in its own process; stub and bare figures are the median of ${rounds} alternating rounds (the seo stub runs in two processes per configuration, pooled: processes of one build differed by up to a fifth), Prism one run.`,
      'Operations: ' + operations.map((op) => `**${op.key}** ${op.label}`).join('; ') + '.',
      'The bare app (bench/lib/serve-bare.ts) is express + express.json + one route per operation answering the body the stub answered, with no validation, auth or CORS, served as `app.listen` serves it (the targets\' floor) and, for comparison, on the server and Node flags `npm start` gives the stubs ("on npm start\'s server"). The stubs run as `npm start` runs them (bench/lib/serve-stub.ts: startPlatformServer with one service, its Node flags from package.json), rate limits off, coverage counted (`GET /_stub/coverage`) except in the "coverage counting off" rows (`--no-coverage`, the `countCoverage: false` switch; two processes, pooled like the others); Prism serves the same bundle with its examples.',
      'Server CPU per request is the process\'s CPU time over the run (/proc/<pid>/stat, every thread) divided by its requests: it leaves out the machine\'s other load, which moves requests/s by a factor of two here.',
      '',
      '| operation · server | requests/s | p99 ms | server CPU µs/request | errors | non-2xx |',
      '|---|---:|---:|---:|---:|---:|',
      ...Object.entries(results).map(([k, v]) => `| ${k} | ${v.rps} | ${v.p99} | ${v.cpuPerRequest ?? '—'} | ${v.errors} | ${v.non2xx} |`),
      '',
      `**Coverage counting.** On against off, the seo stubs' server CPU per request pooled over every round and both processes: ${['seo read', 'seo write'].map((key) => `${key} ${Math.round(pooledCpu[`${key} · stub, validation on`] ?? 0)} µs counted, ${Math.round(pooledCpu[`${key} · ${countingOff}`] ?? 0)} µs not`).join('; ')}. ` +
        `Processes of one build under one load differ by more than the cost of counting on this shared machine, so the cost is also measured alone (bench/lib/counting-cost.ts): the counting step (its \`close\` listener and the count) on Node's own request and response objects, alternated in blocks with the same work without it, in this process: ${counting.counted} µs against ${counting.uncounted} µs, **${counting.cost} µs per request**, set against the stub's CPU per request above in the targets.`,
      '',
      ...profileNotes,
    ].join('\n');
    return { markdown, targets };
  },
};
