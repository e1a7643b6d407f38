import { blogHandlers } from '../context.js';
import { searchCorpus } from '../search.js';

export function searchHandlers() {
  return blogHandlers({
    searchBlog: ({ query }) => ({ status: 200, body: searchCorpus(query) }),
  });
}
