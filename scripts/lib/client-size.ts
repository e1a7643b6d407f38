import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { buildPackage, packageName, type BuiltPackage } from './pack/index.js';
import { planPackage } from './pack/plan.js';

export interface ClientSize {
  service: string;
  /** `@platform/contracts/seo` */
  specifier: string;
  clientFactory: string;
  /** bytes of the minified bundle */
  minified: number;
  /** bytes of the minified bundle, gzipped (level 9) */
  gzipped: number;
}

export interface MeasureOptions {
  root?: string;
  /** an already built package folder; built into `stagingDir` (default `.cache/clients-package`) otherwise */
  packageDir?: string;
  stagingDir?: string;
}

/**
 * Resolves `@platform/contracts/<subpath>` through the package's own `exports` map, as an app's
 * bundler would once the package is installed; everything else (openapi-fetch) from the repo.
 */
function packagePlugin(packageDir: string): esbuild.Plugin {
  const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { name: string; exports: Record<string, { default: string } | string> };
  const escaped = manifest.name.replace(/[/\\^$*+?.()|[\]{}]/g, '\\$&');
  return {
    name: 'packaged-clients',
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${escaped}(/|$)`) }, (args) => {
        const subpath = `.${args.path.slice(manifest.name.length)}`;
        const target = manifest.exports[subpath];
        if (!target) return { errors: [{ text: `${manifest.name} does not export ${subpath}` }] };
        return { path: path.join(packageDir, typeof target === 'string' ? target : target.default) };
      });
    },
  };
}

/**
 * What a browser app pays for one service's client: an esbuild bundle of
 * `import { create<Pascal>Client } from '@platform/contracts/<slug>'`, openapi-fetch included,
 * minified and gzipped. Tree-shaking (the package is `sideEffects: false`) keeps the stream
 * readers and validators of the same subpath out unless they are imported.
 */
export async function measureClientSizes(options: MeasureOptions = {}): Promise<ClientSize[]> {
  const root = options.root ?? defaultRoot;
  const built: Pick<BuiltPackage, 'packageDir' | 'entries'> = options.packageDir
    ? { packageDir: options.packageDir, entries: planPackage(root).entries }
    : buildPackage({ root, stagingDir: options.stagingDir });
  const plugin = packagePlugin(built.packageDir);
  const sizes: ClientSize[] = [];
  for (const entry of built.entries) {
    if (!entry.clientFactory) continue;
    const specifier = `${packageName}${entry.subpath.slice(1)}`;
    const result = await esbuild.build({
      stdin: { contents: `export { ${entry.clientFactory} } from '${specifier}';`, resolveDir: built.packageDir, loader: 'js' },
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
      nodePaths: [path.join(root, 'node_modules')],
      plugins: [plugin],
    });
    const code = result.outputFiles[0]!.contents;
    sizes.push({ service: entry.service, specifier, clientFactory: entry.clientFactory, minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength });
  }
  return sizes;
}
