/**
 * `npm run check` (part of `npm test`): lint is clean (no errors, no warnings) and the committed
 * generated files are exactly what a fresh build makes from the sources. Changes nothing.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from './lib/pipeline.js';
import { defaultRoot, listFiles } from './lib/project.js';
import { formatLintProblem } from './steps/lint.js';

export interface DriftReport {
  missing: string[]; // would be generated, not committed
  stale: string[]; // committed, differs from a fresh build
  extra: string[]; // committed, no longer generated
}

export function compareTrees(freshDir: string, committedDir: string): DriftReport {
  const rel = (dir: string) =>
    listFiles(dir)
      .map((f) => path.relative(dir, f))
      .filter((f) => !f.startsWith(`docs${path.sep}`));
  const fresh = new Set(rel(freshDir));
  const committed = new Set(rel(committedDir));
  const report: DriftReport = { missing: [], stale: [], extra: [] };
  for (const f of fresh) {
    if (!committed.has(f)) report.missing.push(f);
    else if (!readFileSync(path.join(freshDir, f)).equals(readFileSync(path.join(committedDir, f)))) report.stale.push(f);
  }
  for (const f of committed) if (!fresh.has(f)) report.extra.push(f);
  return report;
}

export async function check(root: string): Promise<{ ok: boolean; messages: string[] }> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'contracts-check-'));
  const messages: string[] = [];
  try {
    const result = await build({ root, outDir: tmp, force: true, docs: false, register: false });
    for (const p of result.lint) messages.push(`lint: ${formatLintProblem(p)}`);
    for (const f of result.failures) messages.push(`build: ${f}`);
    const drift = compareTrees(tmp, path.join(root, 'generated'));
    for (const f of drift.missing) messages.push(`drift: generated/${f} is not committed (run npm run build)`);
    for (const f of drift.stale) messages.push(`drift: generated/${f} differs from a fresh build (run npm run build)`);
    for (const f of drift.extra) messages.push(`drift: generated/${f} is no longer generated (run npm run build)`);
    return { ok: messages.length === 0, messages };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = performance.now();
  const { ok, messages } = await check(defaultRoot);
  for (const m of messages) console.error(m);
  const ms = Math.round(performance.now() - started);
  if (!ok) {
    console.error(`check failed in ${ms} ms: ${messages.length} problems`);
    process.exit(1);
  }
  console.log(`check: lint clean, generated code fresh (${ms} ms)`);
}
