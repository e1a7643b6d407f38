/**
 * `npm run pack:clients [-- --out <dir>]`: one installable npm package of every generated client
 * (see scripts/lib/pack/), packed with `npm pack` into `dist/` or `--out`.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { packClients } from './lib/pack/index.js';

const { values } = parseArgs({ options: { out: { type: 'string' } } });

try {
  const packed = packClients({ outDir: values.out });
  const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
  console.log(`${packed.name}@${packed.version}: ${packed.entries.length} subpaths, ${packed.files} files, ${kb(packed.unpackedSize)} unpacked`);
  for (const e of packed.entries) console.log(`  ${packed.name}${e.subpath.slice(1)}`);
  const shown = path.relative(process.cwd(), packed.tarball);
  console.log(`${shown.startsWith('..') ? packed.tarball : shown}  ${kb(packed.size)}`);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
}
