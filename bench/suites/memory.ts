/**
 * `npm run bench -- memory`: the resident memory of the server `npm start` runs (every service on
 * one port), at start, after a warm-up and every 5 s through a 60-second saturation run of mixed
 * operations across the services with valid credentials. Reads and idempotent writes (PATCH) only:
 * a stub that keeps what every POST creates is expected to grow, and that growth is not a leak.
 */
import autocannon from 'autocannon';
import os from 'node:os';
import { npmStartArgs, npmStartNodeFlags } from '../lib/npm-start.js';
import { median, rssMb, runNode, startNode, stop } from '../lib/processes.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import type { Suite, Target } from '../suite.js';

const durationSeconds = Number(process.env.BENCH_MEMORY_SECONDS ?? 60);
const warmUpSeconds = Number(process.env.BENCH_MEMORY_WARMUP_SECONDS ?? 10);
const sampleEverySeconds = 5;
const connections = 10;
const peakTargetMb = 300;
const flatness = 0.1;
/** V8 flags to try on the server besides `npm start`'s own (`BENCH_MEMORY_NODE_FLAGS='--max-old-space-size=256'`); none by default */
const nodeFlags = (process.env.BENCH_MEMORY_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);

const seoKey = { authorization: 'Bearer seo_test_key' };
const mailKey = { authorization: 'Bearer msk_test_max' };
const mailSession = { cookie: 'session=sess_test_max' };
const json = { 'content-type': 'application/json' };

interface MixRequest {
  label: string;
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** the operation's `x-rate-limit`: past it, 429 is its correct answer and counted apart */
  rateLimited?: boolean;
}

async function call(base: string, r: Omit<MixRequest, 'label'>): Promise<{ status: number; body: unknown }> {
  const answer = await fetch(`${base}${r.path}`, { method: r.method, headers: r.headers, body: r.body });
  const text = await answer.text();
  return { status: answer.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/**
 * The mix, with ids of seeded or set-up resources (the seeds' ids are random per start). Set-up
 * writes (one segment) happen here, before any sample.
 */
async function mixFor(base: string): Promise<MixRequest[]> {
  const projects = (await call(base, { method: 'GET', path: '/seo/projects', headers: seoKey })).body as { projects: Array<{ id: string }> };
  const projectId = projects.projects[0]!.id;
  const segmentBody = JSON.stringify({
    name: 'Benchmark segment',
    segment_type: 'dynamic',
    filter_criteria: { operator: 'AND', rules: [{ field: 'status', operator: 'equals', value: 'subscribed' }] },
  });
  const created = await call(base, { method: 'POST', path: '/mail/api/segments', headers: { ...mailSession, ...json }, body: segmentBody });
  if (created.status !== 201 && created.status !== 200) throw new Error(`could not create the benchmark's segment: ${created.status} ${JSON.stringify(created.body)}`);
  const segmentId = (created.body as { data: { id: string } }).data.id;
  const read = (label: string, path: string, headers: Record<string, string>, rateLimited = false): MixRequest => ({ label, method: 'GET', path, headers, rateLimited });
  return [
    read('seo: list projects', '/seo/projects', seoKey),
    read('seo: get a project', `/seo/projects/${projectId}`, seoKey),
    read('mail: list segments (dashboard)', '/mail/api/segments', mailSession),
    { label: 'mail: rename a segment (PATCH)', method: 'PATCH', path: `/mail/api/segments/${segmentId}`, headers: { ...mailSession, ...json }, body: JSON.stringify({ description: 'Benchmark' }) },
    read('mail: notifications', '/mail/api/notifications', mailSession),
    { label: 'mail: mark notifications read (PATCH)', method: 'PATCH', path: '/mail/api/notifications', headers: { ...mailSession, ...json }, body: JSON.stringify({ all: true }) },
    read('mail: referrals', '/mail/referrals', mailSession),
    read('mail: list contacts (API key, 120 / 60 s)', '/mail/v1/contacts', mailKey, true),
    {
      label: 'dev: grounded search (60 / 60 s)',
      method: 'POST',
      path: '/dev/v1/search',
      headers: { authorization: 'Bearer dev_test_key', ...json },
      body: JSON.stringify({ query: 'http caching headers' }),
      rateLimited: true,
    },
    read('blog: plan and usage (100 / 60 s)', '/blog/v1/plan', { authorization: 'Bearer mbk_test_business' }, true),
    read('social: posts', '/social/api/posts', { authorization: 'Bearer social_test_key' }),
    read('social: accounts', '/social/api/accounts', { authorization: 'Bearer social_test_key' }),
    read('social: stats', '/social/api/stats', { authorization: 'Bearer social_test_key' }),
    read('reach: deals (120 / 60 s)', '/reach/api/deals', { authorization: 'Bearer msr_test_key' }, true),
    read('reach: pipeline (120 / 60 s)', '/reach/api/pipeline', { authorization: 'Bearer msr_test_key' }, true),
    read('coder: sessions', '/coder/sessions/list', { authorization: 'Bearer coder_test_key' }),
    read('coder: models', '/coder/v1/models', { authorization: 'Bearer coder_test_key' }),
    read('coder: agents', '/coder/agents', { authorization: 'Bearer coder_test_key' }),
    read('coder: MCP tools', '/coder/mcp/tools', { authorization: 'Bearer coder_test_key' }),
  ];
}

interface Load {
  requests: number;
  rps: number;
  errors: number;
  timeouts: number;
  status2xx: number;
  status429: number;
  /** 4xx other than 429: a request of the mix the contract refuses */
  other4xx: number;
  status5xx: number;
}

async function load(base: string, mix: MixRequest[], seconds: number): Promise<Load> {
  const result = await autocannon({
    url: base,
    connections,
    duration: seconds,
    requests: mix.map((r) => ({ method: r.method, path: r.path, headers: r.headers, ...(r.body !== undefined && { body: r.body }) })),
  });
  const count = (status: string) => result.statusCodeStats?.[status as `${number}`]?.count ?? 0;
  return {
    requests: result.requests.total,
    rps: Math.round(result.requests.average),
    errors: result.errors,
    timeouts: result.timeouts,
    status2xx: result['2xx'],
    status429: count('429'),
    other4xx: result['4xx'] - count('429'),
    status5xx: result['5xx'],
  };
}

interface Measured {
  mix: Array<MixRequest & { status: number }>;
  atStart: number;
  afterWarmUp: number;
  samples: Array<{ second: number; mb: number }>;
  afterRun: number;
  warmUp: Load;
  run: Load;
}

async function measure(): Promise<Measured> {
  const built = await runNode(['scripts/launch.mjs', 'build'], defaultRoot);
  if (built.code !== 0) throw new Error(`npm run build failed:\n${built.output.slice(-3000)}`);
  // `npm start` after its build step: the server alone, on the system clock.
  const { child, match } = await startNode([...nodeFlags, ...npmStartArgs()], {
    cwd: defaultRoot,
    ready: /Stubs of \d+ services on http:\/\/localhost:(\d+)/,
    env: { PORT: '0' },
    unset: ['STUB_CLOCK'],
    limitMs: 60_000,
  });
  const pid = child.pid!;
  const base = `http://127.0.0.1:${match[1]}`;
  try {
    const atStart = rssMb(pid);
    const mix = await mixFor(base);
    // Each request once first: the mix must be answered as the contract says, before it is timed.
    const checked = [];
    for (const r of mix) {
      const { status } = await call(base, r);
      if (status >= 300) throw new Error(`${r.label}: ${r.method} ${r.path} answered ${status} before the run; the mix must be valid`);
      checked.push({ ...r, status });
    }
    const warmUp = await load(base, mix, warmUpSeconds);
    const afterWarmUp = rssMb(pid);
    const samples: Array<{ second: number; mb: number }> = [];
    const started = performance.now();
    const timer = setInterval(() => samples.push({ second: Math.round((performance.now() - started) / 1000), mb: rssMb(pid) }), sampleEverySeconds * 1000);
    let run: Load;
    try {
      run = await load(base, mix, durationSeconds);
    } finally {
      clearInterval(timer);
    }
    const afterRun = rssMb(pid);
    return { mix: checked, atStart, afterWarmUp, samples, afterRun, warmUp, run };
  } finally {
    await stop(child);
  }
}

interface LiveHeap {
  atStart: number;
  /** after each request of the mix, once, in order: what each service's first use keeps */
  afterFirstUse: Array<{ label: string; mb: number }>;
  afterLoad: number;
  /** largest RSS while the probe collected every 250 ms */
  rssAfterLoad: number;
}

/**
 * What is live, as opposed to what RSS holds: the same server with a probe that runs a full GC before
 * each reading (bench/lib/memory-probe.ts). Run only when a target is missed, to tell a leak (live
 * heap growing with load) from garbage the collector has not returned yet.
 */
async function liveHeap(mixSeconds: number): Promise<LiveHeap> {
  const { child, match } = await startNode([...npmStartNodeFlags(), '--expose-gc', '--import', 'tsx', '--import', './bench/lib/memory-probe.ts', 'server-stubs/server.ts'], {
    cwd: defaultRoot,
    ready: /Stubs of \d+ services on http:\/\/localhost:(\d+)/,
    env: { PORT: '0', MEMORY_PROBE_GC: '1', MEMORY_PROBE_MS: '250' },
    unset: ['STUB_CLOCK'],
    limitMs: 60_000,
  });
  const base = `http://127.0.0.1:${match[1]}`;
  let waiting: Array<(reading: { heap: number; rss: number }) => void> = [];
  child.stderr!.on('data', (d: Buffer) => {
    for (const line of String(d).split('\n')) {
      const m = /memory-probe rss=(\d+) heapTotal=\d+ heapUsed=(\d+)/.exec(line);
      if (!m) continue;
      const reading = { rss: Number(m[1]), heap: Number(m[2]) };
      const now = waiting;
      waiting = [];
      for (const resolve of now) resolve(reading);
    }
  });
  // A reading taken after the call: the probe's next line.
  const next = () => new Promise<{ heap: number; rss: number }>((resolve) => waiting.push(resolve));
  try {
    const atStart = (await next()).heap;
    const mix = await mixFor(base);
    const afterFirstUse = [];
    for (const r of mix) {
      await call(base, r);
      await next();
      afterFirstUse.push({ label: r.label, mb: (await next()).heap });
    }
    await load(base, mix, mixSeconds);
    await next();
    const after = await next();
    return { atStart, afterFirstUse, afterLoad: after.heap, rssAfterLoad: after.rss };
  } finally {
    await stop(child);
  }
}

export const suite: Suite = {
  description: `RSS of the npm start server at start, after a warm-up and every ${sampleEverySeconds} s of a ${durationSeconds} s saturation run of mixed reads and PATCHes across the services`,
  async run() {
    const loadAtStart = os.loadavg().map((l) => l.toFixed(1)).join(', ');
    const m = await measure();
    const during = m.samples.map((s) => s.mb);
    const peak = Math.max(m.atStart, m.afterWarmUp, m.afterRun, ...during);
    const last = m.afterRun;
    const change = (last - m.afterWarmUp) / m.afterWarmUp;
    const failures = m.run.errors + m.run.timeouts + m.run.status5xx + m.warmUp.errors + m.warmUp.timeouts + m.warmUp.status5xx;
    const percent = `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)}%`;
    const targets: Target[] = [
      { name: `memory: peak RSS of the npm start server, all services, MB (< ${peakTargetMb})`, measured: peak, met: peak < peakTargetMb },
      {
        name: `memory: RSS after the ${durationSeconds} s run vs after warm-up, ${m.afterWarmUp} → ${last} MB (within ±${flatness * 100}%)`,
        measured: percent,
        met: Math.abs(change) <= flatness,
      },
      { name: `memory: socket errors, timeouts and 5xx during the saturation run (0)`, measured: failures, met: failures === 0 },
    ];
    const live = targets.every((t) => t.met) ? undefined : await liveHeap(20);
    const firstUse = (live?.afterFirstUse ?? []).map((step, i, all) => ({ ...step, added: step.mb - (i === 0 ? live!.atStart : all[i - 1]!.mb) }));
    const row = (name: string, l: Load) => `| ${name} | ${l.requests} | ${l.rps} | ${l.status2xx} | ${l.status429} | ${l.other4xx} | ${l.status5xx} | ${l.errors} | ${l.timeouts} |`;
    const markdown = [
      '## Memory under load (`npm run bench -- memory`)',
      '',
      `Load average when the suite started: ${loadAtStart} (2 cores shared with other work: timings stretch with it).`,
      '',
      `\`node ${npmStartArgs().join(' ')}\` (what \`npm start\` runs after its build), every service, the system clock; its RSS`,
      `${nodeFlags.length ? `With \`${nodeFlags.join(' ')}\` (BENCH_MEMORY_NODE_FLAGS). ` : ''}(VmRSS of /proc/<pid>/status) at start, after a ${warmUpSeconds} s warm-up with the mix, every ${sampleEverySeconds} s of a ${durationSeconds} s autocannon run`,
      `(${connections} connections cycling through the mix below) and at its end. The mix is reads and idempotent writes (PATCH) with`,
      "valid credentials, so no store grows by design; each request is checked once before the run. Rate-limited operations answer 429",
      'past their window, counted apart (a correct answer, not an error).',
      '',
      '| when | RSS, MB |',
      '|---|---:|',
      `| at start (listening) | ${m.atStart} |`,
      `| after warm-up | ${m.afterWarmUp} |`,
      ...m.samples.map((s) => `| run, ${s.second} s | ${s.mb} |`),
      `| after the run | ${m.afterRun} |`,
      '',
      `Peak ${peak} MB (target < ${peakTargetMb}); after the run ${last} MB vs ${m.afterWarmUp} MB after warm-up: ${percent} (target within ±${flatness * 100}%);`,
      `median during the run ${during.length ? median(during) : '–'} MB.`,
      '',
      '| load | requests | req/s | 2xx | 429 | other 4xx | 5xx | socket errors | timeouts |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      row(`warm-up, ${warmUpSeconds} s`, m.warmUp),
      row(`saturation, ${durationSeconds} s`, m.run),
      '',
      'The mix (status of the check before the run):',
      '',
      ...m.mix.map((r) => `- ${r.label}: \`${r.method} ${r.path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '{id}')}\` (${r.status})`),
      ...(live
        ? [
            '',
            '### Why: live heap against RSS',
            '',
            'A second server with `--expose-gc` and `bench/lib/memory-probe.ts`, which runs a full GC before each reading: the live V8 heap',
            `at start ${live.atStart} MB; after each request of the mix once, in order, it grew most at ${firstUse
              .filter((s) => s.added >= 5)
              .map((s) => `${s.label} (+${s.added} MB)`)
              .join(', ') || 'no single request (none added 5 MB)'}, to ${live.afterFirstUse.at(-1)?.mb ?? '–'} MB; after 20 s of the mix, ${live.afterLoad} MB`,
            `(RSS then ${live.rssAfterLoad} MB, collected every 250 ms). A live heap that stays put under load while RSS climbs is garbage V8 has not`,
            'collected yet, not a leak: V8 lets the old generation grow to a multiple of the live heap before a full collection, so the',
            'sawtooth scales with what is live. `BENCH_MEMORY_NODE_FLAGS` reruns the suite with V8 flags on the server to compare.',
          ]
        : []),
    ].join('\n');
    return { markdown, targets };
  },
};
