export interface ProvisionalItem {
  /** JSON Pointer inside the bundle or schema file, e.g. `/paths/~1projects/get`. */
  pointer: string;
  note: string;
}

/** Every `x-provisional` in a document, in document order. */
export function collectProvisional(node: unknown, pointer = ''): ProvisionalItem[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => collectProvisional(item, `${pointer}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  const items: ProvisionalItem[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'x-provisional') items.push({ pointer: pointer || '/', note: String(value) });
    else items.push(...collectProvisional(value, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`));
  }
  return items;
}
