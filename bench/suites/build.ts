/**
 * The designer's and CI's waits: the full build (every unit, shared among one process per core),
 * a no-op build, a one-service contract edit, the type check, and the size of each generated client.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { measureClientSizes } from '../../scripts/lib/client-size.js';
import { median, root, timeCommand } from '../lib/processes.js';
import type { Suite, Target } from '../suite.js';

const build = (...args: string[]) => timeCommand(process.execPath, ['scripts/launch.mjs', 'build', ...args]);

/** Builds after a one-line edit of a contract, then restores it (and builds again, untimed). */
async function oneServiceEdit(file: string, from: string, to: string): Promise<number> {
  const full = path.join(root, file);
  const original = readFileSync(full, 'utf8');
  if (!original.includes(from)) throw new Error(`${file}: the benchmark's edit no longer applies`);
  try {
    writeFileSync(full, original.replace(from, to));
    return await build();
  } finally {
    writeFileSync(full, original);
    await build();
  }
}

export const suite: Suite = {
  description: 'full, no-op and one-service builds, the type check, and the generated clients\' size',
  async run() {
    const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
    const full: number[] = [];
    const noop: number[] = [];
    const seo: number[] = [];
    const mail: number[] = [];
    const typecheck: number[] = [];
    for (let i = 0; i < rounds; i++) {
      full.push(await build('--force'));
      noop.push(await build());
      seo.push(await oneServiceEdit('openapi/seo/components/schemas/CreateProjectRequest.yaml', '    minLength: 1\n', '    minLength: 2\n'));
      mail.push(await oneServiceEdit('openapi/mail/components/parameters/ResourceListLimit.yaml', 'maximum: 100', 'maximum: 99'));
      typecheck.push(await timeCommand(process.execPath, ['node_modules/typescript-7/bin/tsc', '--noEmit', '-p', 'tsconfig.json']));
    }
    const sizes = await measureClientSizes();
    const largest = sizes.reduce((a, b) => (b.gzipped > a.gzipped ? b : a));
    const targets: Target[] = [
      { name: 'full build of every unit, ms (< 10000)', measured: median(full), met: median(full) < 10_000 },
      { name: 'no-op build, ms (< 500)', measured: median(noop), met: median(noop) < 500 },
      { name: 'build after a one-line seo contract edit, ms (< 3000)', measured: median(seo), met: median(seo) < 3000 },
      { name: 'build after a one-line mail contract edit, ms (< 3000)', measured: median(mail), met: median(mail) < 3000 },
      { name: 'npm run typecheck, ms (< 10000)', measured: median(typecheck), met: median(typecheck) < 10_000 },
      { name: `largest generated client (${largest.service}), min+gz bytes (< 7168)`, measured: largest.gzipped, met: sizes.every((s) => s.gzipped < 7168) },
    ];
    const markdown = [
      '## Builds, type check, client size (`npm run bench -- build`)',
      '',
      `Each figure is the median of ${rounds} runs (all runs listed), wall time of the command from process start.`,
      '`npm run build` shares stale units among one process per core; the one-service edits change one line and build.',
      '',
      '| command | runs, ms | median, ms |',
      '|---|---|---:|',
      `| \`npm run build -- --force\` (every unit) | ${full.join(', ')} | ${median(full)} |`,
      `| \`npm run build\` with nothing to do | ${noop.join(', ')} | ${median(noop)} |`,
      `| \`npm run build\` after a seo contract line | ${seo.join(', ')} | ${median(seo)} |`,
      `| \`npm run build\` after a mail contract line | ${mail.join(', ')} | ${median(mail)} |`,
      `| \`npm run typecheck\` (TypeScript 7) | ${typecheck.join(', ')} | ${median(typecheck)} |`,
      '',
      'Generated clients, bundled by esbuild with openapi-fetch from the packed `@platform/contracts`, minified:',
      '',
      '| client | minified, bytes | min+gz, bytes |',
      '|---|---:|---:|',
      ...sizes.map((s) => `| \`${s.specifier}\` ${s.clientFactory} | ${s.minified} | ${s.gzipped} |`),
    ].join('\n');
    return { markdown, targets };
  },
};
