/**
 * Self time of a `.cpuprofile` (written by `node --cpu-prof`), by function and by file:
 * `npx tsx bench/lib/profile-summary.ts <file.cpuprofile> [top] [requests]`; with the number of requests
 * the profile covers, times are also given per request. Enough to see where a request's time goes
 * without opening DevTools.
 */
import { readCpuProfile } from './profile-top.js';

const [file, topArg, requestsArg] = process.argv.slice(2);
const requests = Number(requestsArg ?? 0);
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top] [requests]');
const top = Number(topArg ?? 25);
const { byId, self } = readCpuProfile(file);

const shortUrl = (url: string) => url.replace(/^file:\/\//, '').replace(/^.*node_modules\//, '~/').replace(/^.*\/work\/main\//, '');
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
let total = 0;
let idle = 0;
for (const [id, micros] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  total += micros;
  if (functionName === '(idle)') idle += micros;
  const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : '';
  const fn = `${functionName || '(anonymous)'} ${where}`.trim();
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + micros);
  const pkg = url ? shortUrl(url).replace(/^~\/((@[^/]+\/)?[^/]+).*$/, '~/$1') : functionName;
  byFile.set(pkg, (byFile.get(pkg) ?? 0) + micros);
}
const busy = total - idle;
const rows = (map: Map<string, number>) =>
  [...map].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, top)
    .map(([k, v]) => `${((v / busy) * 100).toFixed(1).padStart(5)}%  ${(v / 1000).toFixed(0).padStart(6)} ms  ${requests ? `${(v / requests).toFixed(1).padStart(6)} µs/req  ` : ''}${k}`);
console.log(`busy ${(busy / 1000).toFixed(0)} ms of ${(total / 1000).toFixed(0)} ms sampled${requests ? `; ${(busy / requests).toFixed(0)} µs per request` : ''}`);
console.log('\nby function (self time):');
console.log(rows(byFunction).join('\n'));
console.log('\nby file or package (self time):');
console.log(rows(byFile).join('\n'));
