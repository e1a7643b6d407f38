/**
 * Prism's schema sampler requires `@faker-js/faker`, whose entry builds its instance from every one
 * of its locales (about 2,000 modules), and only ever calls that instance, whose locale is English.
 * Imported before Prism, this module puts faker's own English-only instance in that entry's place in
 * the require cache: the same data and the same methods, for a fraction of the load (bench/RESULTS.md).
 * Prism never changes that instance's locale, so a document's `x-faker` keywords draw from the same
 * English data as before, and answers without them come from json-schema-faker's own (seeded) random.
 * A process that loaded faker's entry already keeps it.
 */
import { createRequire, Module } from 'node:module';

const fromPrism = createRequire(createRequire(import.meta.url).resolve('@stoplight/prism-http'));
const entry = fromPrism.resolve('@faker-js/faker');
const cache = fromPrism.cache;
if (!cache[entry]) {
  const english = fromPrism('@faker-js/faker/locale/en') as object;
  const stand = new Module(entry);
  stand.filename = entry;
  stand.loaded = true;
  // The entry's own names for its instance: `default` (what Prism reads) and `faker`.
  stand.exports = { default: english, faker: english };
  cache[entry] = stand;
}
