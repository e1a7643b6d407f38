import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultRoot } from '../../server-stubs/lib/root.js';

/**
 * What `npm start` runs once it has built: its `exec node …` command without the launcher's
 * `--build-first`, which is the same process going on to the server once the build has succeeded.
 */
export function npmStartArgs(): string[] {
  const script = (JSON.parse(readFileSync(path.join(defaultRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start ?? '';
  const match = /^exec node (.+)$/.exec(script);
  if (!match) throw new Error(`package.json's start script is no longer a single \`exec node …\`: ${script}`);
  return match[1]!.trim().split(/\s+/).filter((arg) => arg !== '--build-first');
}

/** The Node and V8 flags `npm start` gives the server (those before its script): a benchmark of the stubs runs them with the same. */
export function npmStartNodeFlags(): string[] {
  const args = npmStartArgs();
  const script = args.findIndex((arg) => !arg.startsWith('-'));
  return script === -1 ? args : args.slice(0, script);
}
