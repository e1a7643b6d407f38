import { socialHandlers, type SocialDeps } from '../context.js';

export function statsHandlers({ store }: SocialDeps) {
  return socialHandlers({
    getStats: ({ principal }) => ({ status: 200, body: store.stats(principal.workspaceId) }),
  });
}
