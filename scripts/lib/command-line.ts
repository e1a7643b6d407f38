/**
 * What the toolkit's report commands (`npm run contract`, `npm run coverage`) share on their command
 * line: options read with node's `parseArgs`, the usage on `--help` (exit 0) or on a bad or missing
 * argument (exit 2), and report files written where asked.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Values<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>['values'];

/** The options, or the exit code when the command stops here (the usage printed). */
export function readOptions<const T extends ParseArgsConfig>(config: T, usage: string, required: ReadonlyArray<string> = []): Values<T> | number {
  let values: Values<T>;
  try {
    ({ values } = parseArgs(config));
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    return 2;
  }
  const given = values as Record<string, unknown>;
  if (given.help) {
    console.info(usage);
    return 0;
  }
  const missing = required.find((name) => !given[name]);
  if (missing) {
    console.error(`--${missing} is required\n${usage}`);
    return 2;
  }
  return values;
}

/** Writes a report file (its folder made if needed) and says where. */
export function writeReport(file: string, content: string, what: string): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  writeFileSync(file, content);
  console.info(`${what}: ${file}`);
}
