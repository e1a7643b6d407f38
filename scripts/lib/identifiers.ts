/**
 * Names from a document (operationIds, component names) written into TypeScript. Any valid OpenAPI
 * document may name things `perform-search`, `Links-Self`, `v1.User` or `delete`: such a name is
 * quoted where TypeScript allows a string (a property key) and mapped to an identifier where it
 * does not (a type or const name), never emitted raw.
 */

/** Words that cannot name a type or a const in a module (reserved, strict-mode reserved, predefined types). */
const unusable = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in ' +
    'instanceof new null return super switch this throw true try typeof var void while with implements interface let package private ' +
    'protected public static yield await any unknown number bigint boolean string symbol never object undefined'
  ).split(' '),
);

const identifierPattern = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Whether `name` can be written as it is where TypeScript wants an identifier. */
export function isIdentifier(name: string): boolean {
  return identifierPattern.test(name) && !unusable.has(name);
}

/** `name` as an object or interface key: bare when it is an identifier name, else a string literal. */
export function propertyKey(name: string): string {
  return identifierPattern.test(name) ? name : JSON.stringify(name);
}

/**
 * An identifier for `name`: itself when usable, else its words joined in PascalCase (`Links-Self` ->
 * `LinksSelf`, `v1.user` -> `V1User`), with `_` before a leading digit. `undefined` when nothing
 * usable is left or the result is in `taken` (a collision is never resolved by a guess at a suffix:
 * the type stays reachable through its quoted key).
 */
export function identifierFor(name: string, taken: ReadonlySet<string>): string | undefined {
  let candidate = name;
  if (!isIdentifier(candidate)) {
    const words = name.split(/[^A-Za-z0-9_$]+/).filter(Boolean);
    candidate = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
    if (/^[0-9]/.test(candidate)) candidate = `_${candidate}`;
  }
  return isIdentifier(candidate) && !taken.has(candidate) ? candidate : undefined;
}
