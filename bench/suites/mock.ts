/**
 * `npm run bench -- mock`: `npm run mock` (every service's Prism behind one port), after its build,
 * from spawning until every service has answered a valid request 2xx, and the resident memory of its processes
 * (the process and any it started) then and after 200 requests a service. Issue 26's targets: ready
 * in under 5 s, under 500 MB in all. Before Prism ran in-process, each service had a `prism mock`
 * process of its own (about 155 MB each, 8 of them).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { median, processTree, root, rssMb, startNode, stop, timeCommand } from '../lib/processes.js';
import type { Suite, Target } from '../suite.js';
import { probes } from './start.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const requestsPerService = 200;
const readyTargetMs = 5_000;
const memoryTargetMb = 500;

/** The start suite's probes of the services with an OpenAPI document (chain-rpc has JSON Schemas alone: no mock). */
const mocked = probes.filter((probe) => existsSync(path.join(root, 'generated', probe.slug, 'openapi.json')));

const treeRssMb = (pid: number) => processTree(pid).reduce((sum, id) => sum + rssMb(id), 0);

/** Polls each probe until it answers 2xx (a mock still starting answers nothing or 503). */
async function everyServiceAnswers(origin: string, limitMs: number): Promise<void> {
  const end = performance.now() + limitMs;
  for (const probe of mocked) {
    for (;;) {
      const status = await fetch(`${origin}${probe.path}`, probe.init).then(async (answer) => (await answer.arrayBuffer(), answer.status), () => 0);
      if (status >= 200 && status < 300) break;
      if (status >= 400 && status !== 503) throw new Error(`${probe.slug}: ${probe.path} answered ${status}`);
      if (performance.now() > end) throw new Error(`${probe.slug}: no 2xx in ${limitMs} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

interface Round {
  readyMs: number;
  processes: number;
  rssReadyMb: number;
  rssAfterMb: number;
}

async function measure(): Promise<Round> {
  const { child, match, spawnedAt } = await startNode(['scripts/launch.mjs', 'mock'], { cwd: root, ready: /on http:\/\/localhost:(\d+)/, env: { PORT: '0' } });
  try {
    const origin = `http://127.0.0.1:${match[1]}`;
    await everyServiceAnswers(origin, 60_000);
    const readyMs = Math.round(performance.now() - spawnedAt);
    const processes = processTree(child.pid!).length;
    const rssReadyMb = treeRssMb(child.pid!);
    for (const probe of mocked) {
      for (let i = 0; i < requestsPerService; i++) await (await fetch(`${origin}${probe.path}`, probe.init)).arrayBuffer();
    }
    return { readyMs, processes, rssReadyMb, rssAfterMb: treeRssMb(child.pid!) };
  } finally {
    await stop(child);
  }
}

export const suite: Suite = {
  description: 'npm run mock: spawn to every service answering, and the resident memory of its processes',
  async run() {
    await timeCommand(process.execPath, ['scripts/launch.mjs', 'build']);
    const results: Round[] = [];
    for (let i = 0; i < rounds; i++) results.push(await measure());
    const readyMs = median(results.map((r) => r.readyMs));
    const peakMb = Math.max(...results.map((r) => Math.max(r.rssReadyMb, r.rssAfterMb)));
    const targets: Target[] = [
      { name: `npm run mock: spawn to every service answering 2xx, ms (< ${readyTargetMs})`, measured: readyMs, met: readyMs < readyTargetMs },
      { name: `npm run mock: resident memory of its processes, most seen, MB (< ${memoryTargetMb})`, measured: peakMb, met: peakMb < memoryTargetMb },
    ];
    const markdown = [
      '## The mock (`npm run bench -- mock`)',
      '',
      `\`npm run mock\` after its build (\`node scripts/launch.mjs mock\`: the compiled mirror, PORT=0) from spawning until each of the ${mocked.length} services has answered a valid request 2xx (the stubs' probes of the start suite, polled every 10 ms), then ${requestsPerService} requests a service one after another. Memory: the resident set of the process and of every process it started, summed.`,
      '',
      '| round | ready, ms | processes | RSS when ready, MB | RSS after the requests, MB |',
      '|---|---|---|---|---|',
      ...results.map((r, i) => `| ${i + 1} | ${r.readyMs} | ${r.processes} | ${r.rssReadyMb} | ${r.rssAfterMb} |`),
      '',
      ...targets.map((t) => `- ${t.name}: ${t.measured} (${t.met ? 'met' : 'not met'})`),
    ].join('\n');
    return { markdown, targets };
  },
};
