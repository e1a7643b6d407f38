import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Liquid } from 'liquidjs';
import { listFiles, pascalCase } from './project.js';

const templateDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../new-service/template');

/**
 * Where each template folder goes in the repository: a folder of the service's own (which must not
 * exist yet), or a shared folder its files join (only they must not exist).
 */
const targets: Record<string, { to: (slug: string) => string; own: boolean }> = {
  openapi: { to: (slug) => path.join('openapi', slug), own: true },
  schemas: { to: (slug) => path.join('schemas', slug), own: true },
  stub: { to: (slug) => path.join('server-stubs', slug), own: true },
  test: { to: (slug) => path.join('test', slug), own: true },
  scenario: { to: () => path.join('scripts', 'lib', 'scenarios'), own: false },
};

/** A request the scaffold refuses: a bad slug, or a service that exists. Nothing has been written. */
export class ScaffoldRefused extends Error {}

/** Slugs are base paths, folder names and key prefixes: lower case, a letter first, dashes between words. */
const SLUG = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const RESERVED = new Set(['lib', 'docs', 'schemas', '_stub', 'stub-controls']);

export interface ScaffoldOptions {
  title?: string | undefined;
}

/** Refuses a slug no service may have (ScaffoldRefused): `npm run new-service` and `npm run add-service` share the rule. */
export function refuseBadSlug(slug: string): void {
  if (!SLUG.test(slug) || slug.length > 30) throw new ScaffoldRefused(`"${slug}" is not a slug: lower-case letters and digits, words joined by dashes, a letter first, 30 characters at most`);
  if (RESERVED.has(slug)) throw new ScaffoldRefused(`"${slug}" is reserved`);
}

/** Writes the new service's files from the templates; returns them relative to `root`. */
export async function scaffoldService(root: string, slug: string, options: ScaffoldOptions = {}): Promise<string[]> {
  refuseBadSlug(slug);
  const pascal = pascalCase(slug);
  const title = options.title?.trim() || slug.split('-').map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' ');
  const variables = { slug, pascal, camel: pascal[0]!.toLowerCase() + pascal.slice(1), title, slug_key: slug.replaceAll('-', '_') };

  // strictVariables: a template naming a variable the scaffold does not supply fails here, not in a file.
  const liquid = new Liquid({ strictVariables: true, strictFilters: true });
  // A file in a shared folder is named after the service in its template's name (`{{slug}}.ts.liquid`).
  const files = listFiles(templateDir).map((template) => {
    const [folder, ...rest] = path.relative(templateDir, template).split(path.sep);
    const name = liquid.parseAndRenderSync(path.join(...rest), variables);
    const target = path.join(targets[folder!]!.to(slug), name).replace(/\.liquid$/, '');
    return { template, target };
  });
  const taken = files.map((f) => f.target).filter((target) => existsSync(path.join(root, target)));
  const folders = Object.values(targets).filter((t) => t.own).map((t) => t.to(slug)).filter((folder) => existsSync(path.join(root, folder)));
  if (taken.length > 0 || folders.length > 0) throw new ScaffoldRefused(`${slug} exists already (${[...folders, ...taken].join(', ')}); nothing was written`);

  const rendered = await Promise.all(files.map(async (f) => ({ ...f, contents: await liquid.parseAndRender(readFileSync(f.template, 'utf8'), variables) })));
  for (const { target, contents } of rendered) {
    mkdirSync(path.dirname(path.join(root, target)), { recursive: true });
    writeFileSync(path.join(root, target), contents);
  }
  return rendered.map((f) => f.target.split(path.sep).join('/'));
}
