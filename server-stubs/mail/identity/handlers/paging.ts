/** One page of a list in the service's envelope (`{data, pagination: {page, limit, total, totalPages}}`). */
export function pageOf<T>(items: T[], page: number, limit: number) {
  return {
    data: items.slice((page - 1) * limit, page * limit),
    pagination: { page, limit, total: items.length, totalPages: Math.ceil(items.length / limit) },
  };
}

export const iso = (epochMs: number | null | undefined) => (epochMs == null ? null : new Date(epochMs).toISOString());
