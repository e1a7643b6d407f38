import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { defaultRoot } from '../../../server-stubs/lib/root.js';
import { compilePackage } from './compile.js';
import { optionalPeers, packageManifest, packageName, runtimeDependencies } from './manifest.js';
import { planPackage, type PackageEntry } from './plan.js';
import { packageReadme } from './readme.js';
import { copyPrecompiled, stageSources } from './stage.js';
import { findImportProblems } from './verify.js';

export { packageName } from './manifest.js';
export type { PackageEntry } from './plan.js';

export interface BuildOptions {
  root?: string;
  /** scratch folder: `src/` (staged sources) and `package/` (the package) go here */
  stagingDir?: string;
}

export interface BuiltPackage {
  packageDir: string;
  name: string;
  version: string;
  entries: PackageEntry[];
}

export const defaultStagingDir = (root: string) => path.join(root, '.cache', 'clients-package');

/** Builds the package folder (package.json, README.md, dist/) without packing it. */
export function buildPackage(options: BuildOptions = {}): BuiltPackage {
  const root = options.root ?? defaultRoot;
  const stagingDir = path.resolve(options.stagingDir ?? defaultStagingDir(root));
  const srcDir = path.join(stagingDir, 'src');
  const packageDir = path.join(stagingDir, 'package');
  mkdirSync(stagingDir, { recursive: true });
  // The staged sources resolve openapi-fetch, ajv-formats and @types/node from the repo's
  // installation wherever the staging folder is (a temp dir in tests).
  const modules = path.join(stagingDir, 'node_modules');
  if (!existsSync(modules)) symlinkSync(path.join(root, 'node_modules'), modules, 'dir');

  const plan = planPackage(root);
  stageSources(root, plan, srcDir);
  rmSync(packageDir, { recursive: true, force: true });
  const distDir = path.join(packageDir, 'dist');
  compilePackage(srcDir, distDir, plan.entries.map((e) => e.module), root);
  copyPrecompiled(srcDir, distDir);

  const manifest = packageManifest(root, plan.entries);
  writeFileSync(path.join(packageDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const version = String(manifest.version);
  writeFileSync(path.join(packageDir, 'README.md'), packageReadme(packageName, version, plan.entries));

  const problems = findImportProblems(packageDir, [...runtimeDependencies, ...optionalPeers]);
  if (problems.length > 0) throw new Error(`the package would not install cleanly:\n  ${problems.join('\n  ')}`);
  return { packageDir, name: packageName, version, entries: plan.entries };
}

export interface PackOptions extends BuildOptions {
  /** where the tarball goes (default `<root>/dist`) */
  outDir?: string;
}

export interface PackedClients extends BuiltPackage {
  tarball: string;
  /** bytes of the tarball */
  size: number;
  /** bytes of the unpacked package */
  unpackedSize: number;
  files: number;
}

interface NpmPackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
}

/** Builds the package and packs it with `npm pack` into `outDir`. */
export function packClients(options: PackOptions = {}): PackedClients {
  const root = options.root ?? defaultRoot;
  const built = buildPackage({ ...options, root });
  const outDir = path.resolve(options.outDir ?? path.join(root, 'dist'));
  mkdirSync(outDir, { recursive: true });
  const output = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', outDir], {
    cwd: built.packageDir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [result] = JSON.parse(output) as NpmPackResult[];
  if (!result) throw new Error(`npm pack printed no result: ${output}`);
  return {
    ...built,
    tarball: path.join(outDir, result.filename),
    size: result.size,
    unpackedSize: result.unpackedSize,
    files: result.entryCount,
  };
}
