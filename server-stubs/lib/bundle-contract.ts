/**
 * The contract of a bundle file (`<dir>/<slug>/openapi.json`), read through its schema view, shared
 * by whoever in this process reads the same text: `npm run mock` serving it and `npm run contract`
 * checking an answer against it compile each of its schemas once between them (the same schemas
 * give the same verdicts). A new text (a rebuilt bundle) is a new contract.
 *
 * An entry lives as long as someone holds it (the mock while it serves, the runner's last runs):
 * nothing here keeps a contract alive on its own.
 */
import { readFileSync } from 'node:fs';
import type { OpenAPI3 } from 'openapi-typescript';
import { schemaView, type SchemaView } from './compilable-document.js';
import { contractOf, type Contract } from './contract.js';

export interface BundleContract {
  slug: string;
  /** the bundle's text, as read */
  text: string;
  /** the bundle as parsed, before its schema view */
  parsed: OpenAPI3;
  /** what the toolkit's Ajv reads of it, and what it had to leave out */
  view: SchemaView;
  /** the contract of the schema view */
  contract: Contract;
}

const read = new Map<string, WeakRef<BundleContract>>();

/**
 * The bundle at `file` as it is now; a bundle that cannot be read or parsed throws. Its contract is
 * the one already made of the very same document where there is one (the stubs' own, say: contractOf
 * keeps them by content).
 */
export function bundleContract(file: string, slug: string): BundleContract {
  const text = readFileSync(file, 'utf8');
  const kept = read.get(file)?.deref();
  if (kept && kept.slug === slug && kept.text === text) return kept;
  // Read through its schema view: a valid document whose schemas Ajv cannot take as they are
  // (3.0 `nullable`, a pattern JavaScript cannot compile) is still checked, minus what is noted.
  const parsed = JSON.parse(text) as OpenAPI3;
  const view = schemaView(parsed);
  const made: BundleContract = { slug, text, parsed, view, contract: contractOf(slug, view.document) };
  read.set(file, new WeakRef(made));
  // Entries whose contract nobody holds any longer go, so the map does not grow with every folder read.
  for (const [other, ref] of read) if (ref.deref() === undefined) read.delete(other);
  return made;
}
