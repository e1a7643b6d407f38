/**
 * `npm run bench -- import`: bringing in a large document a team did not write, as
 * `npm run add-service` does it (copy, lint in a staging copy, register, build everything), then the
 * type check of what it generated. Shapes of large vendor document, made by the scale
 * benchmark's generator (bench/lib/large-contract.ts) and Redocly itself, in a copy of the toolkit:
 * - one file of 300 operations with every `$ref` inlined (`redocly bundle --dereferenced`, as
 *   vendors publish their "deref" documents): several megabytes in one JSON file;
 * - a folder of about 2,900 files with relative `$ref`s between them (one per path item, schema,
 *   parameter and response), whose root add-service finds by itself: 650 operations, the size of
 *   issue 25's corpus, and, as a stress case held to no target, 5,400.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeLargeContract } from '../lib/large-contract.js';
import { runNode } from '../lib/processes.js';
import { copyToolkit } from '../lib/toolkit-copy.js';
import { listFiles } from '../../scripts/lib/project.js';
import type { Suite, Target } from '../suite.js';

const limitMs = 30_000;
const typecheckLimitMs = 15_000;

interface Case {
  name: string;
  /** reported, held to no target */
  stress?: boolean;
  /** writes the document into `dir` and answers what `--from` names */
  make(dir: string): { from: string; files: number; bytes: number; operations: number };
}

const redocly = (root: string) => path.join(root, 'node_modules/@redocly/cli/bin/cli.js');

const cases: Case[] = [
  {
    name: 'one file, 300 operations, references inlined',
    make(dir) {
      const made = writeLargeContract(dir, { slug: 'vendor', tags: 3, resourcesPerTag: 10 });
      const file = path.join(dir, 'vendor.deref.json');
      execFileSync(process.execPath, [redocly(dir), 'bundle', 'openapi/vendor/openapi.yaml', '--dereferenced', '-o', file], { cwd: dir, stdio: 'ignore' });
      return { from: file, files: 1, bytes: statSync(file).size, operations: made.operations };
    },
  },
  {
    // The size issue 25's corpus brought: its largest folder had about 2,900 files and no document
    // more than 659 operations; one schema a file, as split vendor documents keep them.
    name: 'a folder of about 2,900 files, 650 operations',
    make(dir) {
      const made = writeLargeContract(dir, { slug: 'vendor', tags: 13, resourcesPerTag: 5, partsPerResource: 39 });
      const folder = path.join(dir, 'openapi/vendor');
      const files = listFiles(folder);
      return { from: folder, files: files.length, bytes: files.reduce((sum, f) => sum + statSync(f).size, 0), operations: made.operations };
    },
  },
  {
    // A stress case beyond the corpus: the same number of files, two operations a file.
    name: 'a folder of about 2,900 files, 5,400 operations (stress, no target)',
    stress: true,
    make(dir) {
      const made = writeLargeContract(dir, { slug: 'vendor', tags: 54, resourcesPerTag: 10 });
      const folder = path.join(dir, 'openapi/vendor');
      const files = listFiles(folder);
      return { from: folder, files: files.length, bytes: files.reduce((sum, f) => sum + statSync(f).size, 0), operations: made.operations };
    },
  },
];

export const suite: Suite = {
  description: 'add-service and build of a large single-file and a large multi-file document, then the type check',
  async run() {
    const rows: string[] = [];
    const targets: Target[] = [];
    for (const c of cases) {
      const source = copyToolkit('bench-import-source-');
      const copy = copyToolkit('bench-import-');
      try {
        const made = c.make(source.root);
        const added = await runNode(['--import', 'tsx', 'scripts/add-service.ts', 'vendor', '--from', made.from], copy.root);
        if (added.code !== 0) throw new Error(`add-service failed (${c.name}):\n${added.output.slice(-3000)}`);
        writeFileSync(path.join(copy.root, 'tsconfig.vendor.json'), JSON.stringify({ extends: './tsconfig.json', include: ['generated/vendor'] }));
        const checked = await runNode(['node_modules/typescript-7/bin/tsc', '--noEmit', '-p', 'tsconfig.vendor.json'], copy.root);
        if (checked.code !== 0) throw new Error(`type check failed (${c.name}):\n${checked.output.slice(-3000)}`);
        const generated = readdirSync(path.join(copy.root, 'generated/vendor'));
        rows.push(
          `| ${c.name} | ${made.operations} | ${made.files} | ${(made.bytes / 2 ** 20).toFixed(1)} MB | ${added.ms} | ${checked.ms} | ${generated.join(', ')} |`,
        );
        if (!c.stress) {
          targets.push({ name: `add-service + build, ${c.name}, ms (< ${limitMs})`, measured: added.ms, met: added.ms < limitMs });
          targets.push({ name: `type check of its generated code, ${c.name}, ms (< ${typecheckLimitMs})`, measured: checked.ms, met: checked.ms < typecheckLimitMs });
        }
      } finally {
        source.remove();
        copy.remove();
      }
    }
    const markdown = [
      '## import: bringing in a large document',
      '',
      '`npm run add-service -- vendor --from <document>` in a copy of the toolkit without services (wall time of the whole command: staging, lint, copy, registration, the build with the runtime compile), then `tsc --noEmit` on `generated/vendor/`.',
      '',
      '| document | operations | files | size | add-service + build, ms | type check, ms | generated |',
      '|---|---:|---:|---:|---:|---:|---|',
      ...rows,
    ].join('\n');
    return { markdown, targets };
  },
};
