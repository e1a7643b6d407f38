import type { SocialDeps, SocialHandlers } from '../context.js';

export function statsHandlers({ store }: SocialDeps) {
  return {
    getStats: ({ principal }) => ({ status: 200, body: store.stats(principal.workspaceId) }),
  } satisfies Partial<SocialHandlers>;
}
