import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultRoot } from '../../server-stubs/lib/root.js';

/** What `npm start` runs once it has built: the arguments of the `exec node …` part of its script. */
export function npmStartArgs(): string[] {
  const script = (JSON.parse(readFileSync(path.join(defaultRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start ?? '';
  const match = /exec node (.+)$/.exec(script);
  if (!match) throw new Error(`package.json's start script no longer ends in \`exec node …\`: ${script}`);
  return match[1]!.trim().split(/\s+/);
}

/** The Node and V8 flags `npm start` gives the server: a benchmark of the stubs runs them with the same. */
export function npmStartNodeFlags(): string[] {
  return npmStartArgs().filter((arg) => arg.startsWith('--'));
}
