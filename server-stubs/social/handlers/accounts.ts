import { socialHandlers, type SocialDeps } from '../context.js';

export function accountHandlers({ store }: SocialDeps) {
  return socialHandlers({
    listAccounts: ({ principal }) => ({ status: 200, body: { accounts: store.accounts(principal) } }),
  });
}
