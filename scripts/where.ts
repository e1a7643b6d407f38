/**
 * `npm run where -- <operationId | "METHOD /path">`: prints where an operation lives: its contract
 * source (file and line), the schemas it names, its handler, the tests that mention it and its
 * generated types. Exit 0 when found, 2 when the query names no operation (with close matches) or
 * is missing.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { formatAnswer, Where } from './lib/where/index.js';

export const USAGE = 'Usage: npm run where -- <operationId | "METHOD /path">   (e.g. sendEmail, "POST /mail/v1/send")';

export function where(root: string, argv: string[]): { code: number; out: string; err: string } {
  const query = argv.join(' ').trim();
  if (!query || query === '--help' || query === '-h') return { code: query ? 0 : 2, out: query ? USAGE : '', err: query ? '' : USAGE };
  const result = new Where(root).query(query);
  if (result.found.length > 0) return { code: 0, out: result.found.map(formatAnswer).join('\n\n'), err: '' };
  const hint = 'closeMatches' in result && result.closeMatches.length > 0 ? ` Close matches: ${result.closeMatches.join(', ')}.` : '';
  return { code: 2, out: '', err: `No operation of any service is ${JSON.stringify(query)}.${hint}\n${USAGE}` };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  // A reader piping the answer into `head` closes the pipe early; that is not a failure.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  const { code, out, err } = where(root, process.argv.slice(2));
  if (out) console.log(out);
  if (err) console.error(err);
  process.exitCode = code;
}
