/**
 * Cold start: for each service, a new `npm start` server process (the compiled JavaScript of
 * .cache/js/, after a build) until that service has answered its first request, 2xx, with a seeded
 * credential. That first request includes loading the service's contract and building its
 * validators, which happen on first use. The same from the TypeScript sources through tsx, for comparison.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { npmStartArgs } from '../lib/npm-start.js';
import { median, root, timeCommand } from '../lib/processes.js';
import type { Suite, Target } from '../suite.js';

interface Probe {
  slug: string;
  path: string;
  init: RequestInit;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const json = { 'Content-Type': 'application/json' };
export const probes: Probe[] = [
  { slug: 'seo', path: '/seo/projects', init: { headers: bearer('seo_test_key') } },
  { slug: 'mail', path: '/mail/v1/contacts', init: { headers: bearer('msk_test_max') } },
  { slug: 'coder', path: '/coder/models', init: { headers: bearer('coder_test_key') } },
  { slug: 'dev', path: '/dev/v1/search', init: { method: 'POST', headers: { ...bearer('dev_test_key'), ...json }, body: JSON.stringify({ query: 'How do ETags make HTTP caching cheaper?' }) } },
  { slug: 'blog', path: '/blog/v1/plan', init: { headers: bearer('mbk_test_business') } },
  { slug: 'reach', path: '/reach/api/deals', init: { headers: bearer('msr_test_key') } },
  { slug: 'social', path: '/social/api/accounts', init: { headers: bearer('social_test_key') } },
  { slug: 'chain-rpc', path: '/chain-rpc', init: { method: 'POST', headers: json, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'chain_getChainInfo' }) } },
];

let nextPort = 4700 + Math.floor(Math.random() * 200);

/** ms from spawning the server until `probe` answers 2xx (polled every 10 ms). */
async function firstAnswer(command: string[], probe: Probe): Promise<number> {
  const port = nextPort++;
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, command, { cwd: root, stdio: 'ignore', env: { ...process.env, PORT: String(port), STUB_CLOCK: '' } });
  try {
    for (const end = started + 60_000; performance.now() < end; ) {
      try {
        const answer = await fetch(`http://127.0.0.1:${port}${probe.path}`, probe.init);
        await answer.arrayBuffer();
        if (answer.ok) return Math.round(performance.now() - started);
        throw new Error(`${probe.slug}: ${probe.path} answered ${answer.status}`);
      } catch (error) {
        if (!(error instanceof TypeError)) throw error; // not listening yet
        if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    throw new Error(`${probe.slug}: no answer in 60 s`);
  } finally {
    child.kill('SIGKILL');
  }
}

export const suite: Suite = {
  description: 'cold start: process start to each service\'s first answer, compiled JavaScript (npm start) and tsx',
  async run() {
    await timeCommand(process.execPath, ['scripts/launch.mjs', 'build']);
    const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
    const rows: Array<{ slug: string; compiled: number[]; tsx: number[] }> = [];
    for (const probe of probes) {
      const row = { slug: probe.slug, compiled: [] as number[], tsx: [] as number[] };
      for (let i = 0; i < rounds; i++) {
        row.compiled.push(await firstAnswer(npmStartArgs(), probe));
        row.tsx.push(await firstAnswer(['--import', 'tsx', 'server-stubs/server.ts'], probe));
      }
      rows.push(row);
    }
    const worst = rows.reduce((a, b) => (median(b.compiled) > median(a.compiled) ? b : a));
    const targets: Target[] = rows.map((r) => ({ name: `${r.slug}: first answer from process start, npm start, ms (< 1000)`, measured: median(r.compiled), met: median(r.compiled) < 1000 }));
    const markdown = [
      '## Cold start (`npm run bench -- start`)',
      '',
      `A new server process per measurement, polled every 10 ms until the service answers a valid request 2xx; median of ${rounds}.`,
      `"npm start" is the compiled JavaScript (\`node ${npmStartArgs().join(' ')}\`, built by \`npm run build\`); "tsx" the sources.`,
      '',
      '| service | probe | npm start, ms (runs) | median | tsx, ms (runs) | median |',
      '|---|---|---|---:|---|---:|',
      ...rows.map((r) => `| ${r.slug} | \`${probes.find((p) => p.slug === r.slug)!.path}\` | ${r.compiled.join(', ')} | ${median(r.compiled)} | ${r.tsx.join(', ')} | ${median(r.tsx)} |`),
      '',
      `Slowest: ${worst.slug}, ${median(worst.compiled)} ms.`,
    ].join('\n');
    return { markdown, targets };
  },
};
