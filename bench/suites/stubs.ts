/**
 * The request path: throughput, latency and server CPU of the seo stub with and without contract
 * validation, and of Prism on the same operations and bundle. Every comparison is a ratio within
 * one run on one machine.
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Suite, Target } from '../suite.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const tsxLoader = ['--import', 'tsx'];
const durationSeconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = 10;
const auth = { authorization: 'Bearer seo_test_key', 'content-type': 'application/json' };

function startProcess(args: string[], ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      const match = ready.exec(out);
      if (match) resolve({ child, match, ms: performance.now() - started });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

async function startSeo(validation: boolean) {
  const { child, match } = await startProcess([...tsxLoader, 'bench/lib/serve-seo.ts', ...(validation ? [] : ['--no-validation'])], /listening (\d+)/);
  const base = `http://127.0.0.1:${match[1]}/seo`;
  const projects = (await (await fetch(`${base}/projects`, { headers: auth })).json()) as { projects: Array<{ id: string }> };
  return { child, base, projectId: projects.projects[0]!.id };
}

async function startPrism() {
  const cli = require.resolve('@stoplight/prism-cli/dist/index.js');
  const port = 4900 + Math.floor(Math.random() * 90);
  const { child } = await startProcess([cli, 'mock', 'generated/seo/openapi.json', '-p', String(port), '-h', '127.0.0.1'], /Prism is listening/);
  return { child, base: `http://127.0.0.1:${port}`, projectId: '0b6f5c9e-3c1a-4e5b-9a7d-2f1e8c4d6a01' };
}

interface Load {
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** server CPU time per request, microseconds (only where the server reports it) */
  cpuPerRequest?: number;
}

async function serverCpu(url: string): Promise<number | undefined> {
  const origin = new URL(url).origin;
  try {
    const answer = await fetch(`${origin}/__bench/cpu`);
    return answer.ok ? ((await answer.json()) as { micros: number }).micros : undefined;
  } catch {
    return undefined;
  }
}

async function load(url: string, method: 'GET' | 'PATCH', body?: string): Promise<Load> {
  const before = await serverCpu(url);
  const result = await autocannon({ url, method, headers: auth, body, connections, duration: durationSeconds });
  const after = await serverCpu(url);
  const requests = result.requests.total;
  return {
    rps: Math.round(result.requests.average),
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    ...(before !== undefined && after !== undefined && requests > 0 && { cpuPerRequest: Math.round((after - before) / requests) }),
  };
}

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

async function measure() {
  const results: Record<string, Load> = {};
  const read = (base: string, id: string) => `${base}/projects/${id}`;
  const patchBody = JSON.stringify({ name: 'Benchmark project' });

  /** Median of several rounds, field by field: one slow or fast round says little on a shared machine. */
  function median(runs: Load[]): Load {
    const mid = <T>(values: T[], by: (v: T) => number) => [...values].sort((a, b) => by(a) - by(b))[Math.floor(values.length / 2)]!;
    const cpu = runs.map((r) => r.cpuPerRequest).filter((v): v is number => v !== undefined);
    return { ...mid(runs, (r) => r.rps), ...(cpu.length > 0 && { cpuPerRequest: mid(cpu, (v) => v) }) };
  }

  // Both stubs run at once and the rounds alternate between them, so drift in the machine's speed
  // during the run falls on both sides of the ratio alike.
  const stubs = { on: await startSeo(true), off: await startSeo(false) };
  const samples: Record<string, Load[]> = {};
  for (const seo of Object.values(stubs)) await load(read(seo.base, seo.projectId), 'GET'); // warm-up: JIT, validator compilation
  for (let round = 0; round < rounds; round++) {
    for (const [kind, seo] of Object.entries(stubs)) {
      const label = `stub, validation ${kind}`;
      (samples[`${label} · read`] ??= []).push(await load(read(seo.base, seo.projectId), 'GET'));
      (samples[`${label} · write`] ??= []).push(await load(read(seo.base, seo.projectId), 'PATCH', patchBody));
    }
  }
  for (const seo of Object.values(stubs)) seo.child.kill();
  for (const [label, runs] of Object.entries(samples)) results[label] = median(runs);
  const prism = await startPrism();
  await load(read(prism.base, prism.projectId), 'GET');
  results['Prism · read'] = await load(read(prism.base, prism.projectId), 'GET');
  results['Prism · write'] = await load(read(prism.base, prism.projectId), 'PATCH', patchBody);
  prism.child.kill();
  return results;
}

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

export const suite: Suite = {
  description: 'the seo stub with and without validation against Prism: requests/s, p99, server CPU per request',
  async run() {
    const results = await measure();
    const on = results['stub, validation on · read']!;
    const off = results['stub, validation off · read']!;
    const onW = results['stub, validation on · write']!;
    const offW = results['stub, validation off · write']!;
    const pr = results['Prism · read']!;
    const prW = results['Prism · write']!;
    const cpuRatio = (a: Load, b: Load) => (a.cpuPerRequest && b.cpuPerRequest ? ratio(b.cpuPerRequest, a.cpuPerRequest) : 0);
    const targets: Target[] = [
      { name: 'seo stub, validation on / off, read, by server CPU per request (≥ 0.85)', measured: cpuRatio(on, off), met: cpuRatio(on, off) >= 0.85 },
      { name: 'seo stub, validation on / off, write, by server CPU per request (≥ 0.85)', measured: cpuRatio(onW, offW), met: cpuRatio(onW, offW) >= 0.85 },
      { name: 'seo stub (validation on) / Prism, read, requests/s (≥ 6)', measured: ratio(on.rps, pr.rps), met: ratio(on.rps, pr.rps) >= 6 },
      { name: 'seo stub (validation on) / Prism, write, requests/s (≥ 6)', measured: ratio(onW.rps, prW.rps), met: ratio(onW.rps, prW.rps) >= 6 },
    ];
    const markdown = [
      '## Request path (`npm run bench -- stubs`)',
      '',
      `autocannon, ${connections} connections, ${durationSeconds} s per run after a warm-up; each server in its own process; stub figures are the median of ${rounds} alternating rounds.`,
      'Read: `GET /seo/projects/{projectId}`. Write: `PATCH /seo/projects/{projectId}` with `{"name": …}`. Rate limits are off in the',
      'benchmark stubs (they would answer 429 after 30 writes); Prism serves the same bundle with its examples.',
      '',
      '| run | requests/s | p99 ms | server CPU µs/request | errors | non-2xx |',
      '|---|---:|---:|---:|---:|---:|',
      ...Object.entries(results).map(([k, v]) => `| ${k} | ${v.rps} | ${v.p99} | ${v.cpuPerRequest ?? '—'} | ${v.errors} | ${v.non2xx} |`),
    ].join('\n');
    return { markdown, targets };
  },
};
