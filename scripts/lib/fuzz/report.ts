/**
 * The failure message: violations grouped by kind, most frequent first, each with its distinct
 * details and a minimal example (shrunk by fast-check) and the seed to replay the run.
 */
import type { FuzzResult } from './runner.js';

const indent = (text: string, by: string) => text.replace(/\n/g, `\n${by}`);

export function formatReport(name: string, result: FuzzResult, replay: string): string {
  const total = result.kinds.reduce((n, k) => n + k.count, 0);
  const lines = [
    `${name}: ${result.runs} generated requests, ${total} violations of ${result.kinds.length} kinds (seed ${result.seed}, ${(result.ms / 1000).toFixed(1)} s).`,
    `Replay: ${replay}`,
    '',
  ];
  for (const k of result.kinds) {
    lines.push(`■ ${k.kind} — ${k.count} requests`);
    for (const [detail, n] of k.details.slice(0, 6)) lines.push(`    ${String(n).padStart(4)} × ${detail}`);
    if (k.details.length > 6) lines.push(`         … and ${k.details.length - 6} more distinct details`);
    const how = k.minimal.shrunk ? `shrunk in ${k.minimal.shrinks} steps` : 'as first found';
    lines.push(`    minimal example (${how}; first at run ${k.firstRun}${k.minimal.path ? `, fast-check path ${k.minimal.path}` : ''}):`);
    lines.push(`      → ${indent(k.minimal.request, '      ')}`);
    lines.push(`      ← ${k.minimal.response}`);
    if (k.minimal.shrunk && k.first.request !== k.minimal.request) {
      lines.push(`    as first found (run ${k.firstRun}):`);
      lines.push(`      → ${indent(k.first.request, '      ')}`);
      lines.push(`      ← ${k.first.response}`);
    }
    if (k.other) {
      lines.push('    another example:');
      lines.push(`      → ${indent(k.other.request, '      ')}`);
      lines.push(`      ← ${k.other.response}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** One line of what was generated, so a reader can see the mix (about half valid). */
export function formatCases(result: FuzzResult): string {
  return result.cases.map(([c, n]) => `${c} ${n}`).join(', ');
}
