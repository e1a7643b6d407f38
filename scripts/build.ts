/**
 * `npm run build`: lint, bundle, types, clients, schema types and validators, docs for every
 * service under openapi/ and schema folder under schemas/. Up-to-date units are skipped.
 * `--force` rebuilds everything.
 */
import { availableParallelism } from 'node:os';
import { build } from './lib/pipeline.js';
import { defaultRoot } from '../server-stubs/lib/root.js';

const started = performance.now();
const result = await build({ root: defaultRoot, force: process.argv.includes('--force'), compile: true, workers: availableParallelism(), log: (line) => console.log(line) });
const warnings = result.lint.filter((p) => p.severity === 'warn').length;
const total = Math.round(performance.now() - started);
if (!result.ok) {
  console.error(`build failed in ${total} ms: ${result.failures.join('; ')}`);
  process.exit(1);
}
console.log(`build done in ${total} ms (${result.rebuilt.length} rebuilt${warnings ? `, ${warnings} lint warnings` : ''})`);
