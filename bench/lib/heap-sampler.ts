/**
 * Preloaded into a server under study (`node --import ./bench/lib/heap-sampler.ts ...`): samples
 * allocations that outlive the young generation (kept until a major GC or still live) for
 * HEAP_SAMPLE_MS after HEAP_SAMPLE_DELAY_MS, then writes the heaviest allocation sites to stderr.
 * What a sawtooth RSS under load is made of, without a heap snapshot of the whole process.
 */
import { Session } from 'node:inspector/promises';

interface SampleNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SampleNode[];
}

const delay = Number(process.env.HEAP_SAMPLE_DELAY_MS ?? 10_000);
const span = Number(process.env.HEAP_SAMPLE_MS ?? 10_000);
const session = new Session();
session.connect();

/** Bytes by the innermost frames of this repository or a package (the allocating code itself is often a builtin). */
function sites(root: SampleNode): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (node: SampleNode, trail: string[]) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const here = url && !url.startsWith('node:') ? `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|work\/main)\//, '')}:${lineNumber + 1}` : '';
    const next = here ? [here, ...trail].slice(0, 3) : trail;
    if (node.selfSize > 0) out.set(next.join(' < ') || functionName, (out.get(next.join(' < ') || functionName) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child, next);
  };
  walk(root, []);
  return out;
}

setTimeout(() => {
  void (async () => {
    await session.post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
    await new Promise((r) => setTimeout(r, span));
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SampleNode } };
    const top = [...sites(profile.head)].sort((a, b) => b[1] - a[1]).slice(0, 25);
    const total = [...sites(profile.head).values()].reduce((a, b) => a + b, 0);
    process.stderr.write(`heap-sampler: ${Math.round(total / 2 ** 20)} MB outlived the young generation in ${span} ms\n`);
    for (const [site, bytes] of top) process.stderr.write(`heap-sampler ${String(Math.round(bytes / 2 ** 10)).padStart(8)} kB  ${site}\n`);
  })();
}, delay).unref();
