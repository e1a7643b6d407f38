/** How mail's answers write a list (the page envelope) and a time (ISO 8601, remembered per value). */

/** One page of a list in the service's envelope (`{data, pagination: {page, limit, total, totalPages}}`). */
export function pageOf<T>(items: T[], page: number, limit: number) {
  return {
    data: items.slice((page - 1) * limit, page * limit),
    pagination: { page, limit, total: items.length, totalPages: Math.ceil(items.length / limit) },
  };
}

const isoTexts = new Map<number, string>();

/**
 * A stored time as the API writes it. Lists write the same times on every read (a contact page is
 * dozens of them), so the texts are remembered: formatting showed in a list's CPU profile.
 */
export const iso = (epochMs: number | null | undefined) => {
  if (epochMs == null) return null;
  let text = isoTexts.get(epochMs);
  if (text === undefined) {
    // Bounded: times come from requests too.
    if (isoTexts.size >= 10_000) isoTexts.clear();
    text = new Date(epochMs).toISOString();
    isoTexts.set(epochMs, text);
  }
  return text;
};
