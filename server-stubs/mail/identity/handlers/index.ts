import { mailHandlers, type MailDeps } from '../../context.js';
import { accountHandlers } from './accounts.js';
import { keyHandlers } from './keys.js';
import { planHandlers } from './plan.js';
import { sessionHandlers } from './sessions.js';

/** Keys, sessions, accounts, plan limits and billing. */
export function identityHandlers(deps: MailDeps) {
  return mailHandlers({
    ...keyHandlers(deps),
    ...accountHandlers(deps),
    ...planHandlers(deps),
    ...sessionHandlers(deps),
  });
}
