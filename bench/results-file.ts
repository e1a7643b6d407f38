import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Target } from './suite.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const resultsFile = path.join(here, 'RESULTS.md');
const targetsFile = path.join(here, 'targets.json');

/**
 * Replaces one section of bench/RESULTS.md (between `<!-- bench:<name> -->` markers), or adds it
 * (at the end, or right under the title with `first`): each suite runs on its own
 * (`npm run bench -- <suite>`) without erasing the others.
 */
export function writeSection(name: string, markdown: string, options: { first?: boolean } = {}): void {
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const text = existsSync(resultsFile) ? readFileSync(resultsFile, 'utf8') : '# Benchmark results\n';
  const at = text.indexOf(start);
  const until = text.indexOf(end);
  let next: string;
  if (at >= 0 && until > at) next = `${text.slice(0, at)}${block}${text.slice(until + end.length)}`;
  else if (options.first) {
    const afterTitle = text.indexOf('\n') + 1;
    next = `${text.slice(0, afterTitle)}\n${block}\n${text.slice(afterTitle)}`;
  } else next = `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(resultsFile, next);
}

/** Keeps each suite's targets of its last run (bench/targets.json) and rewrites the summary table from them. */
export function recordTargets(suite: string, targets: Target[]): Array<Target & { suite: string }> {
  const all: Record<string, Target[]> = existsSync(targetsFile) ? (JSON.parse(readFileSync(targetsFile, 'utf8')) as Record<string, Target[]>) : {};
  all[suite] = targets;
  writeFileSync(targetsFile, `${JSON.stringify(all, null, 2)}\n`);
  const rows = Object.entries(all).flatMap(([name, list]) => list.map((t) => ({ ...t, suite: name })));
  writeSection(
    'targets',
    [
      '## Targets',
      '',
      'Every target with the figure of the last run of its suite (`npm run bench` runs every suite; `npm run bench -- <suite>` one).',
      '',
      '| suite | target | measured | met |',
      '|---|---|---:|---|',
      ...rows.map((t) => `| ${t.suite} | ${t.name} | ${t.measured} | ${t.met ? 'yes' : '**no**'} |`),
    ].join('\n'),
    { first: true },
  );
  return rows;
}
