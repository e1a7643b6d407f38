/**
 * `npm run bench [-- <suite>...]`: every benchmark suite of bench/suites/ (or those named), each
 * written into its section of bench/RESULTS.md, then every target with its measured figure and
 * whether it is met, printed and written at the top. Never part of `npm test`: timings on a shared
 * machine are compared as ratios within one run, and read from the file, not asserted.
 */
import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { recordTargets, writeSection } from './results-file.js';
import type { Suite } from './suite.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const available = readdirSync(path.join(here, 'suites'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .sort();
const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = asked.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`unknown suite ${unknown.join(', ')}; suites: ${available.join(', ')}`);
  process.exit(2);
}

for (const name of asked.length > 0 ? asked : available) {
  const { suite } = (await import(pathToFileURL(path.join(here, 'suites', `${name}.ts`)).href)) as { suite: Suite };
  console.log(`bench ${name}: ${suite.description}`);
  const started = performance.now();
  const result = await suite.run();
  const stamp = `Run ${new Date().toISOString()} on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, in ${Math.round((performance.now() - started) / 1000)} s.`;
  const [heading, ...body] = result.markdown.trim().split('\n');
  writeSection(name, [heading, '', stamp, ...body].join('\n'));
  recordTargets(name, result.targets);
  for (const target of result.targets) console.log(`  ${target.met ? 'met    ' : 'NOT MET'}  ${target.name}: ${target.measured}`);
}
