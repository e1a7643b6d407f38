/** Media types as the contract stub and the body parsers tell them apart. */

/** `application/json; charset=utf-8` -> `application/json`. */
export const essence = (type: string) => type.split(';')[0]!.trim().toLowerCase();

/** JSON and the types with its structured-syntax suffix (`application/problem+json`, `application/hal+json`). */
export const isJsonType = (type: string) => {
  const e = essence(type);
  return e === 'application/json' || e.endsWith('+json');
};

/** Whether a body of `type` is one the `declared` media types (wildcards included) take. */
export function declaresMediaType(declared: string[], type: string): boolean {
  const wanted = essence(type);
  return declared.some((d) => {
    const e = essence(d);
    return e === wanted || e === '*/*' || (e.endsWith('/*') && wanted.startsWith(e.slice(0, -1)));
  });
}

export const isXmlType = (type: string) => /[/+]xml$/.test(essence(type));

export const isFormType = (type: string) => essence(type) === 'application/x-www-form-urlencoded';

export const isMultipartType = (type: string) => essence(type).startsWith('multipart/');

/** Media a person could read: sent and received as text, not bytes. */
export const isTextType = (type: string) =>
  isXmlType(type) || /^text\//.test(essence(type)) || /^application\/(?:javascript|ecmascript|x-yaml|yaml|graphql|sql|x-ndjson|jsonl|csv)$/.test(essence(type));

/**
 * The declared media type an answer takes: the first the client's `Accept` names (wildcards and
 * quality values honoured), else the first JSON one, else the first declared.
 */
export function chooseMediaType(declared: string[], accept: string | undefined): string | undefined {
  if (declared.length === 0) return undefined;
  const ranges = (accept ?? '')
    .split(',')
    .map((part) => {
      const [range = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
      const q = params.find((p) => p.startsWith('q='));
      return { range, q: q ? Number(q.slice(2)) : 1 };
    })
    .filter((r) => r.range && r.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { range } of ranges) {
    if (range === '*/*') break;
    const found = declared.find((type) => {
      const t = essence(type);
      if (range.endsWith('/*')) return t.startsWith(range.slice(0, -1));
      return t === range || (t.endsWith('/*') && range.startsWith(t.slice(0, -1)));
    });
    if (found) return found;
  }
  return declared.find(isJsonType) ?? declared[0];
}
