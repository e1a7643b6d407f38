/** Request helpers of the generated readers: URLs from path templates, headers from several sources. */

/**
 * `baseUrl` + the path template with its parameters filled in (each one percent-encoded) + the
 * query (arrays repeat the name, as the contracts' form style does; undefined values are left out).
 */
export function buildUrl(
  baseUrl: string,
  template: string,
  params: { path?: Record<string, unknown>; query?: Record<string, unknown> } = {},
): string {
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params.path?.[name];
    if (value === undefined || value === null) throw new TypeError(`${template}: the path parameter ${name} is missing`);
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params.query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const query = search.toString();
  return `${baseUrl.replace(/\/+$/, '')}${path}${query ? `?${query}` : ''}`;
}

/** Headers of several sources, later ones winning; undefined values (optional header params) left out. */
export function mergeHeaders(...sources: Array<HeadersInit | Record<string, unknown> | undefined>): Headers {
  const headers = new Headers();
  for (const source of sources) {
    if (!source) continue;
    const entries = source instanceof Headers || Array.isArray(source) ? new Headers(source as HeadersInit) : Object.entries(source);
    for (const [name, value] of entries as Iterable<[string, unknown]>) {
      if (value !== undefined && value !== null) headers.set(name, String(value));
    }
  }
  return headers;
}

/** The JSON bodies an operation answers with on a status other than 2xx (the service's error bodies). */
export type ErrorBodyOf<Op> = Op extends { responses: infer R }
  ? { [S in keyof R]: `${S & (string | number)}` extends `2${string}` ? never : R[S] extends { content: { 'application/json': infer B } } ? B : never }[keyof R]
  : never;
