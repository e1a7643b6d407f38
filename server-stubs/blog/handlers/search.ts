import type { BlogHandlers } from '../context.js';
import { searchCorpus } from '../search.js';

export function searchHandlers() {
  return {
    searchBlog: ({ query }) => ({ status: 200, body: searchCorpus(query) }),
  } satisfies Partial<BlogHandlers>;
}
