/**
 * `npm run bench -- scale`: how the pipeline and a stub grow with the contract, from seo to mail to a
 * generated Stripe-size contract (3,000 operations over 600 paths, bench/lib/large-contract.ts).
 * Each contract is built alone in a copy of the toolkit (this repository's service list and
 * generated code stay untouched), then served by the stub framework alone (bench/lib/serve-contract.ts:
 * every operation answers its example) and timed from process start to its first answer and to the
 * first answer of an operation near the end of the document. Prism is started on the same bundles
 * with a time limit.
 */
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { OpenAPI3 } from 'openapi-typescript';
import { copyService, copyToolkit, type ToolkitCopy } from '../lib/toolkit-copy.js';
import { writeLargeContract } from '../lib/large-contract.js';
import { median, runNode, startNode, stop } from '../lib/processes.js';
import { summarizeProfile } from '../lib/profile-top.js';
import { exampleRequest } from '../../scripts/lib/example-request.js';
import { placeholderFor } from '../../scripts/lib/credentials.js';
import { listOperations } from '../../server-stubs/lib/openapi/document.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import type { Suite, Target } from '../suite.js';

const require = createRequire(import.meta.url);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const prismLimitMs = Number(process.env.BENCH_PRISM_LIMIT_MS ?? 60_000);
const targetMs = 10_000;
const largeSlug = 'large';

interface BuildFigures {
  ms: number;
  /** step -> ms, from the build's own step lines */
  steps: Record<string, number>;
}

interface ServeFigures {
  listening: number;
  first: number;
  firstLabel: string;
  firstStatus: number;
  last: number;
  lastLabel: string;
  lastStatus: number;
}

interface Row {
  slug: string;
  operations: number;
  paths: number;
  bundleBytes: number;
  build: BuildFigures;
  serve: ServeFigures;
  prism: number | undefined;
}

/** `lint     seo        812 ms  clean` -> steps.lint += 812 (every unit of the copy is the contract's). */
function stepsOf(output: string): Record<string, number> {
  const steps: Record<string, number> = {};
  for (const line of output.split('\n')) {
    const match = /^([a-z]+)\s+\S+(?: schemas)?\s+(\d+) ms/.exec(line);
    if (match) steps[match[1]!] = (steps[match[1]!] ?? 0) + Number(match[2]);
  }
  return steps;
}

async function buildCopy(copy: ToolkitCopy): Promise<BuildFigures> {
  const { code, output, ms } = await runNode(['scripts/launch.mjs', 'build'], copy.root);
  if (code !== 0) throw new Error(`build failed in ${copy.root}:\n${output.slice(-3000)}`);
  return { ms: Math.round(ms), steps: stepsOf(output) };
}

/** A valid request for an operation: its examples, any credential (the benchmark's stub accepts any). */
function requestFor(document: OpenAPI3, operation: ReturnType<typeof listOperations>[number]) {
  return exampleRequest(document, operation, placeholderFor);
}

/** The first and the last GET of the document: the validator is built on first use, for the whole contract. */
function probes(document: OpenAPI3) {
  const reads = listOperations(document).filter((o) => {
    const ok = o.op.responses?.['200'];
    return o.method === 'get' && !(ok && 'content' in ok && ok.content?.['text/event-stream']);
  });
  return { first: reads[0]!, last: reads[reads.length - 1]! };
}

async function serveOnce(bundle: string, document: OpenAPI3, profileDir?: string): Promise<ServeFigures> {
  const { first, last } = probes(document);
  const args = [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), '--import', 'tsx', 'bench/lib/serve-contract.ts', bundle];
  const { child, match, ms: listening, spawnedAt } = await startNode(args, { cwd: defaultRoot, ready: /listening (\d+)/, limitMs: 120_000 });
  const base = `http://127.0.0.1:${match[1]}${new URL(document.servers![0]!.url).pathname}`;
  const ask = async (operation: typeof first) => {
    const { url, init } = requestFor(document, operation);
    const answer = await fetch(`${base}${url}`, init);
    await answer.arrayBuffer();
    return { status: answer.status, ms: Math.round(performance.now() - spawnedAt) };
  };
  try {
    const a = await ask(first);
    const b = await ask(last);
    return { listening: Math.round(listening), first: a.ms, firstLabel: first.label, firstStatus: a.status, last: b.ms, lastLabel: last.label, lastStatus: b.status };
  } finally {
    await stop(child);
  }
}

async function serve(bundle: string, document: OpenAPI3): Promise<ServeFigures> {
  const runs: ServeFigures[] = [];
  for (let i = 0; i < rounds; i++) runs.push(await serveOnce(bundle, document));
  return { ...runs[0]!, listening: median(runs.map((r) => r.listening)), first: median(runs.map((r) => r.first)), last: median(runs.map((r) => r.last)) };
}

/** Prism's start on the bundle, or undefined when it is not listening within the limit. */
async function prismStart(bundle: string): Promise<number | undefined> {
  const cli = require.resolve('@stoplight/prism-cli/dist/index.js');
  const port = 4900 + Math.floor(Math.random() * 90);
  try {
    const { child, ms } = await startNode([cli, 'mock', bundle, '-p', String(port), '-h', '127.0.0.1'], { cwd: defaultRoot, ready: /Prism is listening/, limitMs: prismLimitMs });
    await stop(child);
    return Math.round(ms);
  } catch {
    return undefined;
  }
}

async function measure(slug: string, fill: (copy: ToolkitCopy) => void): Promise<{ row: Row; bundle: string; copy: ToolkitCopy }> {
  const copy = copyToolkit(`bench-scale-${slug}-`);
  fill(copy);
  const build = await buildCopy(copy);
  const bundle = path.join(copy.root, 'generated', slug, 'openapi.json');
  const document = JSON.parse(readFileSync(bundle, 'utf8')) as OpenAPI3;
  const operations = listOperations(document).length;
  const servedFigures = await serve(bundle, document);
  const prism = await prismStart(bundle);
  return { row: { slug, operations, paths: Object.keys(document.paths ?? {}).length, bundleBytes: statSync(bundle).size, build, serve: servedFigures, prism }, bundle, copy };
}

const kb = (bytes: number) => `${Math.round(bytes / 1024).toLocaleString('en')} kB`;
const stepsText = (steps: Record<string, number>) =>
  Object.entries(steps)
    .filter(([, ms]) => ms > 0)
    .map(([step, ms]) => `${step} ${ms}`)
    .join(', ');

export const suite: Suite = {
  description: 'build and start time from seo to mail to a generated 3,000-operation contract, and Prism on the same bundles',
  async run() {
    const loadAtStart = os.loadavg().map((l) => l.toFixed(1)).join(', ');
    const rows: Row[] = [];
    const copies: ToolkitCopy[] = [];
    let profile = '';
    try {
      for (const slug of ['seo', 'mail']) {
        const { row, copy } = await measure(slug, (c) => copyService(c, slug));
        rows.push(row);
        copies.push(copy);
      }
      const large = await measure(largeSlug, (c) => writeLargeContract(c.root, { slug: largeSlug }));
      rows.push(large.row);
      copies.push(large.copy);
      const total = large.row.build.ms + large.row.serve.first;
      if (total >= targetMs) {
        // Where the first answer's time goes, to say what to fix.
        const dir = path.join(large.copy.root, '.profile');
        await serveOnce(large.bundle, JSON.parse(readFileSync(large.bundle, 'utf8')) as OpenAPI3, dir);
        profile = summarizeProfile(dir, 12);
      }
    } finally {
      for (const copy of copies) copy.remove();
    }
    const large = rows.find((r) => r.slug === largeSlug)!;
    const total = large.build.ms + large.serve.first;
    const targets: Target[] = [
      {
        name: `scale: ${large.operations.toLocaleString('en')}-operation contract built and served, build ${large.build.ms} + start to first answer ${large.serve.first}, ms (< ${targetMs})`,
        measured: total,
        met: total < targetMs,
      },
    ];
    const markdown = [
      '## Scale with the contract (`npm run bench -- scale`)',
      '',
      `Load average when the suite started: ${loadAtStart} (2 cores shared with other work: timings stretch with it).`,
      '',
      'Each contract built alone in a copy of the toolkit (`node scripts/launch.mjs build`, as `npm run build`, wall time, the steps from its own log lines),',
      'then served by the stub framework alone (`bench/lib/serve-contract.ts`: every operation answers its example, any credential',
      `passes), timed from process start; median of ${rounds} starts. "First answer" is the document's first GET, "near the end" its last`,
      `GET: the contract's validators are built on the first request. Prism: \`prism mock\` on the same bundle, limited to ${prismLimitMs / 1000} s.`,
      `The large contract is generated by \`bench/lib/large-contract.ts\` (30 tags × 10 resources, a collection and an item path`,
      'of five methods each; enums, nested objects, arrays, `$ref`s across files, examples, the house error responses).',
      '',
      '| contract | operations | paths | bundle | build, ms | build steps, ms | listening, ms | first answer, ms | near the end, ms | Prism listening, ms |',
      '|---|---:|---:|---:|---:|---|---:|---:|---:|---:|',
      ...rows.map(
        (r) =>
          `| ${r.slug} | ${r.operations} | ${r.paths} | ${kb(r.bundleBytes)} | ${r.build.ms} | ${stepsText(r.build.steps)} | ${r.serve.listening} | ${r.serve.first} (${r.serve.firstStatus}) | ${r.serve.last} (${r.serve.lastStatus}) | ${r.prism ?? `not listening in ${prismLimitMs / 1000} s`} |`,
      ),
      '',
      `Probes: ${rows.map((r) => `${r.slug} \`${r.serve.firstLabel}\` then \`${r.serve.lastLabel}\``).join('; ')}.`,
      '',
      `Target: the ${large.operations.toLocaleString('en')}-operation contract through the pipeline and answering its first request in under ${targetMs / 1000} s:`,
      `build ${large.build.ms} ms + start to first answer ${large.serve.first} ms = ${total} ms, ${total < targetMs ? 'met' : '**not met**'}.`,
      ...(profile ? ['', 'Where the first answer of the large contract spends its time (`node --cpu-prof`, self time):', '', '```', profile, '```'] : []),
    ].join('\n');
    return { markdown, targets };
  },
};
