import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** One subpath of the package (`./seo`, `./seo/schemas`, `./chain-rpc`) and what it re-exports. */
export interface PackageEntry {
  /** the key in `exports`, e.g. `./seo` */
  subpath: string;
  /** the entry's module, relative to the staged source root, without extension: `entries/seo` */
  module: string;
  /** modules the entry re-exports (`export *`), relative to the staged source root, `.js` specifiers */
  reexports: string[];
  /** one line for the README */
  summary: string;
  /** the service's client factory, where the entry has one (`createSeoClient`) */
  clientFactory?: string;
  service: string;
}

/** Everything copied from the repository into the package sources, relative to the repo root. */
export interface PackagePlan {
  entries: PackageEntry[];
  sourceDirs: string[];
}

const clientFactoryPattern = /export function (create\w+Client)\s*\(/;

function isDir(p: string): boolean {
  return existsSync(p) && statSync(p).isDirectory();
}

/**
 * What the package holds, found from generated/ alone, so a new service gets its subpath without
 * touching the packer. The OpenAPI root aliases (`Project` in `./seo`) and the standalone schema
 * types of the same name (`Project` in generated/schemas/seo) are different declarations, so each
 * schema set gets its own `./<slug>/schemas` subpath instead of sharing the client's namespace.
 */
export function planPackage(root: string): PackagePlan {
  const generated = path.join(root, 'generated');
  const entries: PackageEntry[] = [];
  const sourceDirs = new Set<string>();
  const services = readdirSync(generated)
    .filter((slug) => existsSync(path.join(generated, slug, 'client.gen.ts')))
    .sort();
  for (const slug of services) {
    const dir = path.join(generated, slug);
    const factory = clientFactoryPattern.exec(readFileSync(path.join(dir, 'client.gen.ts'), 'utf8'))?.[1];
    if (!factory) throw new Error(`generated/${slug}/client.gen.ts has no create…Client factory`);
    const reexports = [`generated/${slug}/client.gen.js`];
    const parts = ['client factory and types'];
    if (existsSync(path.join(dir, 'webhooks.gen.ts'))) parts.push('webhook payloads and signature verifier');
    if (existsSync(path.join(dir, 'streams.gen.ts'))) {
      reexports.push(`generated/${slug}/streams.gen.js`);
      parts.push('typed event-stream readers');
      sourceDirs.add('clients/event-stream');
    }
    sourceDirs.add(`generated/${slug}`);
    entries.push({ subpath: `./${slug}`, module: `entries/${slug}`, reexports, summary: parts.join(', '), clientFactory: factory, service: slug });
  }
  const schemaRoot = path.join(generated, 'schemas');
  const chainRpc = path.join(root, 'clients', 'chain-rpc', 'index.ts');
  if (isDir(schemaRoot)) {
    sourceDirs.add('generated/schemas');
    for (const slug of readdirSync(schemaRoot).sort()) {
      if (!existsSync(path.join(schemaRoot, slug, 'index.gen.ts'))) continue;
      // The chain-rpc client re-exports its schema set itself.
      if (slug === 'chain-rpc' && existsSync(chainRpc)) continue;
      entries.push({
        subpath: `./${slug}/schemas`,
        module: `entries/${slug}-schemas`,
        reexports: [`generated/schemas/${slug}/index.gen.js`],
        summary: 'standalone schema types and precompiled validators (`validate.<Type>`)',
        service: slug,
      });
    }
  }
  if (existsSync(chainRpc)) {
    sourceDirs.add('clients/chain-rpc');
    entries.push({
      subpath: './chain-rpc',
      module: 'entries/chain-rpc',
      reexports: ['clients/chain-rpc/index.js'],
      summary: 'hand-written JSON-RPC client (HTTP; subscriptions over WebSocket need `ws` installed), schema types and validators',
      service: 'chain-rpc',
    });
  }
  entries.sort((a, b) => a.subpath.localeCompare(b.subpath));
  return { entries, sourceDirs: [...sourceDirs].sort() };
}
