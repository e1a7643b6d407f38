/**
 * Preloaded into a server under study (`node --import ./bench/lib/memory-probe.ts ...`): writes its
 * memory split (V8 heap, external, array buffers) to stderr every MEMORY_PROBE_MS, so a growing RSS
 * can be told apart as heap, native or allocator slack. With `--expose-gc` and MEMORY_PROBE_GC=1 it
 * collects first, so heapUsed is what is live.
 */
const every = Number(process.env.MEMORY_PROBE_MS ?? 1000);
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
const collect = process.env.MEMORY_PROBE_GC === '1' ? (globalThis as { gc?: () => void }).gc : undefined;
setInterval(() => {
  collect?.();
  const m = process.memoryUsage();
  process.stderr.write(`memory-probe rss=${mb(m.rss)} heapTotal=${mb(m.heapTotal)} heapUsed=${mb(m.heapUsed)} external=${mb(m.external)} arrayBuffers=${mb(m.arrayBuffers)}\n`);
}, every).unref();
