/**
 * The largest `.cpuprofile` of a folder (written by `node --cpu-prof`), as text for a benchmark's
 * notes: busy time, then self time by package or file and the heaviest functions by inclusive time.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const where = (url: string) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*node_modules\/((@[^/]+\/)?[^/]+)\/(?:.*\/)?([^/]+)$/, '$1 $3')
    .replace(/^.*\/(bench|scripts|server-stubs)\//, '$1/');

/** A `.cpuprofile`'s call tree: each node by id, each node's parent, and the self time (µs) of each sampled node. */
export function readCpuProfile(file: string) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  return { byId, parent, self };
}

export function summarizeProfile(dir: string, top: number): string {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(dir, f));
  const file = files.sort((a, b) => statSync(b).size - statSync(a).size)[0];
  if (!file) return 'no profile written';
  const { byId, parent, self } = readCpuProfile(file);

  const byPackage = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  for (const [id, micros] of self) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)' || frame.functionName === '(program)') continue;
    busy += micros;
    const pkg = frame.url ? where(frame.url).split(' ')[0]! : frame.functionName;
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + micros);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      if (!f.url || f.url.startsWith('node:')) continue;
      const key = `${f.functionName || '(anonymous)'} (${where(f.url)}:${f.lineNumber + 1})`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + micros);
    }
  }
  const rows = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `${(v / 1000).toFixed(0).padStart(7)} ms  ${k}`);
  return [`busy ${(busy / 1000).toFixed(0)} ms`, '', 'self time by package or file:', ...rows(byPackage), '', 'inclusive time by function:', ...rows(inclusive)].join('\n');
}
