/**
 * `npm run bench -- dev`: save-to-serving time of `npm run dev` for three edits, each saved,
 * timed until the service's new instance is serving, checked through HTTP, and reverted:
 * a one-line seo contract edit (the project name's minLength), a one-line mail contract edit (the
 * list limit's maximum, a shared parameter of many operations) and a seo handler edit.
 * The dev server runs in this process, stubs only (the mock's Prism restarts after the stubs serve).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startDevServer, type DevServer } from '../../scripts/dev.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import type { Suite } from '../suite.js';

interface DevLoopRow {
  edit: string;
  target: number;
  /** the first save after the dev server started: the build's tools are loaded on first use */
  first: number;
  /** the saves after it */
  runs: number[];
}

interface Edit {
  name: string;
  slug: string;
  file: string;
  change: (text: string) => string;
  /** a request that shows the edit is served: true once it is */
  served: (base: string, edited: boolean) => Promise<boolean>;
  target: number;
}

const seoKey = { Authorization: 'Bearer seo_test_key', 'Content-Type': 'application/json' };
const edits: Edit[] = [
  {
    name: 'seo contract, one line (CreateProjectRequest name minLength 1 → 2)',
    slug: 'seo',
    file: 'openapi/seo/components/schemas/CreateProjectRequest.yaml',
    change: (text) => text.replace('    minLength: 1\n', '    minLength: 2\n'),
    served: async (base, edited) => {
      const res = await fetch(`${base}/seo/projects`, { method: 'POST', headers: seoKey, body: JSON.stringify({ name: 'a' }) });
      return (res.status === 400) === edited;
    },
    target: 1000,
  },
  {
    name: 'mail contract, one line (ResourceListLimit maximum 100 → 99)',
    slug: 'mail',
    file: 'openapi/mail/components/parameters/ResourceListLimit.yaml',
    change: (text) => text.replace('maximum: 100', 'maximum: 99'),
    served: async (base, edited) => {
      const res = await fetch(`${base}/mail/v1/contacts?limit=100`, { headers: { Authorization: 'Bearer msk_test_max' } });
      return (res.status === 400) === edited;
    },
    target: 3000,
  },
  {
    name: 'seo handler (server-stubs/seo/handlers/projects.ts)',
    slug: 'seo',
    file: 'server-stubs/seo/handlers/projects.ts',
    change: (text) => `${text}// edited by the dev-loop benchmark\n`,
    served: async (base) => (await fetch(`${base}/seo/projects`, { headers: seoKey })).status === 200,
    target: 1000,
  },
];

/** Saves, waits until the service's instance is replaced, returns the milliseconds. */
async function timeSave(dev: DevServer, edit: Edit, contents: string): Promise<number> {
  const before = dev.platform.instances.find((i) => i.slug === edit.slug)?.instance;
  const started = performance.now();
  writeFileSync(path.join(defaultRoot, edit.file), contents);
  for (const end = started + 60_000; performance.now() < end; ) {
    const now = dev.platform.instances.find((i) => i.slug === edit.slug)?.instance;
    if (now && now !== before) return Math.round(performance.now() - started);
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`${edit.file}: not reloaded in 60 s`);
}

async function measure(rounds: number): Promise<DevLoopRow[]> {
  const dev = await startDevServer({ port: 0, host: '127.0.0.1', mock: false, log: process.env.BENCH_VERBOSE ? (line) => console.log(line) : () => {} });
  const base = `http://127.0.0.1:${dev.platform.port}`;
  const rows: DevLoopRow[] = [];
  try {
    for (const edit of edits) {
      const file = path.join(defaultRoot, edit.file);
      const original = readFileSync(file, 'utf8');
      const edited = edit.change(original);
      if (edited === original) throw new Error(`${edit.file}: the benchmark's edit no longer applies`);
      const runs: number[] = [];
      try {
        for (let round = 0; round <= rounds; round++) {
          runs.push(await timeSave(dev, edit, edited));
          if (!(await edit.served(base, true))) throw new Error(`${edit.name}: reloaded, but the edit is not served`);
          await timeSave(dev, edit, original);
          await dev.settled();
          if (!(await edit.served(base, false))) throw new Error(`${edit.name}: reverted, but the original is not served`);
        }
      } finally {
        writeFileSync(file, original);
        await dev.settled();
      }
      rows.push({ edit: edit.name, target: edit.target, first: runs[0]!, runs: runs.slice(1) });
    }
  } finally {
    await dev.close();
  }
  return rows;
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;

export const suite: Suite = {
  description: 'npm run dev: save-to-serving time of a seo contract edit, a mail contract edit and a seo handler edit',
  async run() {
    const rows = await measure(Number(process.env.BENCH_ROUNDS ?? 3));
    const targets = rows.map((r) => ({ name: `dev loop: ${r.edit}, ms (< ${r.target})`, measured: median(r.runs), met: median(r.runs) < r.target }));
    const markdown = [
      '## Dev loop: save to serving (`npm run bench -- dev`)',
      '',
      "From the file written to the service's new instance serving, each edit checked through HTTP after it is served and after it",
      'is reverted. The first save after `npm run dev` starts loads the build tools; the target is on the median of the saves after it.',
      '',
      '| edit | first save, ms | next saves, ms | median, ms | target, ms | met |',
      '|---|---:|---|---:|---:|---|',
      ...rows.map((r) => `| ${r.edit} | ${r.first} | ${r.runs.join(', ')} | ${median(r.runs)} | < ${r.target} | ${median(r.runs) < r.target ? 'yes' : '**no**'} |`),
    ].join('\n');
    return { markdown, targets };
  },
};
