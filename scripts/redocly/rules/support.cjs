/**
 * What the house rules share: following `$ref`s across files, telling error and success statuses,
 * reporting a shared place once, and what counts as an example.
 */

const isRef = (node) => node !== null && typeof node === 'object' && typeof node.$ref === 'string';
const isErrorStatus = (status) => /^[45]([0-9]{2}|XX)$/.test(status);
const isSuccessStatus = (status) => /^[23]([0-9]{2}|XX)$/.test(status);

/**
 * Follows `$ref`s from `node`, found at `location`, to the node and the location it really lives at.
 * Redocly's `resolve` only knows the file the visitor was entered in, so each hop names its own file.
 */
function follow(resolve, node, location) {
  let current = { node, location };
  for (let hops = 0; isRef(current.node) && hops < 20; hops++) {
    const next = resolve(current.node, current.location.source.absoluteRef);
    if (next.node === undefined || !next.location) return { node: undefined, location: current.location };
    current = { node: next.node, location: next.location };
  }
  return current;
}

/** The entries of a map node with each value's `$ref` followed: `[key, node, location]`. */
function entriesOf(resolve, map, location) {
  if (!map || typeof map !== 'object') return [];
  return Object.keys(map).map((key) => {
    const { node, location: at } = follow(resolve, map[key], location.child([key]));
    return [key, node, at];
  });
}

/** The same place reached from many operations is reported once: the fix is made once. */
function reportOnce() {
  const seen = new Set();
  return (report, location, message) => {
    const id = `${location.source.absoluteRef}#${location.pointer}`;
    if (seen.has(id)) return;
    seen.add(id);
    report({ message, location });
  };
}

/** An example the mock and the docs can show: a named example with a `value`, an `example`, or a schema's `examples`. */
function hasExample(resolve, media, location) {
  const named = entriesOf(resolve, media.examples, location.child(['examples']));
  if (named.length > 0 && named[0][1] && typeof named[0][1] === 'object' && 'value' in named[0][1]) return true;
  if ('example' in media) return true;
  const schema = follow(resolve, media.schema, location.child(['schema'])).node;
  return Array.isArray(schema?.examples) && schema.examples.length > 0;
}

module.exports = { isRef, isErrorStatus, isSuccessStatus, follow, entriesOf, reportOnce, hasExample };
