/**
 * How Redocly reads a document's files, for the lint and the bundle alike: as it does, except that a
 * discriminator's mapping value that is a schema name (`Cat`, as OpenAPI 3.0 and 3.1 allow beside a
 * reference) in the root file is read as the reference it names (`#/components/schemas/Cat`). Redocly resolves every
 * mapping value as a reference, so such a valid document would fail to bundle ("Can't resolve
 * $ref"); this changes the bundle's spelling, not its meaning. The source files are never touched.
 */
import type { BaseResolver as Resolver } from '@redocly/openapi-core';

/** A mapping value that names a schema: no path separator, no fragment, no file extension. */
const schemaName = (value: unknown): value is string => typeof value === 'string' && /^[A-Za-z0-9._-]+$/.test(value) && !/\.(ya?ml|json)$/i.test(value);

function spellMappingsAsReferences(node: unknown, seen = new Set<object>()): void {
  if (!node || typeof node !== 'object' || seen.has(node)) return;
  seen.add(node);
  if (Array.isArray(node)) return node.forEach((item) => spellMappingsAsReferences(item, seen));
  const record = node as Record<string, unknown>;
  const discriminator = record.discriminator as { mapping?: Record<string, unknown> } | undefined;
  if (discriminator && typeof discriminator === 'object' && discriminator.mapping && typeof discriminator.mapping === 'object') {
    for (const [key, value] of Object.entries(discriminator.mapping)) {
      if (schemaName(value)) discriminator.mapping[key] = `#/components/schemas/${value}`;
    }
  }
  for (const value of Object.values(record)) spellMappingsAsReferences(value, seen);
}

let resolverClass: Promise<new () => Resolver> | undefined;

/** A resolver for `lint` and `bundle` (their `externalRefResolver`): a new one each time, since it caches the files it read. */
export async function specificationResolver(): Promise<Resolver> {
  resolverClass ??= import('@redocly/openapi-core').then(
    ({ BaseResolver }) =>
      class SpecificationResolver extends BaseResolver {
        override parseDocument(...args: Parameters<Resolver['parseDocument']>) {
          const document = super.parseDocument(...args);
          // `#/components/schemas/…` means the root's components only in the root file.
          if (args[1] === true) spellMappingsAsReferences(document.parsed);
          return document;
        }
      },
  );
  return new (await resolverClass)();
}
