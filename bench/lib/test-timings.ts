/**
 * Where `npm test`'s time goes: a vitest JSON report (`vitest run --reporter=json --outputFile=…`)
 * turned into one row per test file (wall time from the file's start to its end on its worker, and
 * its number of tests), costliest first, under the times of the steps before it (check, typecheck).
 *
 * `npx tsx bench/lib/test-timings.ts <report.json> [check=S typecheck=S vitest=S] [--write-costs]`
 * prints the table for a report taken elsewhere (the "before" table of bench/RESULTS.md came from
 * one); with `--write-costs`, also writes the per-file costs the test sequencer orders and shards by.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The part of vitest's JSON report read here (it is Jest's format). */
export interface VitestJsonReport {
  startTime: number;
  numTotalTests: number;
  testResults: Array<{ name: string; startTime: number; endTime: number; assertionResults: unknown[] }>;
}

export interface FileTiming {
  /** relative to the repository root, e.g. `test/toolkit/fuzz.test.ts` */
  file: string;
  seconds: number;
  tests: number;
}

/** The test file's path from `test/` on, whatever checkout or worktree the report was taken in. */
function fromTestDir(name: string): string {
  const at = name.lastIndexOf(`${path.sep}test${path.sep}`);
  return at >= 0 ? name.slice(at + 1) : name;
}

export function fileTimings(report: VitestJsonReport): FileTiming[] {
  return report.testResults
    .map((r) => ({ file: fromTestDir(r.name), seconds: (r.endTime - r.startTime) / 1000, tests: r.assertionResults.length }))
    .sort((a, b) => b.seconds - a.seconds || a.file.localeCompare(b.file));
}

/** Where the test sequencer reads each file's cost (test/helpers/cost-sequencer.ts). */
export const fileCostsPath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/helpers/file-costs.json');

/** `{ "test/x.test.ts": seconds }`, in the order of the paths (a stable diff from run to run). */
export function fileCostsJson(report: VitestJsonReport): string {
  const rows = fileTimings(report).sort((a, b) => a.file.localeCompare(b.file));
  return `${JSON.stringify(Object.fromEntries(rows.map((r) => [r.file, Math.round(r.seconds * 10) / 10])), null, 2)}\n`;
}

/** `npm test`'s steps, seconds of wall time each; the vitest step is the whole run, workers in parallel. */
export type StepTimes = Partial<Record<'check' | 'check: contracts' | 'check: lint' | 'typecheck' | 'vitest', number>>;

const s = (seconds: number) => seconds.toFixed(1);

/** Markdown: the steps, then the files (the costliest `limit`, the rest summed on one line). */
export function timingTable(report: VitestJsonReport, steps: StepTimes, limit = 30): string {
  const files = fileTimings(report);
  const total = files.reduce((sum, f) => sum + f.seconds, 0);
  const shown = files.slice(0, limit);
  const rest = files.slice(limit);
  const stepRows = Object.entries(steps).map(([step, seconds]) => `| ${step} | ${s(seconds)} |`);
  return [
    '| step | seconds |',
    '|---|---:|',
    ...stepRows,
    '',
    `${files.length} test files, ${report.numTotalTests} tests; ${s(total)} s of file time in all (the workers share it).`,
    '',
    '| test file | seconds | tests |',
    '|---|---:|---:|',
    ...shown.map((f) => `| ${f.file} | ${s(f.seconds)} | ${f.tests} |`),
    ...(rest.length > 0 ? [`| ${rest.length} other files | ${s(rest.reduce((sum, f) => sum + f.seconds, 0))} | ${rest.reduce((sum, f) => sum + f.tests, 0)} |`] : []),
  ].join('\n');
}

/** `check=142 typecheck=12 vitest=596` → step times. */
export function parseSteps(args: string[]): StepTimes {
  const steps: Record<string, number> = {};
  for (const arg of args) {
    const [name, value] = arg.split('=');
    if (!name || value === undefined || !Number.isFinite(Number(value))) throw new Error(`expected step=seconds, got ${arg}`);
    steps[name] = Number(value);
  }
  return steps as StepTimes;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const writeCosts = args.includes('--write-costs');
  const [reportFile, ...stepArgs] = args.filter((a) => a !== '--write-costs');
  if (!reportFile) {
    console.error('usage: npx tsx bench/lib/test-timings.ts <vitest-report.json> [step=seconds ...] [--write-costs]');
    process.exit(2);
  }
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as VitestJsonReport;
  console.log(timingTable(report, parseSteps(stepArgs)));
  if (writeCosts) writeFileSync(fileCostsPath, fileCostsJson(report));
}
