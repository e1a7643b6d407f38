export interface ProvisionalItem {
  /** JSON Pointer inside the bundle or schema file, e.g. `/paths/~1projects/get`. */
  pointer: string;
  note: string;
}

/** Every `x-provisional` in a document, in document order. */
export function collectProvisional(node: unknown, pointer = ''): ProvisionalItem[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => collectProvisional(item, `${pointer}/${i}`));
  if (node === null || typeof node !== 'object' || isAlias(node)) return [];
  const items: ProvisionalItem[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'x-provisional') items.push({ pointer: pointer || '/', note: String(value) });
    else items.push(...collectProvisional(value, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`));
  }
  return items;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * An alias the bundle generated (`x-alias-of`, DECISIONS P-2), or a path item of nothing else: its
 * designed parts are its twin's, listed there once.
 */
function isAlias(node: object): boolean {
  if ('x-alias-of' in node) return true;
  const operations = METHODS.flatMap((method) => (method in node ? [(node as Record<string, unknown>)[method]] : []));
  return operations.length > 0 && operations.every((op) => typeof op === 'object' && op !== null && 'x-alias-of' in op);
}
