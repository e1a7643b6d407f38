/**
 * A copy of the toolkit without its services (the pipeline, the stub framework, the lint rules with
 * no `apis:`), in a temporary folder: the benchmarks build contracts there without touching this
 * repository's service list or generated code. The same copy test/toolkit/new-service.test.ts makes.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultRoot } from '../../server-stubs/lib/root.js';

export interface ToolkitCopy {
  root: string;
  remove(): void;
}

export function copyToolkit(prefix: string): ToolkitCopy {
  const root = mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const part of ['scripts', 'server-stubs/lib', 'package.json', 'tsconfig.json']) {
    cpSync(path.join(defaultRoot, part), path.join(root, part), { recursive: true });
  }
  symlinkSync(path.join(defaultRoot, 'node_modules'), path.join(root, 'node_modules'));
  const redocly = readFileSync(path.join(defaultRoot, 'redocly.yaml'), 'utf8');
  writeFileSync(path.join(root, 'redocly.yaml'), `${redocly.slice(0, redocly.indexOf('\napis:'))}\napis: {}\n`);
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** Copies a service's contract (and its standalone schemas, if any) from this repository into the copy. */
export function copyService(copy: ToolkitCopy, slug: string): void {
  cpSync(path.join(defaultRoot, 'openapi', slug), path.join(copy.root, 'openapi', slug), { recursive: true });
  // A contract may `$ref` its data models in schemas/<slug>/; the build then builds those too, as here.
  if (existsSync(path.join(defaultRoot, 'schemas', slug))) cpSync(path.join(defaultRoot, 'schemas', slug), path.join(copy.root, 'schemas', slug), { recursive: true });
}
