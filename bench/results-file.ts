import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'RESULTS.md');

/**
 * Replaces one suite's section of bench/RESULTS.md (between `<!-- bench:<suite> -->` markers), or
 * appends it: each suite runs on its own (`npm run bench -- <suite>`) without erasing the others.
 */
export function writeSection(suite: string, markdown: string): void {
  const start = `<!-- bench:${suite} -->`;
  const end = `<!-- /bench:${suite} -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
  const at = text.indexOf(start);
  const until = text.indexOf(end);
  const next = at >= 0 && until > at ? `${text.slice(0, at)}${block}${text.slice(until + end.length)}` : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, next);
}
