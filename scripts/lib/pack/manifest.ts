import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { PackageEntry } from './plan.js';

/**
 * Scoped to the organisation, named after the repository: it is the contracts (types, clients,
 * validators) as code, and a scope lets a private registry own every `@platform/…` name.
 */
export const packageName = '@platform/contracts';

/** What the compiled code imports at run time; versions are the repo's exact pins. */
export const runtimeDependencies = ['openapi-fetch', 'ajv-formats', 'eventsource-parser'] as const;

/** Imported only by `./chain-rpc` (Node's WebSocket client); the other subpaths run without it. */
export const optionalPeers = ['ws'] as const;

interface RootManifest {
  version: string;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

export function readRootManifest(root: string): RootManifest {
  return JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as RootManifest;
}

function pinnedVersion(root: RootManifest, name: string): string {
  const version = root.dependencies?.[name] ?? root.devDependencies?.[name];
  if (!version) throw new Error(`package.json does not pin ${name}, which the packaged clients import`);
  return version;
}

export function exportsMap(entries: PackageEntry[]): Record<string, unknown> {
  const map: Record<string, unknown> = {};
  for (const e of entries) map[e.subpath] = { types: `./dist/${e.module}.d.ts`, default: `./dist/${e.module}.js` };
  map['./package.json'] = './package.json';
  return map;
}

/**
 * For TypeScript projects still on `moduleResolution: node` (node10), which ignores `exports`:
 * the same subpaths, mapped to their declarations.
 */
export function typesVersions(entries: PackageEntry[]): Record<string, Record<string, string[]>> {
  return { '*': Object.fromEntries(entries.map((e) => [e.subpath.slice(2), [`dist/${e.module}.d.ts`]])) };
}

export function packageManifest(root: string, entries: PackageEntry[]): Record<string, unknown> {
  const rootManifest = readRootManifest(root);
  const dependencies = Object.fromEntries(runtimeDependencies.map((d) => [d, pinnedVersion(rootManifest, d)]));
  const peerDependencies = Object.fromEntries(optionalPeers.map((d) => [d, `^${pinnedVersion(rootManifest, d)}`]));
  return {
    name: packageName,
    version: rootManifest.version,
    description: 'Typed clients, types, webhook verifiers, stream readers and schema validators for the platform services, generated from their OpenAPI contracts',
    type: 'module',
    // Every module only declares things; bundlers may drop what an app does not import.
    sideEffects: false,
    exports: exportsMap(entries),
    typesVersions: typesVersions(entries),
    files: ['dist', 'README.md'],
    ...(rootManifest.engines ? { engines: rootManifest.engines } : {}),
    dependencies,
    peerDependencies,
    peerDependenciesMeta: Object.fromEntries(optionalPeers.map((d) => [d, { optional: true }])),
  };
}
