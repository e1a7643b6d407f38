import type { SocialDeps, SocialHandlers } from '../context.js';

export function accountHandlers({ store }: SocialDeps) {
  return {
    listAccounts: ({ principal }) => ({ status: 200, body: { accounts: store.accounts(principal) } }),
  } satisfies Partial<SocialHandlers>;
}
